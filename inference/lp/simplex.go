package lp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Errors returned by New and Solve.
var (
	ErrInfeasible     = errors.New("lp: the problem is infeasible")
	ErrUnbounded      = errors.New("lp: the problem is unbounded")
	ErrIterationLimit = errors.New("lp: iteration limit reached")
	ErrNotFinite      = errors.New("lp: non-finite input")
)

// Tolerances of the pivoting rules. Entries of the constraint matrix are
// expected to be of order one (the local polytope has entries 0 and ±1).
const (
	// pivotTol is the smallest tableau entry accepted as a pivot.
	pivotTol = 1e-9
	// costTol is the reduced cost below -costTol*max(1, max|c|) that makes a
	// column enter the basis.
	costTol = 1e-10
	// feasTol is the phase I objective above which the problem is
	// infeasible (relative to max(1, |b|_1)).
	feasTol = 1e-9
	// blandAfter is the number of consecutive degenerate pivots after which
	// entering columns are chosen by Bland's rule until a pivot makes
	// progress.
	blandAfter = 50
)

// Program is a linear program in standard form whose phase I is done: the
// canonical tableau of a feasible basis, to be reused by every Solve. It is
// immutable and safe for concurrent use.
type Program struct {
	m, n  int       // rows kept (redundant rows dropped), columns
	tab   []float64 // m rows of n+1 entries: B⁻¹A | B⁻¹b
	basis []int32   // basic column of each row
	rows  int       // rows of the original A
}

// New checks the program A x = b, x >= 0 (A is m x n with m <= n, b has m
// entries), finds a feasible basis by phase I (artificial variables,
// minimizing their sum) and drops the rows that are linear combinations of
// others. It returns ErrInfeasible when no x >= 0 satisfies A x = b.
func New(A mat.Matrix, b []float64) (*Program, error) {
	m, n := A.Dims()
	if len(b) != m {
		return nil, fmt.Errorf("lp: A has %d rows but b has %d entries", m, len(b))
	}
	if m == 0 || n == 0 {
		return nil, fmt.Errorf("lp: empty problem (%d x %d)", m, n)
	}
	// Phase I tableau: [A | I | b] with rows negated where b < 0, so that
	// the artificial variables (columns n..n+m-1) form a feasible basis.
	w := n + m + 1
	t := &tableau{m: m, width: w, cols: n, tab: make([]float64, m*w), basis: make([]int32, m), d: make([]float64, w)}
	for i := 0; i < m; i++ {
		if math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return nil, fmt.Errorf("%w: b[%d] = %v", ErrNotFinite, i, b[i])
		}
		sign := 1.0
		if b[i] < 0 {
			sign = -1
		}
		row := t.row(i)
		for j := 0; j < n; j++ {
			v := A.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: A[%d][%d] = %v", ErrNotFinite, i, j, v)
			}
			row[j] = sign * v
		}
		row[n+i] = 1
		row[w-1] = sign * b[i]
		t.basis[i] = int32(n + i)
	}
	// Reduced costs of the phase I objective sum_i a_i: d_j = -sum_i T[i][j]
	// for the original columns, 0 for the artificials; d[w-1] is minus the
	// objective.
	for i := 0; i < m; i++ {
		row := t.row(i)
		floats.Sub(t.d[:n], row[:n])
		t.d[w-1] -= row[w-1]
	}
	if _, err := t.run(1, 100*(m+n)+1000); err != nil {
		return nil, fmt.Errorf("lp: phase I: %w", err)
	}
	if obj := -t.d[w-1]; obj > feasTol*math.Max(1, floats.Norm(b, 1)) {
		return nil, fmt.Errorf("%w (phase I ends with infeasibility %.3g)", ErrInfeasible, obj)
	}
	// Drive the artificial variables left in the basis (at level zero) out
	// of it; a row where no original column can replace them is a linear
	// combination of the others and is dropped.
	keep := make([]bool, m)
	for i := 0; i < m; i++ {
		keep[i] = true
		if int(t.basis[i]) < n {
			continue
		}
		row := t.row(i)
		q := -1
		for j := 0; j < n; j++ {
			if math.Abs(row[j]) > pivotTol && (q < 0 || math.Abs(row[j]) > math.Abs(row[q])) {
				q = j
			}
		}
		if q < 0 {
			keep[i] = false
			continue
		}
		t.pivot(i, q)
	}
	p := &Program{n: n, rows: m}
	for i := 0; i < m; i++ {
		if !keep[i] {
			continue
		}
		row := t.row(i)
		p.tab = append(p.tab, row[:n]...)
		p.tab = append(p.tab, math.Max(0, row[w-1]))
		p.basis = append(p.basis, t.basis[i])
		p.m++
	}
	return p, nil
}

// Rows returns the number of rows of the original A and the number kept
// after dropping redundant ones.
func (p *Program) Rows() (original, kept int) { return p.rows, p.m }

// Cols returns the number of columns n.
func (p *Program) Cols() int { return p.n }

// Workspace holds the scratch storage of Solve; reuse one per goroutine to
// solve without allocating.
type Workspace struct {
	t tableau
}

// Result describes a solution found by Solve.
type Result struct {
	// Objective is cᵀx.
	Objective float64
	// Pivots is the number of phase II pivots, and Degenerate how many of
	// them did not move (a zero step: the vertex stayed the same).
	Pivots, Degenerate int
}

// Solve minimizes cᵀx over the feasible set, starting phase II from the
// basis found by New, and writes an optimal vertex into x (len(x) must be
// Cols()). ws may be nil (then Solve allocates). It returns ErrUnbounded
// when cᵀx has no lower bound and ErrIterationLimit if the pivots do not
// end (x then holds the last vertex visited).
func (p *Program) Solve(c []float64, x []float64, ws *Workspace) (Result, error) {
	if len(c) != p.n || len(x) != p.n {
		return Result{}, fmt.Errorf("lp: c and x have %d and %d entries, want %d", len(c), len(x), p.n)
	}
	if ws == nil {
		ws = new(Workspace)
	}
	t := &ws.t
	t.m, t.width, t.cols = p.m, p.n+1, p.n
	t.tab = append(t.tab[:0], p.tab...)
	t.basis = append(t.basis[:0], p.basis...)
	if cap(t.d) < t.width {
		t.d = make([]float64, t.width)
	}
	t.d = t.d[:t.width]
	// Reduced costs d = c - c_Bᵀ B⁻¹A, and d[n] = -c_Bᵀ B⁻¹b.
	scale := 1.0
	for j, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, fmt.Errorf("%w: c[%d] = %v", ErrNotFinite, j, v)
		}
		t.d[j] = v
		scale = math.Max(scale, math.Abs(v))
	}
	t.d[p.n] = 0
	for i := 0; i < p.m; i++ {
		if cb := c[t.basis[i]]; cb != 0 {
			floats.AddScaled(t.d, -cb, t.row(i))
		}
	}
	st, err := t.run(scale, 50*(p.m+p.n)+1000)
	for j := range x {
		x[j] = 0
	}
	var obj float64
	for i := 0; i < p.m; i++ {
		v := math.Max(0, t.tab[i*t.width+p.n])
		x[t.basis[i]] = v
		obj += c[t.basis[i]] * v
	}
	st.Objective = obj
	return st, err
}

// tableau is a dense simplex tableau: m rows of width entries (the last one
// the basic values), the basic column of every row and the reduced-cost row
// d (its last entry minus the objective). Only the first cols columns may
// enter the basis.
type tableau struct {
	m, width, cols int
	tab            []float64
	basis          []int32
	d              []float64
}

func (t *tableau) row(i int) []float64 { return t.tab[i*t.width : (i+1)*t.width] }

// run pivots until no reduced cost is below -costTol*scale, returning the
// pivot counts. Entering columns follow Dantzig's rule (most negative
// reduced cost) and, after blandAfter consecutive degenerate pivots, Bland's
// rule (first negative reduced cost, ties in the ratio test to the smallest
// basic index) until a pivot moves.
func (t *tableau) run(scale float64, limit int) (Result, error) {
	var st Result
	tol := costTol * scale
	rhs := t.width - 1
	stall := 0
	for {
		bland := stall >= blandAfter
		q := -1
		best := -tol
		for j, v := range t.d[:t.cols] {
			if v < best {
				q, best = j, v
				if bland {
					break
				}
			}
		}
		if q < 0 {
			return st, nil
		}
		if st.Pivots >= limit {
			return st, ErrIterationLimit
		}
		r := -1
		var ratio, piv float64
		for i := 0; i < t.m; i++ {
			a := t.tab[i*t.width+q]
			if a <= pivotTol {
				continue
			}
			v := math.Max(0, t.tab[i*t.width+rhs]) / a
			switch {
			case r < 0 || v < ratio-1e-12:
			case v <= ratio+1e-12 && bland && t.basis[i] < t.basis[r]:
			case v <= ratio+1e-12 && !bland && a > piv:
			default:
				continue
			}
			r, ratio, piv = i, v, a
		}
		if r < 0 {
			return st, ErrUnbounded
		}
		st.Pivots++
		if ratio <= 1e-12 {
			st.Degenerate++
			stall++
		} else {
			stall = 0
		}
		t.pivot(r, q)
	}
}

// pivot makes column q basic in row r.
func (t *tableau) pivot(r, q int) {
	pr := t.row(r)
	floats.Scale(1/pr[q], pr)
	pr[q] = 1
	for i := 0; i < t.m; i++ {
		if i == r {
			continue
		}
		row := t.row(i)
		if f := row[q]; f != 0 {
			floats.AddScaled(row, -f, pr)
			row[q] = 0
		}
	}
	if f := t.d[q]; f != 0 {
		floats.AddScaled(t.d, -f, pr)
		t.d[q] = 0
	}
	t.basis[r] = int32(q)
}
