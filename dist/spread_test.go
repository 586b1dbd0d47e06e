package dist

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// running and most count the sleep units running at once.
var running, most atomic.Int32

// The sleep task sleeps half a second, counting the units running at once.
func init() {
	registerTask("sleep", func(ctx context.Context, spec []byte) ([]byte, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
		return spec, nil
	})
}

// TestBeamSpreadsUnits: prism runs units of one run at once (the reshuffle
// after the created units lets it split their bundle); without the
// reshuffle it runs them one after another.
func TestBeamSpreadsUnits(t *testing.T) {
	most.Store(0)
	var units []Unit
	for i := range 4 {
		units = append(units, Unit{Task: "sleep", Key: fmt.Sprint(i), Spec: []byte(`1`)})
	}
	start := time.Now()
	if _, err := (Beam{}).Run(context.Background(), units); err != nil {
		t.Fatal(err)
	}
	t.Logf("4 units of 0.5 s in %v, at most %d at once", time.Since(start), most.Load())
	if most.Load() < 2 {
		t.Errorf("the units ran one at a time")
	}
}
