package kernel

import (
	"math"
	"testing"
)

func TestRowCacheLRU(t *testing.T) {
	if c := newRowCache(10, 79); c != nil {
		t.Fatal("a budget below one row gave a cache")
	}
	c := newRowCache(4, 3*4*8) // three rows of four entries
	for _, i := range []int{0, 1, 2} {
		row := c.get(i)
		if len(row) != 4 || !math.IsNaN(row[0]) {
			t.Fatalf("fresh row %v", row)
		}
		row[i] = float64(i)
	}
	c.get(0)         // 0 most recent: LRU order 1, 2, 0
	row3 := c.get(3) // evicts 1
	if c.peek(1) != nil || c.peek(0) == nil || c.peek(2) == nil {
		t.Fatal("evicted the wrong row")
	}
	if !math.IsNaN(row3[1]) {
		t.Fatal("a reused slot kept its old entries")
	}
	if got := c.get(0)[0]; got != 0 {
		t.Fatalf("row 0 lost its entry: %v", got)
	}
	c.get(1) // evicts 2 (order was 3, 0 after touching 0... 2 is least recent)
	if c.peek(2) != nil || c.bytes() != 3*4*8 {
		t.Fatalf("after another miss: peek(2) %v, %d bytes", c.peek(2), c.bytes())
	}
	var nilCache *rowCache
	if nilCache.peek(0) != nil || nilCache.bytes() != 0 {
		t.Fatal("a nil cache holds something")
	}
}
