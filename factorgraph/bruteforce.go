package factorgraph

import "math"

// enumerate maximizes sum_alpha tab[alpha][y_alpha] over every labeling of
// g by a reflected mixed-radix Gray code (Knuth, TAOCP 7.2.1.1): successive
// labelings differ in one variable by ±1, so each step updates the score by
// the change of that variable's table and of the tables of its factors,
// O(1 + N_i) per labeling instead of O(nodes). It writes the best labeling
// into best (len NumVars) and returns its score, recomputed from the tables
// so that it carries no rounding drift.
func enumerate(g *Graph, tab []float64, ws *work, best []int32) float64 {
	nv := g.NumVars()
	nf := g.NumFactors()
	ws.y = grow(ws.y, nv)
	ws.dir = grow(ws.dir, nv)
	ws.st = grow(ws.st, nf)
	y, dir, st := ws.y, ws.dir, ws.st
	var score float64
	for i := range y {
		y[i], dir[i] = 0, 1
		score += tab[g.tableOff[i]]
	}
	for c := range st {
		st[c] = 0
		score += tab[g.tableOff[nv+c]]
	}
	copy(best, y)
	bestScore := score
	for {
		i := 0
		for ; i < nv; i++ {
			if v := int32(y[i]) + int32(dir[i]); v >= 0 && v < g.card[i] {
				break
			}
			dir[i] = -dir[i]
		}
		if i == nv {
			break
		}
		d := int32(dir[i])
		off := g.tableOff[i]
		score += tab[off+y[i]+d] - tab[off+y[i]]
		y[i] += d
		lo, hi := g.nbPtr[i], g.nbPtr[i+1]
		fac, offs, strides := g.nbFac[lo:hi], g.nbOff[lo:hi], g.nbStride[lo:hi]
		offs, strides = offs[:len(fac)], strides[:len(fac)]
		for k, c := range fac {
			s := st[c]
			ns := s + d*strides[k]
			off := offs[k]
			score += tab[off+ns] - tab[off+s]
			st[c] = ns
		}
		if score > bestScore {
			bestScore = score
			copy(best, y)
		}
	}
	return scoreOf(g, tab, best)
}

// scoreOf returns sum_alpha tab[alpha][y_alpha].
func scoreOf(g *Graph, tab []float64, y []int32) float64 {
	var s float64
	for a := 0; a < g.NumNodes(); a++ {
		s += tab[g.TableOffset(a)+g.StateOf(a, y)]
	}
	return s
}

// maxLabelingsDefault bounds the enumeration of Exact by default.
const maxLabelingsDefault = 1 << 24

// enumerable reports whether g has at most limit labelings.
func enumerable(g *Graph, limit int) bool {
	return g.labelings() <= float64(limit) && !math.IsInf(g.labelings(), 0)
}
