package solver

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// iterate holds the primal side of the dual iterate: v = A alpha (the
// untruncated weights), w = [v], its truncation to the box (Osokin et al.
// 2016, App. H; w aliases v without a box), and the weighted averages of v.
// It is the only writer of v, so that every write costs O(1) per touched
// coordinate: the box is applied and the averages are brought up to date on
// that coordinate only, never on all d of them. This keeps a block step at
// O(nnz of the step) when d is large (CoNLL: d = 1.6M).
type iterate struct {
	v, w []float64
	box  *Box
	avgs []*average
}

func newIterate(d int, box *Box) *iterate {
	x := &iterate{v: make([]float64, d), box: box}
	x.w = x.v
	if box != nil {
		x.w = make([]float64, d)
		box.clipAll(x.w, x.v)
	}
	return x
}

// add performs v_j += delta.
func (x *iterate) add(j int32, delta float64) {
	for _, a := range x.avgs {
		a.sync(j, x.v[j])
	}
	x.v[j] += delta
	if x.box != nil {
		x.w[j] = x.box.clip(int(j), x.v[j])
	}
}

// addSparse performs v += a s.
func (x *iterate) addSparse(s *oracles.SparseVec, a float64) {
	if a == 0 {
		return
	}
	val := s.Val[:len(s.Idx)]
	if len(x.avgs) == 0 && x.box == nil {
		for k, j := range s.Idx {
			x.v[j] += a * val[k]
		}
		return
	}
	for k, j := range s.Idx {
		x.add(j, a*val[k])
	}
}

// addDense performs v += a u for a dense u: O(d), so the averages are
// brought up to date on every coordinate at once (vectorized) first.
func (x *iterate) addDense(u []float64, a float64) {
	if a == 0 {
		return
	}
	for _, avg := range x.avgs {
		avg.syncAll(x.v)
	}
	floats.AddScaled(x.v, a, u)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
}

// scale performs v *= f.
func (x *iterate) scale(f float64) {
	for _, avg := range x.avgs {
		avg.syncAll(x.v)
	}
	floats.Scale(f, x.v)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
}

// set replaces v by u (re-anchoring after recomputing v from the blocks).
func (x *iterate) set(u []float64) {
	for _, a := range x.avgs {
		a.syncAll(x.v)
	}
	copy(x.v, u)
	if x.box != nil {
		x.box.clipAll(x.w, x.v)
	}
}

// fold adds the current iterate (v, ell) to every average: it ends a step.
func (x *iterate) fold(ell float64) {
	for _, a := range x.avgs {
		a.fold(ell)
	}
}

// average maintains the weighted average of the iterates with weights
// proportional to the step, xbar(K) = 2/(K(K+1)) sum_{t=1..K} t x(t)
// (Lacoste-Julien et al. 2013, Alg. 4 and App. C, eq. 14: xbar(k+1) =
// k/(k+2) xbar(k) + 2/(k+2) x(k+1)), applied to v and ell so that the
// averaged primal-dual pair stays consistent.
//
// It is lazy: S_j = sum_t t v_j(t) is stored as of the step when v_j last
// changed, and since v_j has been constant after that, the rest of the sum
// is v_j (tri(K) - tri(t_j)) with tri(k) = k(k+1)/2. Folding an iterate
// costs O(1), a write to v_j O(1), and reading the average O(d). A write to
// every coordinate at once (dense block steps, FW, SSG) syncs them all with
// one vector operation: t_j is max(at[j], full), and as long as no single
// coordinate was synced since the last full sync, every t_j equals full.
type average struct {
	s       []float64 // S_j as of step max(at[j], full)
	at      []int64   // the number of folded iterates when S_j was last brought up to date alone
	full    int64     // ... and when every S_j was
	partial bool      // some at[j] > full
	k       int64     // the number of folded iterates K
	ell     float64   // averaged ell
}

func newAverage(d int) *average {
	return &average{s: make([]float64, d), at: make([]int64, d)}
}

func tri(k int64) float64 { return float64(k) * float64(k+1) / 2 }

// since returns t_j, the step as of which S_j is up to date.
func (a *average) since(j int) int64 { return max(a.at[j], a.full) }

// sync brings S_j up to date before v_j (currently vj) changes.
func (a *average) sync(j int32, vj float64) {
	if t := a.since(int(j)); t != a.k {
		a.s[j] += vj * (tri(a.k) - tri(t))
		a.at[j] = a.k
		a.partial = true
	}
}

// syncAll brings every S_j up to date.
func (a *average) syncAll(v []float64) {
	if a.full == a.k {
		return // a partial sync at step k is a no-op after a full one
	}
	if !a.partial {
		floats.AddScaled(a.s, tri(a.k)-tri(a.full), v)
	} else {
		tk := tri(a.k)
		for j, vj := range v {
			if t := a.since(j); t != a.k {
				a.s[j] += vj * (tk - tri(t))
			}
		}
	}
	a.full, a.partial = a.k, false
}

// fold counts the current iterate as x(K+1).
func (a *average) fold(ell float64) {
	k := float64(a.k)
	a.ell = k/(k+2)*a.ell + 2/(k+2)*ell
	a.k++
}

// value writes the averaged v into dst, given the current v.
func (a *average) value(v, dst []float64) {
	if a.k == 0 {
		copy(dst, v)
		return
	}
	tk := tri(a.k)
	for j, vj := range v {
		dst[j] = (a.s[j] + vj*(tk-tri(a.since(j)))) / tk
	}
}
