package matching

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// randomWeights returns rows x cols weights: normal, a share of them
// negative, some exactly zero, some forbidden (-Inf) when forbid is set, and
// some repeated (ties).
func randomWeights(rng *rand.Rand, rows, cols int, forbid bool) []float64 {
	w := make([]float64, rows*cols)
	for e := range w {
		switch u := rng.Float64(); {
		case u < 0.05:
			w[e] = 0
		case u < 0.1 && forbid:
			w[e] = math.Inf(-1)
		case u < 0.2:
			w[e] = 1 // ties
		default:
			w[e] = rng.NormFloat64() + 0.3
		}
	}
	return w
}

// checkMatching verifies that m is a matching of the graph (every column at
// most once, in range, no forbidden or non-positive pair) and that total
// is the sum of its weights.
func checkMatching(t *testing.T, rows, cols int, w []float64, m []int32, total float64) {
	t.Helper()
	if len(m) != rows {
		t.Fatalf("matching of %d rows for %d rows", len(m), rows)
	}
	used := make([]bool, cols)
	var sum float64
	for j, k := range m {
		if k == -1 {
			continue
		}
		if k < 0 || int(k) >= cols {
			t.Fatalf("row %d matched to column %d of %d", j, k, cols)
		}
		if used[k] {
			t.Fatalf("column %d matched twice", k)
		}
		used[k] = true
		x := w[j*cols+int(k)]
		if !(x > 0) {
			t.Fatalf("pair (%d, %d) of weight %v matched", j, k, x)
		}
		sum += x
	}
	if math.Abs(sum-total) > 1e-9*math.Max(1, math.Abs(sum)) {
		t.Fatalf("total %v but the matched pairs weigh %v", total, sum)
	}
}

// bruteForce returns the weight of a maximum-weight matching by enumerating
// every matching (rows and cols at most 6 or so).
func bruteForce(rows, cols int, w []float64) float64 {
	used := make([]bool, cols)
	var rec func(j int) float64
	rec = func(j int) float64 {
		if j == rows {
			return 0
		}
		best := rec(j + 1) // row j unmatched
		for k := 0; k < cols; k++ {
			if used[k] || math.IsInf(w[j*cols+k], -1) {
				continue
			}
			used[k] = true
			best = math.Max(best, w[j*cols+k]+rec(j+1))
			used[k] = false
		}
		return best
	}
	return rec(0)
}

func TestMaxWeightBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Solver
	var dst []int32
	for trial := 0; trial < 3000; trial++ {
		rows, cols := rng.IntN(6), rng.IntN(6)
		w := randomWeights(rng, rows, cols, true)
		m, total, err := s.MaxWeight(rows, cols, w, dst)
		if err != nil {
			t.Fatal(err)
		}
		dst = m
		checkMatching(t, rows, cols, w, m, total)
		if want := bruteForce(rows, cols, w); math.Abs(total-want) > 1e-9 {
			t.Fatalf("trial %d (%dx%d): weight %v, brute force %v\nw = %v", trial, rows, cols, total, want, w)
		}
	}
}

// lpOptimum solves the LP relaxation of the matching polytope, which is
// integral (its constraint matrix is totally unimodular), with gonum's
// simplex: max sum w x s.t. every row and column sums to at most 1, x >= 0.
// Forbidden pairs are left out.
func lpOptimum(t *testing.T, rows, cols int, w []float64) float64 {
	t.Helper()
	nx := rows * cols
	nv := nx + rows + cols // pair variables, then row and column slacks
	A := mat.NewDense(rows+cols, nv, nil)
	c := make([]float64, nv)
	for j := 0; j < rows; j++ {
		for k := 0; k < cols; k++ {
			e := j*cols + k
			if !math.IsInf(w[e], -1) {
				c[e] = -w[e]
				A.Set(j, e, 1)
				A.Set(rows+k, e, 1)
			}
		}
	}
	b := make([]float64, rows+cols)
	basic := make([]int, rows+cols)
	for r := range b {
		b[r] = 1
		A.Set(r, nx+r, 1)
		basic[r] = nx + r
	}
	// A forbidden pair's column is all zeros, which Simplex refuses: give
	// it a cost that keeps it at 0 and a harmless entry.
	for e := 0; e < nx; e++ {
		if math.IsInf(w[e], -1) {
			c[e] = 1e6
			A.Set(e/cols, e, 1)
		}
	}
	f, _, err := lp.Simplex(c, A, b, 1e-10, basic)
	if err != nil {
		t.Fatalf("simplex: %v", err)
	}
	return -f
}

func TestMaxWeightLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Solver
	for trial := 0; trial < 40; trial++ {
		rows, cols := 5+rng.IntN(12), 5+rng.IntN(12)
		w := randomWeights(rng, rows, cols, true)
		m, total, err := s.MaxWeight(rows, cols, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkMatching(t, rows, cols, w, m, total)
		if want := lpOptimum(t, rows, cols, w); math.Abs(total-want) > 1e-7*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d (%dx%d): weight %v, LP %v", trial, rows, cols, total, want)
		}
	}
}

// minCostFlow returns the weight of a maximum-weight matching by successive
// shortest paths (Bellman-Ford, no potentials) in the flow network
// source -> rows -> columns -> sink with costs -w: augmenting along
// shortest paths gives a minimum-cost flow of every value, whose cost is
// convex in the value, so stopping at the first path of non-negative cost
// gives the minimum-cost flow of any value. An algorithm independent of
// the Hungarian method's potentials and of its reduction.
func minCostFlow(rows, cols int, w []float64) float64 {
	// nodes: 0 source, 1..rows, rows+1..rows+cols, sink
	n := rows + cols + 2
	src, sink := 0, n-1
	type arc struct {
		to, rev int
		cap     int
		cost    float64
	}
	g := make([][]arc, n)
	add := func(a, b int, cost float64) {
		g[a] = append(g[a], arc{to: b, rev: len(g[b]), cap: 1, cost: cost})
		g[b] = append(g[b], arc{to: a, rev: len(g[a]) - 1, cap: 0, cost: -cost})
	}
	for j := 0; j < rows; j++ {
		add(src, 1+j, 0)
		for k := 0; k < cols; k++ {
			if x := w[j*cols+k]; !math.IsInf(x, -1) {
				add(1+j, 1+rows+k, -x)
			}
		}
	}
	for k := 0; k < cols; k++ {
		add(1+rows+k, sink, 0)
	}
	var total float64
	dist := make([]float64, n)
	prevNode := make([]int, n)
	prevArc := make([]int, n)
	for {
		for v := range dist {
			dist[v] = math.Inf(1)
		}
		dist[src] = 0
		for iter := 0; iter < n; iter++ {
			changed := false
			for v := 0; v < n; v++ {
				if math.IsInf(dist[v], 1) {
					continue
				}
				for a, e := range g[v] {
					if e.cap > 0 && dist[v]+e.cost < dist[e.to]-1e-12 {
						dist[e.to] = dist[v] + e.cost
						prevNode[e.to], prevArc[e.to] = v, a
						changed = true
					}
				}
			}
			if !changed {
				break
			}
		}
		if math.IsInf(dist[sink], 1) || dist[sink] >= 0 {
			return total
		}
		total -= dist[sink]
		for v := sink; v != src; v = prevNode[v] {
			e := &g[prevNode[v]][prevArc[v]]
			e.cap--
			g[v][e.rev].cap++
		}
	}
}

func TestMaxWeightMinCostFlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s Solver
	var dst []int32
	for _, size := range [][2]int{{60, 60}, {40, 90}, {90, 40}, {1, 100}, {100, 1}, {120, 110}} {
		for trial := 0; trial < 3; trial++ {
			rows, cols := size[0], size[1]
			w := randomWeights(rng, rows, cols, trial != 1)
			m, total, err := s.MaxWeight(rows, cols, w, dst)
			if err != nil {
				t.Fatal(err)
			}
			dst = m
			checkMatching(t, rows, cols, w, m, total)
			if want := minCostFlow(rows, cols, w); math.Abs(total-want) > 1e-8*math.Max(1, math.Abs(want)) {
				t.Fatalf("%dx%d: weight %v, min-cost flow %v", rows, cols, total, want)
			}
		}
	}
}

func TestMaxWeightCases(t *testing.T) {
	ninf := math.Inf(-1)
	for _, tc := range []struct {
		name       string
		rows, cols int
		w          []float64
		want       []int32
		total      float64
	}{
		{"empty", 0, 0, nil, []int32{}, 0},
		{"no columns", 2, 0, nil, []int32{-1, -1}, 0},
		{"all negative", 2, 2, []float64{-1, -2, -3, -4}, []int32{-1, -1}, 0},
		{"zero is not taken", 1, 1, []float64{0}, []int32{-1}, 0},
		{"diagonal", 2, 2, []float64{2, 1, 1, 2}, []int32{0, 1}, 4},
		{"one big pair beats two", 2, 2, []float64{1, 5, 1, 1}, []int32{1, 0}, 6},
		{"not greedy", 2, 2, []float64{3, 2, 2, 0}, []int32{1, 0}, 4},
		{"unmatched beats a negative pair", 2, 2, []float64{5, ninf, 4, -1}, []int32{0, -1}, 5},
		{"forbidden", 2, 2, []float64{ninf, 1, ninf, 2}, []int32{-1, 1}, 2},
		{"tall", 3, 1, []float64{1, 3, 2}, []int32{-1, 0, -1}, 3},
		{"wide", 1, 3, []float64{1, 3, 2}, []int32{1}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Solver
			m, total, err := s.MaxWeight(tc.rows, tc.cols, tc.w, []int32{7, 7, 7, 7})
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != len(tc.want) || total != tc.total {
				t.Fatalf("got %v (%v), want %v (%v)", m, total, tc.want, tc.total)
			}
			for j := range m {
				if m[j] != tc.want[j] {
					t.Fatalf("got %v, want %v", m, tc.want)
				}
			}
		})
	}
}

func TestMaxWeightErrors(t *testing.T) {
	var s Solver
	for _, tc := range []struct {
		name       string
		rows, cols int
		w          []float64
		want       string
	}{
		{"size", 2, 2, []float64{1, 2, 3}, "matching: 3 weights for 2 rows and 2 columns"},
		{"negative size", -1, 2, nil, "matching: 0 weights for -1 rows and 2 columns"},
		{"NaN", 2, 2, []float64{1, 2, math.NaN(), 4}, "matching: the weight of pair (1, 0) is NaN, want finite or -Inf"},
		{"+Inf", 1, 2, []float64{1, math.Inf(1)}, "matching: the weight of pair (0, 1) is +Inf, want finite or -Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.MaxWeight(tc.rows, tc.cols, tc.w, nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMaxWeightNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	w := randomWeights(rng, 30, 25, true)
	var s Solver
	dst, _, _ := s.MaxWeight(30, 25, w, nil)
	if a := testing.AllocsPerRun(20, func() { dst, _, _ = s.MaxWeight(30, 25, w, dst) }); a > 0 {
		t.Fatalf("MaxWeight allocates %.1f times per call in steady state", a)
	}
}

// BenchmarkMaxWeight times one matching of a square random instance of the
// size of Hansards sentences (20 words: the mean of the 10,000 training
// pairs is about 18 x 19) and of larger ones.
func BenchmarkMaxWeight(b *testing.B) {
	for _, n := range []int{10, 20, 40, 100} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(9, uint64(n)))
			w := randomWeights(rng, n, n, false)
			var s Solver
			dst, _, _ := s.MaxWeight(n, n, w, nil)
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				dst, _, _ = s.MaxWeight(n, n, w, dst)
			}
		})
	}
}
