package lp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
)

// randomLP returns a bounded feasible program: m random rows (entries in
// {-1, 0, 1, 2} with some degenerate zero right-hand sides) satisfied by a
// random x0 >= 0 with many zeros, plus the row sum(x) = sum(x0) that bounds
// the polytope.
func randomLP(rng *rand.Rand, m, n int) (*mat.Dense, []float64) {
	x0 := make([]float64, n)
	for j := range x0 {
		if rng.IntN(3) == 0 {
			x0[j] = float64(rng.IntN(3))
		}
	}
	A := mat.NewDense(m+1, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if rng.IntN(3) == 0 {
				A.Set(i, j, float64(rng.IntN(4)-1))
			}
		}
	}
	for j := 0; j < n; j++ {
		A.Set(m, j, 1)
	}
	x0[0]++ // the bounding row has a positive right-hand side
	b := make([]float64, m+1)
	for i := range b {
		b[i] = floats.Dot(mat.Row(nil, i, A), x0)
	}
	return A, b
}

func TestSolveAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ws Workspace
	compared := 0
	for trial := 0; trial < 200; trial++ {
		m, n := 1+rng.IntN(6), 8+rng.IntN(10)
		A, b := randomLP(rng, m, n)
		p, err := New(A, b)
		if err != nil {
			t.Fatalf("trial %d: New: %v", trial, err)
		}
		c := make([]float64, n)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		x := make([]float64, n)
		res, err := p.Solve(c, x, &ws)
		if err != nil {
			t.Fatalf("trial %d: Solve: %v", trial, err)
		}
		// x is feasible and attains the reported objective.
		for j, v := range x {
			if v < 0 {
				t.Fatalf("trial %d: x[%d] = %v < 0", trial, j, v)
			}
		}
		var ax mat.VecDense
		ax.MulVec(A, mat.NewVecDense(n, x))
		for i := range b {
			if math.Abs(ax.AtVec(i)-b[i]) > 1e-8 {
				t.Fatalf("trial %d: row %d: Ax = %v, b = %v", trial, i, ax.AtVec(i), b[i])
			}
		}
		if math.Abs(floats.Dot(c, x)-res.Objective) > 1e-9 {
			t.Fatalf("trial %d: objective %v but cᵀx = %v", trial, res.Objective, floats.Dot(c, x))
		}
		// gonum needs A of full row rank; random rows may be dependent,
		// then it reports an error and the trial is not compared.
		want, _, gerr := gonumlp.Simplex(c, A, b, 1e-10, nil)
		if gerr != nil {
			continue
		}
		compared++
		if math.Abs(want-res.Objective) > 1e-7*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d: objective %v, gonum %v", trial, res.Objective, want)
		}
	}
	if compared < 100 {
		t.Fatalf("only %d of 200 programs compared with gonum", compared)
	}
}

// TestRedundantRows duplicates and combines rows: New drops them and Solve
// still finds the optimum.
func TestRedundantRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		A0, b0 := randomLP(rng, 3, 9)
		m, n := A0.Dims()
		A := mat.NewDense(m+2, n, nil)
		A.Slice(0, m, 0, n).(*mat.Dense).Copy(A0)
		b := append(append([]float64(nil), b0...), 0, 0)
		for j := 0; j < n; j++ {
			A.Set(m, j, A0.At(0, j))                 // duplicate of row 0
			A.Set(m+1, j, A0.At(1, j)-2*A0.At(2, j)) // combination
		}
		b[m], b[m+1] = b0[0], b0[1]-2*b0[2]
		p, err := New(A, b)
		if err != nil {
			t.Fatal(err)
		}
		if orig, kept := p.Rows(); orig != m+2 || kept > m {
			t.Fatalf("rows: %d original, %d kept; want %d and at most %d", orig, kept, m+2, m)
		}
		p0, err := New(A0, b0)
		if err != nil {
			t.Fatal(err)
		}
		c := make([]float64, n)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		x := make([]float64, n)
		r, err := p.Solve(c, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		r0, err := p0.Solve(c, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Objective-r0.Objective) > 1e-9 {
			t.Fatalf("trial %d: %v with redundant rows, %v without", trial, r.Objective, r0.Objective)
		}
	}
}

func TestErrors(t *testing.T) {
	// x1 + x2 = -1 has no non-negative solution.
	if _, err := New(mat.NewDense(1, 2, []float64{1, 1}), []float64{-1}); !errors.Is(err, ErrInfeasible) {
		t.Errorf("infeasible: got %v", err)
	}
	// x1 - x2 = 0: min -x1 is unbounded.
	p, err := New(mat.NewDense(1, 2, []float64{1, -1}), []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 2)
	if _, err := p.Solve([]float64{-1, 0}, x, nil); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded: got %v", err)
	}
	if _, err := p.Solve([]float64{math.NaN(), 0}, x, nil); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN cost: got %v", err)
	}
	if _, err := p.Solve([]float64{1}, x, nil); err == nil {
		t.Error("short c: no error")
	}
	if _, err := New(mat.NewDense(1, 2, []float64{1, math.Inf(1)}), []float64{1}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf in A: got %v", err)
	}
	if _, err := New(mat.NewDense(1, 2, []float64{1, 1}), []float64{1, 2}); err == nil {
		t.Error("mismatched b: no error")
	}
}

// TestDegenerateCycling runs Beale's classic cycling example (Beale 1955),
// on which Dantzig's rule without safeguards cycles forever.
func TestDegenerateCycling(t *testing.T) {
	// min -3/4 x4 + 20 x5 - 1/2 x6 + 6 x7, with slacks x1..x3.
	A := mat.NewDense(3, 7, []float64{
		1, 0, 0, 0.25, -8, -1, 9,
		0, 1, 0, 0.5, -12, -0.5, 3,
		0, 0, 1, 0, 0, 1, 0,
	})
	b := []float64{0, 0, 1}
	c := []float64{0, 0, 0, -0.75, 20, -0.5, 6}
	p, err := New(A, b)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 7)
	r, err := p.Solve(c, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Objective-(-1.25)) > 1e-12 {
		t.Fatalf("objective %v, want -1.25", r.Objective)
	}
}

func TestSolveAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A, b := randomLP(rng, 5, 12)
	p, err := New(A, b)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]float64, 12)
	for j := range c {
		c[j] = rng.NormFloat64()
	}
	x := make([]float64, 12)
	var ws Workspace
	if _, err := p.Solve(c, x, &ws); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { p.Solve(c, x, &ws) }); a > 0 {
		t.Fatalf("Solve allocates %.1f times per call with a warm workspace", a)
	}
}
