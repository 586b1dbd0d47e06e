package tune

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Fold divides the training examples for validation: the model is
// trained on Fit and measured on Held (sorted indices of the training set).
type Fold struct {
	Fit, Held []int
}

// Folds returns the folds Run validates on for n training examples:
// cfg.Folds folds (5, or n when fewer, for zero), or one held-out fraction
// cfg.HoldOut, the examples dealt with cfg.Seed. The other fields of cfg
// are not read.
func Folds(n int, cfg Config) ([]Fold, error) {
	switch {
	case cfg.HoldOut != 0 && cfg.Folds != 0:
		return nil, errors.New("tune: give folds or a held-out fraction, not both")
	case cfg.HoldOut != 0:
		f, err := holdOut(n, cfg.HoldOut, cfg.Seed)
		return []Fold{f}, err
	case cfg.Folds == 0:
		return kFolds(n, min(5, n), cfg.Seed)
	}
	return kFolds(n, cfg.Folds, cfg.Seed)
}

// kFolds splits the examples 0..n-1 into k folds for k-fold
// cross-validation: the examples are shuffled with seed and dealt into k
// held-out sets of sizes differing by at most one, which are disjoint and
// cover 0..n-1; each fold fits on the other examples. Indices are sorted
// within each set. It needs 2 <= k <= n.
func kFolds(n, k int, seed uint64) ([]Fold, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("tune: %d folds of %d examples (want 2 <= folds <= examples)", k, n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x70e5))
	perm := rng.Perm(n)
	of := make([]int, n) // the fold holding example i out
	for r, i := range perm {
		of[i] = r % k
	}
	folds := make([]Fold, k)
	for i := 0; i < n; i++ {
		for f := range folds {
			if of[i] == f {
				folds[f].Held = append(folds[f].Held, i)
			} else {
				folds[f].Fit = append(folds[f].Fit, i)
			}
		}
	}
	return folds, nil
}

// holdOut splits the examples 0..n-1 into one fold: a fraction frac in
// (0, 1) of them (rounded, at least one), chosen at random with seed, held
// out, the others fit.
func holdOut(n int, frac float64, seed uint64) (Fold, error) {
	held := int(math.Round(frac * float64(n)))
	if !(frac > 0 && frac < 1) || held < 1 || held >= n {
		return Fold{}, fmt.Errorf("tune: holding out %v of %d examples leaves one side empty", frac, n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x70e5))
	out := make([]bool, n)
	for _, i := range rng.Perm(n)[:held] {
		out[i] = true
	}
	var f Fold
	for i := 0; i < n; i++ {
		if out[i] {
			f.Held = append(f.Held, i)
		} else {
			f.Fit = append(f.Fit, i)
		}
	}
	return f, nil
}
