package core

import "gonum.org/v1/gonum/floats"

// Average maintains the weighted average of the iterates with weights
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
type Average struct {
	S       []float64 // S_j as of step max(at[j], full)
	At      []int64   // the number of folded iterates when S_j was last brought up to date alone
	Full    int64     // ... and when every S_j was
	Partial bool      // some at[j] > full
	K       int64     // the number of folded iterates K
	Ell     float64   // averaged ell
}

// NewAverage returns the average of iterates of dimension d.
func NewAverage(d int) *Average {
	return &Average{S: make([]float64, d), At: make([]int64, d)}
}

func tri(k int64) float64 { return float64(k) * float64(k+1) / 2 }

// since returns t_j, the step as of which S_j is up to date.
func (a *Average) since(j int) int64 { return max(a.At[j], a.Full) }

// Sync brings S_j up to date before v_j (currently vj) changes.
func (a *Average) Sync(j int32, vj float64) {
	if t := a.since(int(j)); t != a.K {
		a.S[j] += vj * (tri(a.K) - tri(t))
		a.At[j] = a.K
		a.Partial = true
	}
}

// SyncAll brings every S_j up to date.
func (a *Average) SyncAll(v []float64) {
	if a.Full == a.K {
		return // a partial sync at step k is a no-op after a full one
	}
	if !a.Partial {
		floats.AddScaled(a.S, tri(a.K)-tri(a.Full), v)
	} else {
		tk := tri(a.K)
		for j, vj := range v {
			if t := a.since(j); t != a.K {
				a.S[j] += vj * (tk - tri(t))
			}
		}
	}
	a.Full, a.Partial = a.K, false
}

// Fold counts the current iterate as x(K+1).
func (a *Average) Fold(ell float64) {
	k := float64(a.K)
	a.Ell = k/(k+2)*a.Ell + 2/(k+2)*ell
	a.K++
}

// Value writes the averaged v into dst, given the current v.
func (a *Average) Value(v, dst []float64) {
	if a.K == 0 {
		copy(dst, v)
		return
	}
	tk := tri(a.K)
	for j, vj := range v {
		dst[j] = (a.S[j] + vj*(tk-tri(a.since(j)))) / tk
	}
}
