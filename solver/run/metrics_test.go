package run

import (
	"math"
	"testing"
)

// TestPassesAndSecondsToGap: the first point whose gap is at most eps
// gives the passes and seconds; a trace that never gets there (or has no
// gap) gives NaN.
func TestPassesAndSecondsToGap(t *testing.T) {
	nan := math.NaN()
	tr := []Point{{Pass: 0, Seconds: 0, Gap: 1}, {Pass: 2, Seconds: 1, Gap: 0.5}, {Pass: 3, Seconds: 1.5, Gap: nan},
		{Pass: 4, Seconds: 2, Gap: 0.1}, {Pass: 6, Seconds: 3, Gap: 0.2}, {Pass: 8, Seconds: 4, Gap: 0.01}}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, c := range []struct{ eps, pass, sec float64 }{
		{2, 0, 0}, {1, 0, 0}, {0.5, 2, 1}, {0.3, 4, 2}, {0.1, 4, 2}, {0.05, 8, 4}, {0.001, nan, nan},
	} {
		if p, s := PassesToGap(tr, c.eps), SecondsToGap(tr, c.eps); !same(p, c.pass) || !same(s, c.sec) {
			t.Errorf("eps %v: passes %v, seconds %v; want %v, %v", c.eps, p, s, c.pass, c.sec)
		}
	}
	if !math.IsNaN(PassesToGap(nil, 1)) || !math.IsNaN(SecondsToGap(nil, 1)) {
		t.Error("empty trace: want NaN")
	}
}

// TestChi: 1 for a uniform vector, sqrt(n) for a one-hot one, NaN for zero.
func TestChi(t *testing.T) {
	if c := Chi([]float64{1, 1, 1, 1}); math.Abs(c-1) > 1e-12 {
		t.Fatalf("chi(uniform) = %v", c)
	}
	if c := Chi([]float64{0, 5, 0, 0}); math.Abs(c-2) > 1e-12 {
		t.Fatalf("chi(one-hot) = %v, want sqrt(4)", c)
	}
	if !math.IsNaN(Chi([]float64{0, 0})) {
		t.Fatal("chi(0) should be NaN")
	}
}
