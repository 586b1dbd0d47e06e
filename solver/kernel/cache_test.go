package kernel

import (
	"fmt"
	"testing"
)

func TestRowCacheLRU(t *testing.T) {
	for _, f32 := range []bool{false, true} {
		t.Run(fmt.Sprintf("float32 %v", f32), func(t *testing.T) {
			width := int64(8)
			if f32 {
				width = 4
			}
			if c := newRowCache(10, 10*width-1, f32); c != nil {
				t.Fatal("a budget below one row gave a cache")
			}
			c := newRowCache(4, 3*4*width, f32) // three rows of four entries
			for _, i := range []int{0, 1, 2} {
				row := c.get(i)
				if len(row.f64)+len(row.f32) != 4 {
					t.Fatalf("fresh row %v", row)
				}
				if _, ok := row.at(0); ok {
					t.Fatalf("fresh row %v has an entry", row)
				}
				row.put(int32(i), float64(i)+0.25)
			}
			c.get(0)         // 0 most recent: LRU order 1, 2, 0
			row3 := c.get(3) // evicts 1
			if c.holds(1) || !c.holds(0) || !c.holds(2) {
				t.Fatal("evicted the wrong row")
			}
			if _, ok := row3.at(1); ok {
				t.Fatal("a reused slot kept its old entries")
			}
			if got, ok := c.get(0).at(0); !ok || got != 0.25 {
				t.Fatalf("row 0 lost its entry: %v", got)
			}
			c.get(1) // evicts 2 (order was 3, 0 after touching 0... 2 is least recent)
			if c.holds(2) || c.bytes() != 3*4*width {
				t.Fatalf("after another miss: holds(2) %v, %d bytes", c.holds(2), c.bytes())
			}
			var nilCache *rowCache
			if nilCache.holds(0) || nilCache.bytes() != 0 {
				t.Fatal("a nil cache holds something")
			}
		})
	}
}
