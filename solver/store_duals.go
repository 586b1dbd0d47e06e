package solver

import "errors"

// dualStore keeps the explicit dual variables alpha_i(y) of every block
// over the corners of its corner set, and no block vector at all: the block
// gap is (1/n)(H_s - sum_c alpha_c H_c) (Osokin et al. 2016, eq. 7), from
// the corner scores, and the norms of the line searches come from the
// set's Gram matrix (Lacoste-Julien et al. 2013, App. B.5). Pairwise and
// away steps (Osokin et al. 2016, Alg. 3 and 4) need it.
type dualStore struct {
	s *Solver
}

func (b *dualStore) base(i int, scores []float64) float64 {
	set := &b.s.sets[i]
	var sum float64
	for k := range set.entries {
		sum += set.entries[k].alpha * scores[k]
	}
	return -sum / float64(b.s.n)
}

func (b *dualStore) baseAt(i int, w []float64) float64 {
	set := &b.s.sets[i]
	var sum float64
	for k := range set.entries {
		if e := &set.entries[k]; e.alpha > 0 {
			psi := set.psi(k)
			sum += e.alpha * (e.loss - psi.Dot(w))
		}
	}
	return -sum / float64(b.s.n)
}

// distSq is sigma^2 (alpha^T G alpha - 2 (G alpha)_c + G_cc).
func (b *dualStore) distSq(i int, c *corner) float64 {
	set := &b.s.sets[i]
	sigma := b.s.sigma()
	var aga, gac float64
	for a := range set.entries {
		alpha := set.entries[a].alpha
		if alpha == 0 {
			continue
		}
		gac += alpha * set.g(a, c.entry)
		for e := range set.entries {
			aga += alpha * set.entries[e].alpha * set.g(a, e)
		}
	}
	return sigma * sigma * (aga - 2*gac + set.g(c.entry, c.entry))
}

func (b *dualStore) move(i int, scale float64, a *corner, ca float64, c *corner, cc float64) {
	x := b.s.x
	if scale != 1 {
		set := &b.s.sets[i]
		f := (scale - 1) * b.s.sigma()
		for k := range set.entries {
			if alpha := set.entries[k].alpha; alpha > 0 {
				psi := set.psi(k)
				x.addSparse(&psi, f*alpha)
			}
		}
	}
	x.addSparse(&a.psi, ca)
	if c != nil {
		x.addSparse(&c.psi, cc)
	}
}

func (b *dualStore) setCorner(i int, c *corner) {
	set := &b.s.sets[i]
	for k := range set.entries {
		set.entries[k].alpha = 0
	}
	set.entries[c.entry].alpha = 1
}

func (b *dualStore) accumulate(v []float64) {
	sigma := b.s.sigma()
	n := float64(b.s.n)
	for i := range b.s.sets {
		set := &b.s.sets[i]
		var ell float64
		for k := range set.entries {
			if e := &set.entries[k]; e.alpha > 0 {
				psi := set.psi(k)
				psi.AddTo(v, sigma*e.alpha)
				ell += e.alpha * e.loss / n
			}
		}
		b.s.ellI[i] = ell
	}
}

// The masses live in the corner sets, which the solver saves.
func (b *dualStore) save(*checkpoint)          {}
func (b *dualStore) restore(*checkpoint) error { return nil }

func (b *dualStore) nonzeros() int64 {
	var m int64
	for i := range b.s.sets {
		m += int64(len(b.s.sets[i].idx))
	}
	return m
}

// scaleMass applies the FW step's alpha <- (1-gamma) alpha + gamma e_c.
func (b *dualStore) scaleMass(i int, gamma float64, c *corner) {
	set := &b.s.sets[i]
	for k := range set.entries {
		e := &set.entries[k]
		if gamma == 1 {
			e.alpha = 0
		} else {
			e.alpha *= 1 - gamma
		}
	}
	set.entries[c.entry].alpha += gamma
}

// dense returns v_i = sigma sum_c alpha_c psi_c.
func (b *dualStore) dense(i int) []float64 {
	out := make([]float64, b.s.d)
	set := &b.s.sets[i]
	for k := range set.entries {
		psi := set.psi(k)
		psi.AddTo(out, b.s.sigma()*set.entries[k].alpha)
	}
	return out
}

func (b *dualStore) rescale(rho float64) {
	for i := range b.s.sets {
		b.s.rescaleDuals(i, rho)
	}
}

func (b *dualStore) scaleAll(float64) {}

func (b *dualStore) kind() Storage { return AutoStorage }

func (b *dualStore) fill(*checkpoint, int, func(int) []float64) error {
	return errors.New("solver: fork: explicit dual variables cannot be recovered from block vectors")
}
