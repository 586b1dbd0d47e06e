// Package matching computes maximum-weight bipartite matchings, the
// loss-augmented decoding of the word-alignment model of Taskar,
// Lacoste-Julien and Klein (2005) (oracles.Matching): given a weight w_jk
// for every pair of a row j (an English word) and a column k (a French
// word), find a set of pairs using every row and every column at most once
// that maximizes the sum of its weights. Rows and columns may stay
// unmatched, so pairs of non-positive weight are never worth taking.
//
// The algorithm is the Hungarian method in the shortest-augmenting-path
// form of Jonker and Volgenant (1987) (Kuhn 1955; Munkres 1957): an
// assignment of the r = min(rows, cols) rows of the smaller side to the
// columns of the larger side, extended by r "stay unmatched" columns, one
// per row, of weight 0, solved with dual potentials in O(r^2 c)
// time, where c is the size of the larger side. A Solver keeps its
// buffers between calls and allocates nothing once they are large enough.
package matching

import (
	"fmt"
	"math"
)

// Solver computes maximum-weight matchings, reusing its working memory
// between calls. The zero value is ready to use; a Solver is not safe for
// concurrent use (keep one per goroutine, e.g. in a sync.Pool).
type Solver struct {
	cost []float64 // the costs of the real columns, r x c, row-major
	u, v []float64 // dual potentials of the rows (1..r) and columns (1..c+r)
	p    []int     // p[col] = row assigned to col (0: none), 1-based
	way  []int     // the previous column on the shortest path
	minv []float64 // the shortest reduced distance to each column
	used []bool    // columns in the current search tree
	// visited lists the rows of the current search tree.
	visited []int
}

// MaxWeight returns a maximum-weight matching of the rows x cols bipartite
// graph whose pair (j, k) weighs w[j*cols+k]: dst[j] (grown as needed) is
// the column matched to row j, or -1, and total is the sum of the weights
// of the matched pairs. A weight of -Inf forbids a pair; pairs of weight
// <= 0 are never matched (leaving both ends unmatched is as good).
// Weights must otherwise be finite: NaN or +Inf is an error naming the
// pair. Among matchings of equal weight the one returned is a deterministic
// function of w.
func (s *Solver) MaxWeight(rows, cols int, w []float64, dst []int32) (match []int32, total float64, err error) {
	if rows < 0 || cols < 0 || len(w) != rows*cols {
		return dst, 0, fmt.Errorf("matching: %d weights for %d rows and %d columns", len(w), rows, cols)
	}
	for e, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 1) {
			return dst, 0, fmt.Errorf("matching: the weight of pair (%d, %d) is %v, want finite or -Inf", e/cols, e%cols, x)
		}
	}
	if cap(dst) < rows {
		dst = make([]int32, rows)
	}
	dst = dst[:rows]
	for j := range dst {
		dst[j] = -1
	}
	if rows == 0 || cols == 0 {
		return dst, 0, nil
	}
	// Assign the smaller side: r rows of the assignment, c real columns.
	transpose := rows > cols
	r, c := rows, cols
	if transpose {
		r, c = cols, rows
	}
	s.grow(r, c)
	// cost[a*c+b] = -w of the pair (a, b) of the smaller side a and the
	// larger side b; +Inf for forbidden and non-positive pairs, which the
	// unmatched column of a beats or ties. The unmatched columns (see
	// assign) cost 0 for their own row and +Inf for the others.
	for a := 0; a < r; a++ {
		row := s.cost[a*c : (a+1)*c]
		for b := 0; b < c; b++ {
			x := w[a*cols+b]
			if transpose {
				x = w[b*cols+a]
			}
			if x > 0 {
				row[b] = -x
			} else {
				row[b] = math.Inf(1)
			}
		}
	}
	s.assign(r, c)
	for b := 1; b <= c; b++ {
		a := s.p[b]
		if a == 0 {
			continue
		}
		j, k := a-1, b-1
		if transpose {
			j, k = k, j
		}
		dst[j] = int32(k)
		total += w[j*cols+k]
	}
	return dst, total, nil
}

// grow makes the buffers large enough for r rows, c real and r unmatched
// columns.
func (s *Solver) grow(r, c int) {
	n := c + r
	if cap(s.cost) < r*c {
		s.cost = make([]float64, r*c)
	}
	s.cost = s.cost[:r*c]
	if cap(s.u) < r+1 {
		s.u = make([]float64, r+1)
		s.visited = make([]int, 0, r)
	}
	s.u = s.u[:r+1]
	if cap(s.v) < n+1 {
		s.v = make([]float64, n+1)
		s.p = make([]int, n+1)
		s.way = make([]int, n+1)
		s.minv = make([]float64, n+1)
		s.used = make([]bool, n+1)
	}
	s.v, s.p, s.way, s.minv, s.used = s.v[:n+1], s.p[:n+1], s.way[:n+1], s.minv[:n+1], s.used[:n+1]
}

// assign solves the assignment of r rows to c real columns (r <= c, cost
// r x c in s.cost) and r unmatched columns, c+1..c+r, the column c+a
// costing 0 for row a and +Inf for the others, by successive shortest
// augmenting paths with potentials (the Hungarian method, Jonker and
// Volgenant 1987). Rows and columns are 1-based in u, v, p and way; column
// 0 is the virtual root of each search. Every row has a finite-cost column
// (its unmatched column), so every search ends.
//
// The unmatched columns are handled implicitly: the one of row a can only
// enter a search through a, so a search scans the c real columns and the
// unmatched columns of the rows it has visited, O(r c) per augmenting path
// step instead of O(r (c + r)).
func (s *Solver) assign(r, c int) {
	u, v, p, way, minv, used := s.u, s.v, s.p, s.way, s.minv, s.used
	for k := range u {
		u[k] = 0
	}
	for k := range v {
		v[k], p[k], way[k] = 0, 0, 0
	}
	inf := math.Inf(1)
	for i := 1; i <= r; i++ {
		p[0] = i
		j0 := 0
		for k := 0; k <= c; k++ {
			minv[k], used[k] = inf, false
		}
		visited := s.visited[:0]
		for {
			used[j0] = true
			i0 := p[j0]
			// Row i0 joins the tree: its unmatched column becomes reachable.
			visited = append(visited, i0)
			dj := c + i0
			minv[dj], used[dj] = inf, false
			delta, j1 := inf, 0
			row := s.cost[(i0-1)*c : i0*c]
			ui := u[i0]
			for j := 1; j <= c; j++ {
				if used[j] {
					continue
				}
				if cur := row[j-1] - ui - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			if cur := -ui - v[dj]; cur < minv[dj] {
				minv[dj], way[dj] = cur, j0
			}
			for _, a := range visited {
				if j := c + a; !used[j] && minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= c; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			for _, a := range visited {
				if j := c + a; used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		s.visited = visited
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
}
