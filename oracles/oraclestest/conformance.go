package oraclestest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/fwstruct/fwstruct/internal/race"
	"github.com/fwstruct/fwstruct/oracles"
)

// CheckOptions configures CheckProblem and Conformance. The zero value checks
// up to 200 examples with 3 random weight vectors each.
type CheckOptions struct {
	// Examples bounds the number of examples checked, spread evenly over the
	// problem; zero means min(n, 200).
	Examples int
	// Weights is the number of random weight vectors per example; zero
	// means 3.
	Weights int
	// Scale is the standard deviation of the random weights; zero means 1.
	// Weights are clipped to the model's bounds when it is Bounded.
	Scale float64
	// Seed seeds the random weights.
	Seed uint64
	// Tol is the tolerance of score comparisons, relative to
	// max(1, |score|); zero means 1e-9.
	Tol float64
	// MaxLabelings bounds the brute-force enumeration of an example (for
	// problems implementing oracles.Labelings); examples with more
	// labelings are not compared with brute force. Zero means 1<<16.
	MaxLabelings int
	// AllowAllocs skips the zero-allocation check of Conformance.
	AllowAllocs bool
}

func (o CheckOptions) withDefaults(n int) CheckOptions {
	if o.Examples <= 0 {
		o.Examples = 200
	}
	o.Examples = min(o.Examples, n)
	if o.Weights <= 0 {
		o.Weights = 3
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Tol == 0 {
		o.Tol = 1e-9
	}
	if o.MaxLabelings <= 0 {
		o.MaxLabelings = 1 << 16
	}
	return o
}

// CheckProblem checks that p honours the contract of oracles.Problem, on a
// sample of its examples and random weights (see CheckOptions):
//
//   - the ground truth has zero loss and an empty (all-zero) psi;
//   - psi has distinct indices in [0, Dim()) and finite values; losses are
//     finite and non-negative;
//   - MaxOracle returns the score H_i(y; w) = L_i(y) - <w, psi_i(y)> of the
//     labeling it returns, which is at least H_i(y_i; w) = 0, and the same
//     score when called again with a dirty buffer;
//   - where the labelings can be enumerated (oracles.Labelings, at most
//     MaxLabelings of them), MaxOracle and Predict reach the brute-force
//     optimum; an Approximate problem's oracle is only checked not to
//     exceed it, and its Exact problem is checked in full;
//   - concurrent MaxOracle calls from several goroutines give the scores of
//     sequential ones (run the tests with -race to catch data races).
//
// It returns every violation found, joined, or nil. Users writing their own
// Problem should run it in a test on small instances.
func CheckProblem(p oracles.Problem, opt CheckOptions) error {
	if p == nil {
		return errors.New("oraclestest: nil problem")
	}
	n, d := p.Len(), p.Dim()
	if n < 1 || d < 1 {
		return fmt.Errorf("oraclestest: problem has %d examples of dimension %d; need at least one of each", n, d)
	}
	opt = opt.withDefaults(n)
	c := &checker{p: p, opt: opt, d: d, rng: rand.New(rand.NewPCG(opt.Seed, 0xc0ffee))}
	c.exact = true
	if a, ok := p.(oracles.Approximate); ok {
		c.exact = false
		if e := a.Exact(); e != nil {
			if err := CheckProblem(e, opt); err != nil {
				c.errs = append(c.errs, fmt.Errorf("exact oracle of the approximate problem: %w", err))
			}
		}
	}
	if b, ok := p.(oracles.Bounded); ok {
		c.lower, c.upper = b.WeightBounds()
		if (c.lower != nil && len(c.lower) != d) || (c.upper != nil && len(c.upper) != d) {
			c.fail("WeightBounds returns slices of length %d and %d, want %d (or nil)", len(c.lower), len(c.upper), d)
			c.lower, c.upper = nil, nil
		}
	}
	examples := c.sample()
	for _, i := range examples {
		c.example(i)
		if len(c.errs) > 20 {
			c.errs = append(c.errs, errors.New("oraclestest: too many errors, stopping"))
			return errors.Join(c.errs...)
		}
	}
	c.concurrent(examples)
	return errors.Join(c.errs...)
}

// Conformance runs CheckProblem in a test and, unless opt.AllowAllocs is set
// or the race detector is on, also checks that MaxOracle and Predict do not
// allocate in steady state when given a large enough dst buffer.
func Conformance(t testing.TB, p oracles.Problem, opt CheckOptions) {
	t.Helper()
	if err := CheckProblem(p, opt); err != nil {
		t.Fatal(err)
	}
	if opt.AllowAllocs || race.Enabled {
		return
	}
	opt = opt.withDefaults(p.Len())
	rng := rand.New(rand.NewPCG(opt.Seed, 0xa110c))
	w := Weights(rng, p.Dim(), opt.Scale)
	if b, ok := p.(oracles.Bounded); ok {
		lo, hi := b.WeightBounds()
		clipTo(w, lo, hi)
	}
	i := p.Len() / 2
	dst := make([]int32, 0, 1<<10)
	dst, _ = p.MaxOracle(i, w, dst)
	if a := testing.AllocsPerRun(20, func() { dst, _ = p.MaxOracle(i, w, dst[:0]) }); a > 0 {
		t.Errorf("MaxOracle allocates %.1f times per call in steady state", a)
	}
	if a := testing.AllocsPerRun(20, func() { dst = p.Predict(i, w, dst[:0]) }); a > 0 {
		t.Errorf("Predict allocates %.1f times per call in steady state", a)
	}
}

type checker struct {
	p            oracles.Problem
	opt          CheckOptions
	d            int
	rng          *rand.Rand
	exact        bool
	lower, upper []float64
	errs         []error
	psi          oracles.SparseVec
}

func (c *checker) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// sample returns opt.Examples example indices spread over [0, n).
func (c *checker) sample() []int {
	n, m := c.p.Len(), c.opt.Examples
	out := make([]int, 0, m)
	for k := 0; k < m; k++ {
		i := k * n / m
		if len(out) == 0 || out[len(out)-1] != i {
			out = append(out, i)
		}
	}
	return out
}

func (c *checker) weights() []float64 {
	w := Weights(c.rng, c.d, c.opt.Scale)
	clipTo(w, c.lower, c.upper)
	return w
}

func clipTo(w, lower, upper []float64) {
	for j := range w {
		if lower != nil && w[j] < lower[j] {
			w[j] = lower[j]
		}
		if upper != nil && w[j] > upper[j] {
			w[j] = upper[j]
		}
	}
}

func (c *checker) close(a, b float64) bool {
	return math.Abs(a-b) <= c.opt.Tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkPsi validates psi_i(y) and returns false on a violation.
func (c *checker) checkPsi(i int, y []int32, what string) bool {
	c.p.Psi(i, y, &c.psi)
	if len(c.psi.Idx) != len(c.psi.Val) {
		c.fail("example %d: psi of the %s has %d indices but %d values", i, what, len(c.psi.Idx), len(c.psi.Val))
		return false
	}
	seen := make(map[int32]bool, len(c.psi.Idx))
	for k, j := range c.psi.Idx {
		if j < 0 || int(j) >= c.d {
			c.fail("example %d: psi of the %s has index %d outside [0, %d)", i, what, j, c.d)
			return false
		}
		if seen[j] {
			c.fail("example %d: psi of the %s repeats index %d", i, what, j)
			return false
		}
		seen[j] = true
		if v := c.psi.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			c.fail("example %d: psi of the %s has value %v at index %d", i, what, v, j)
			return false
		}
	}
	return true
}

func (c *checker) example(i int) {
	p := c.p
	truth := append([]int32(nil), p.Truth(i)...)
	if l := p.Loss(i, truth); l != 0 {
		c.fail("example %d: loss of the ground truth is %v, want 0", i, l)
	}
	if c.checkPsi(i, truth, "ground truth") {
		for k, v := range c.psi.Val {
			if v != 0 {
				c.fail("example %d: psi of the ground truth is %v at index %d, want 0 (psi_i(y_i) = phi(x_i, y_i) - phi(x_i, y_i))", i, v, c.psi.Idx[k])
				break
			}
		}
	}
	bruteOK := false
	if lp, ok := p.(oracles.Labelings); ok {
		bruteOK = countUpTo(lp, i, c.opt.MaxLabelings)
	}
	for r := 0; r < c.opt.Weights; r++ {
		w := c.weights()
		y, h := p.MaxOracle(i, w, nil)
		y = append([]int32(nil), y...)
		if math.IsNaN(h) || math.IsInf(h, 0) {
			c.fail("example %d: MaxOracle returned score %v", i, h)
			continue
		}
		if !c.checkPsi(i, y, "oracle's labeling") {
			continue
		}
		loss := p.Loss(i, y)
		if math.IsNaN(loss) || math.IsInf(loss, 0) || loss < 0 {
			c.fail("example %d: loss of the oracle's labeling is %v, want finite and >= 0", i, loss)
			continue
		}
		if hy := loss - c.psi.Dot(w); !c.close(hy, h) {
			c.fail("example %d: MaxOracle returned score %v but its labeling scores H = L - <w, psi> = %v", i, h, hy)
		}
		if c.exact && h < -c.opt.Tol*math.Max(1, math.Abs(h)) {
			c.fail("example %d: MaxOracle score %v is below the ground truth's 0", i, h)
		}
		dirty := make([]int32, len(y)+7, 4*len(y)+16)
		for k := range dirty {
			dirty[k] = -12345
		}
		if _, h2 := p.MaxOracle(i, w, dirty); !c.close(h, h2) {
			c.fail("example %d: MaxOracle gives score %v with an empty buffer and %v with a dirty one", i, h, h2)
		}
		yp := append([]int32(nil), p.Predict(i, w, dirty)...)
		if !c.checkPsi(i, yp, "prediction") {
			continue
		}
		predScore := c.psi.Dot(w) // <w, psi_i(yp)>, minimized by Predict
		if !bruteOK {
			continue
		}
		bestH, bestS := math.Inf(-1), math.Inf(1)
		var ps oracles.SparseVec
		p.(oracles.Labelings).ForEachLabeling(i, func(z []int32) {
			p.Psi(i, z, &ps)
			s := ps.Dot(w)
			bestH = math.Max(bestH, p.Loss(i, z)-s)
			bestS = math.Min(bestS, s)
		})
		switch {
		case c.exact && !c.close(h, bestH):
			c.fail("example %d: MaxOracle score %v, brute force %v", i, h, bestH)
		case !c.exact && h > bestH+c.opt.Tol*math.Max(1, math.Abs(bestH)):
			c.fail("example %d: approximate MaxOracle score %v exceeds the brute-force maximum %v", i, h, bestH)
		}
		if c.exact && !c.close(predScore, bestS) {
			c.fail("example %d: Predict's labeling has <w, psi> = %v, brute force minimum %v", i, predScore, bestS)
		}
	}
}

// concurrent compares MaxOracle scores computed by several goroutines at
// once with sequential ones.
func (c *checker) concurrent(examples []int) {
	w := c.weights()
	want := make([]float64, len(examples))
	for k, i := range examples {
		_, want[k] = c.p.MaxOracle(i, w, nil)
	}
	const G = 4
	got := make([][]float64, G)
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		got[g] = make([]float64, len(examples))
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var y []int32
			for r := 0; r < 3; r++ {
				for k := range examples {
					kk := (k + g*len(examples)/G) % len(examples)
					y, got[g][kk] = c.p.MaxOracle(examples[kk], w, y)
				}
			}
		}(g)
	}
	wg.Wait()
	for g := range got {
		for k, i := range examples {
			if got[g][k] != want[k] && !(math.IsNaN(got[g][k]) && math.IsNaN(want[k])) {
				c.fail("example %d: concurrent MaxOracle calls give score %v, a sequential one %v (shared state?)", i, got[g][k], want[k])
				return
			}
		}
	}
}

// errTooMany aborts an enumeration.
type errTooMany struct{}

// countUpTo reports whether example i has at most limit labelings.
func countUpTo(lp oracles.Labelings, i, limit int) (ok bool) {
	n := 0
	defer func() {
		if r := recover(); r != nil {
			if _, abort := r.(errTooMany); !abort {
				panic(r)
			}
			ok = false
		}
	}()
	lp.ForEachLabeling(i, func([]int32) {
		n++
		if n > limit {
			panic(errTooMany{})
		}
	})
	return true
}
