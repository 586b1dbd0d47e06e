package solver

import (
	"errors"

	"github.com/fwstruct/fwstruct/oracles"
)

// classStore keeps the dual variables of a multiclass problem
// (oracles.Multiclass) as liblinear's Crammer-Singer solver does: block i
// has one corner per class k, psi_i(k) = x_i (x) (e_{y_i} - e_k), and its
// K dual variables alpha_i on the simplex give v_i = sigma x_i (x) beta_i
// with beta_i = e_{y_i} - alpha_i and sigma = 1/(lambda n). It holds n*K
// numbers where a dense block store holds n*F*K, and it is what the exact
// block step (stepExact) solves over.
type classStore struct {
	s     *Solver
	m     *oracles.Multiclass
	k     int
	alpha []float64 // n*K: alpha_i(k) at alpha[i*K+k]
	xsq   []float64 // |x_i|^2
	// With shrinking, the classes of block i still active are
	// act[i*K : i*K+nact[i]] (all K otherwise, in order).
	act  []int32
	nact []int32
	// scratch of the exact step
	h, z, sorted, delta []float64
	changed             []int32
}

func newClassStore(s *Solver, m *oracles.Multiclass) *classStore {
	K := m.NumClasses()
	b := &classStore{s: s, m: m, k: K, alpha: make([]float64, s.n*K), xsq: make([]float64, s.n),
		h: make([]float64, K), z: make([]float64, K), sorted: make([]float64, K), delta: make([]float64, K), changed: make([]int32, 0, K)}
	b.act, b.nact = make([]int32, s.n*K), make([]int32, s.n)
	b.unshrink()
	for i := 0; i < s.n; i++ {
		b.alpha[i*K+int(m.Truth(i)[0])] = 1
		x := m.Input(i)
		b.xsq[i] = x.NormSq()
	}
	return b
}

// activeClasses returns the classes block i's exact steps score.
func (b *classStore) activeClasses(i int) []int32 {
	return b.act[i*b.k : i*b.k+int(b.nact[i])]
}

// unshrink makes every class of every block active.
func (b *classStore) unshrink() {
	for i := range b.nact {
		b.nact[i] = int32(b.k)
		for k := 0; k < b.k; k++ {
			b.act[i*b.k+k] = int32(k)
		}
	}
}

// shrinkClasses removes from block i's active classes those without mass
// before and after the step d whose score H_k is below every score of a
// class with mass (liblinear's be_shrunk: at its bound and not violating);
// until the next gap pass (unshrink) they are not scored.
func (b *classStore) shrinkClasses(i int, hmin float64, d []float64) {
	alpha := b.block(i)
	act := b.activeClasses(i)
	keep := 0
	for _, k := range act {
		if alpha[k] > 0 || d[k] != 0 || b.h[k] >= hmin {
			act[keep] = k
			keep++
		}
	}
	b.nact[i] = int32(keep)
}

// block returns alpha_i (do not retain).
func (b *classStore) block(i int) []float64 { return b.alpha[i*b.k : (i+1)*b.k : (i+1)*b.k] }

func (b *classStore) truth(i int) int { return int(b.m.Truth(i)[0]) }

// label returns the class of a corner of block i from its psi, whose
// second entry (if any) is -x_f in the block of the class.
func (b *classStore) label(i int, c *corner) int {
	if c.psi.Len() == 0 {
		return b.truth(i)
	}
	j := 0
	if c.psi.Len() > 1 {
		j = 1
	}
	return int(c.psi.Idx[j]) % b.k
}

func (b *classStore) base(i int, _ []float64) float64 { return b.baseAt(i, b.s.x.w) }

// baseAt is (1/n) sum_k beta_k <w_k, x_i> - ell_i.
func (b *classStore) baseAt(i int, w []float64) float64 {
	a := b.block(i)
	yi := b.truth(i)
	x := b.m.Input(i)
	var sum float64
	for k := range a {
		beta := -a[k]
		if k == yi {
			beta++
		}
		if beta == 0 {
			continue
		}
		var sk float64
		for j, f := range x.Idx {
			sk += x.Val[j] * w[int(f)*b.k+k]
		}
		sum += beta * sk
	}
	return sum/float64(b.s.n) - b.s.ellI[i]
}

// distSq is sigma^2 |x_i|^2 |e_c - alpha_i|^2.
func (b *classStore) distSq(i int, c *corner) float64 {
	a := b.block(i)
	l := b.label(i, c)
	var d float64
	for k, v := range a {
		if k == l {
			v--
		}
		d += v * v
	}
	sigma := b.s.sigma()
	return sigma * sigma * b.xsq[i] * d
}

// move: psi_c = x (x) (e_{y_i} - e_c), so v_i <- scale v_i + ca psi_a + cb
// psi_b is alpha_i <- scale alpha_i + (1 - scale - ca' - cb') e_{y_i} +
// ca' e_a + cb' e_b with c' = c/sigma.
func (b *classStore) move(i int, scale float64, a *corner, ca float64, c *corner, cc float64) {
	alpha := b.block(i)
	sigma := b.s.sigma()
	d := b.delta
	for k := range d {
		d[k] = (scale - 1) * alpha[k]
	}
	put := func(cn *corner, coef float64) {
		if cn == nil {
			return
		}
		d[b.label(i, cn)] += coef / sigma
		d[b.truth(i)] -= coef / sigma
	}
	put(a, ca)
	put(c, cc)
	b.apply(i, d)
}

// apply sets alpha_i <- alpha_i + d and moves v (and ell_i) accordingly:
// v changes by -sigma x_i (x) d.
func (b *classStore) apply(i int, d []float64) {
	K := b.k
	alpha := b.block(i)
	ch := b.changed[:0]
	for k, v := range d {
		if v != 0 {
			ch = append(ch, int32(k))
			alpha[k] += v
		}
	}
	b.changed = ch
	if len(ch) == 0 {
		return
	}
	sigma := b.s.sigma()
	x := b.m.Input(i)
	xv := b.s.x
	if len(xv.avgs) == 0 && xv.box == nil {
		// Class by class: every entry gets the one update c d_k of the
		// feature-by-feature order, with c = -sigma x_f.
		v := xv.v
		idx, val := x.Idx, x.Val[:len(x.Idx)]
		for _, k := range ch {
			dk := d[k]
			for j, f := range idx {
				v[int(f)*K+int(k)] += (-sigma * val[j]) * dk
			}
		}
	} else {
		for j, f := range x.Idx {
			c := -sigma * x.Val[j]
			for _, k := range ch {
				xv.add(f*int32(K)+k, c*d[k])
			}
		}
	}
	b.s.setEll(i, b.s.ellI[i]-d[b.truth(i)]/float64(b.s.n)) // sum_k d_k = 0
}

// ell returns ell_i = (1/n) sum_{k != y_i} alpha_i(k).
func (b *classStore) ell(i int) float64 {
	a := b.block(i)
	yi := b.truth(i)
	var e float64
	for k, v := range a {
		if k != yi {
			e += v
		}
	}
	return e / float64(b.s.n)
}

func (b *classStore) setCorner(i int, c *corner) {
	a := b.block(i)
	clear(a)
	a[b.label(i, c)] = 1
}

func (b *classStore) accumulate(v []float64) {
	K := b.k
	sigma := b.s.sigma()
	for i := 0; i < b.s.n; i++ {
		a := b.block(i)
		yi := b.truth(i)
		x := b.m.Input(i)
		for k := range a {
			beta := -a[k]
			if k == yi {
				beta++
			}
			if beta == 0 {
				continue
			}
			for j, f := range x.Idx {
				v[int(f)*K+k] += sigma * beta * x.Val[j]
			}
		}
		b.s.ellI[i] = b.ell(i)
	}
}

func (b *classStore) save(c *checkpoint) { c.ClassAlpha = b.alpha }

func (b *classStore) restore(c *checkpoint) error {
	if err := needLen("class duals", len(c.ClassAlpha), len(b.alpha)); err != nil {
		return err
	}
	for i := 0; i < b.s.n; i++ {
		var sum float64
		for _, v := range c.ClassAlpha[i*b.k : (i+1)*b.k] {
			if !(v >= 0 && v <= 1+1e-9) {
				return errors.New("solver: load: corrupt checkpoint: class dual outside [0, 1]")
			}
			sum += v
		}
		if sum < 1-1e-6 || sum > 1+1e-6 {
			return errors.New("solver: load: corrupt checkpoint: class duals of a block do not sum to 1")
		}
	}
	copy(b.alpha, c.ClassAlpha)
	return nil
}

func (b *classStore) nonzeros() int64 { return int64(len(b.alpha)) }

func (b *classStore) dense(i int) []float64 {
	out := make([]float64, b.s.d)
	a := b.block(i)
	yi := b.truth(i)
	x := b.m.Input(i)
	sigma := b.s.sigma()
	for k := range a {
		beta := -a[k]
		if k == yi {
			beta++
		}
		for j, f := range x.Idx {
			out[int(f)*b.k+k] += sigma * beta * x.Val[j]
		}
	}
	return out
}

func (b *classStore) scaleMass(int, float64, *corner) {}

// scaleAll: the block vectors are computed from the class duals with the
// current lambda.
func (b *classStore) scaleAll(float64) {}

// rescale: alpha_i(k) := rho alpha_i(k) for k != y_i, the freed mass to
// the ground truth.
func (b *classStore) rescale(rho float64) {
	for i := 0; i < b.s.n; i++ {
		a := b.block(i)
		yi := b.truth(i)
		var rest float64
		for k := range a {
			if k != yi {
				a[k] *= rho
				rest += a[k]
			}
		}
		a[yi] = 1 - rest
	}
}

func (b *classStore) kind() Storage { return AutoStorage }

func (b *classStore) fill(*checkpoint, int, func(int) []float64) error {
	return errors.New("solver: fork: the class duals of the exact step cannot be recovered from block vectors")
}
