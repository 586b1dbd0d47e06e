package core

import (
	"math/bits"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Average maintains an average of the iterates x(1), ..., x(K) (the
// starting point x(0) is never part of it), applied to v and ell so that
// the averaged primal-dual pair stays consistent. Its Kind selects the
// weights (Lacoste-Julien et al. 2013, App. C):
//
//   - run.WeightedAverage: weights proportional to the step,
//     xbar(K) = 2/(K(K+1)) sum_{t=1..K} t x(t) (eq. 14; Alg. 4: xbar(k+1) =
//     k/(k+2) xbar(k) + 2/(k+2) x(k+1));
//   - run.UniformAverage: xbar(K) = 1/K sum_{t=1..K} x(t);
//   - run.SuffixAverage: the 0.5-suffix average (eq. 15) by the doubling
//     trick of Rakhlin et al. (2012) (App. F): the uniform average of the
//     iterates t = 2^m, ..., K with 2^m the largest power of 2 <= K; it
//     restarts at every K that is a power of 2.
//
// With W(k) = sum_{t<=k} weight(t) (tri(k) = k(k+1)/2, k, or k - (2^m - 1)
// within the current round), the average is S/W(K) with S_j = sum_t
// weight(t) v_j(t). It is lazy: S_j is stored as of the step when v_j last
// changed, and since v_j has been constant after that, the rest of the sum
// is v_j (W(K) - W(t_j)). Folding an iterate costs O(1) (O(d) at the
// log2(K) restarts of the suffix average), a write to v_j O(1), and reading
// the average O(d). A write to every coordinate at once (dense block steps,
// FW, SSG) syncs them all with one vector operation: t_j is max(at[j],
// full), and as long as no single coordinate was synced since the last
// full sync, every t_j equals full.
type Average struct {
	Kind    run.AverageKind
	S       []float64 // S_j as of step max(at[j], full)
	At      []int64   // the number of folded iterates when S_j was last brought up to date alone
	Full    int64     // ... and when every S_j was
	Partial bool      // some at[j] > full
	K       int64     // the number of folded iterates K
	Ell     float64   // averaged ell
}

// NewAverage returns the average of the given kind of iterates of
// dimension d.
func NewAverage(d int, kind run.AverageKind) *Average {
	return &Average{Kind: kind, S: make([]float64, d), At: make([]int64, d)}
}

func tri(k int64) float64 { return float64(k) * float64(k+1) / 2 }

// roundStart returns the number of iterates folded before the current
// round of the suffix average began: 2^m - 1 with 2^m the largest power of
// 2 <= k (0 for k = 0).
func roundStart(k int64) int64 {
	if k <= 0 {
		return 0
	}
	return 1<<(bits.Len64(uint64(k))-1) - 1
}

// cum returns W(k), the total weight of the iterates 1..k of the current
// round (k >= the round's start).
func (a *Average) cum(k int64) float64 {
	switch a.Kind {
	case run.UniformAverage:
		return float64(k)
	case run.SuffixAverage:
		return float64(k - roundStart(a.K))
	}
	return tri(k)
}

// since returns t_j, the step as of which S_j is up to date.
func (a *Average) since(j int) int64 { return max(a.At[j], a.Full) }

// Sync brings S_j up to date before v_j (currently vj) changes.
func (a *Average) Sync(j int32, vj float64) {
	if t := a.since(int(j)); t != a.K {
		a.S[j] += vj * (a.cum(a.K) - a.cum(t))
		a.At[j] = a.K
		a.Partial = true
	}
}

// SyncAt brings S_j up to date for every j of idx (repeats allowed) before
// those v_j change: Sync for each, with the weight function's case and
// W(K) decided once (a block step writes its coordinates in one call).
func (a *Average) SyncAt(idx []int32, v []float64) {
	k, full := a.K, a.Full
	synced := false
	switch a.Kind {
	case run.UniformAverage, run.SuffixAverage: // W(K) - W(t) = K - t
		for _, j := range idx {
			if t := max(a.At[j], full); t != k {
				a.S[j] += v[j] * float64(k-t)
				a.At[j], synced = k, true
			}
		}
	default:
		tk := tri(k)
		for _, j := range idx {
			if t := max(a.At[j], full); t != k {
				a.S[j] += v[j] * (tk - tri(t))
				a.At[j], synced = k, true
			}
		}
	}
	if synced {
		a.Partial = true
	}
}

// SyncAll brings every S_j up to date.
func (a *Average) SyncAll(v []float64) {
	if a.Full == a.K {
		return // a partial sync at step k is a no-op after a full one
	}
	if !a.Partial {
		floats.AddScaled(a.S, a.cum(a.K)-a.cum(a.Full), v)
	} else {
		tk := a.cum(a.K)
		for j, vj := range v {
			if t := a.since(j); t != a.K {
				a.S[j] += vj * (tk - a.cum(t))
			}
		}
	}
	a.Full, a.Partial = a.K, false
}

// Fold counts the current iterate as x(K+1). A suffix average whose K+1 is
// a power of 2 first forgets the iterates so far: x(K+1) starts a round.
func (a *Average) Fold(ell float64) {
	var m float64 // the number of iterates the average holds before this one
	switch a.Kind {
	case run.UniformAverage:
		m = float64(a.K)
	case run.SuffixAverage:
		if (a.K+1)&a.K == 0 {
			clear(a.S)
			a.Full, a.Partial = a.K, false
		}
		m = float64(a.K - roundStart(a.K+1))
	default:
		k := float64(a.K)
		a.Ell = k/(k+2)*a.Ell + 2/(k+2)*ell
		a.K++
		return
	}
	a.Ell = m/(m+1)*a.Ell + ell/(m+1)
	a.K++
}

// Value writes the averaged v into dst, given the current v.
func (a *Average) Value(v, dst []float64) {
	if a.K == 0 {
		copy(dst, v)
		return
	}
	tk := a.cum(a.K)
	for j, vj := range v {
		dst[j] = (a.S[j] + vj*(tk-a.cum(a.since(j)))) / tk
	}
}

// Consistent reports whether the counters of a restored average can be
// those of a run: every sync at or before K and, for the suffix average,
// no full sync before the current round began.
func (a *Average) Consistent() bool {
	if a.K < 0 || a.Full < 0 || a.Full > a.K {
		return false
	}
	if a.Kind == run.SuffixAverage && a.Full < roundStart(a.K) {
		return false
	}
	for _, t := range a.At {
		if t < 0 || t > a.K {
			return false
		}
	}
	return true
}
