package factorgraph

import "math"

// maxSum maximizes sum_alpha tab[alpha][y_alpha] exactly on a forest by
// max-sum message passing from the leaves to the roots and decoding from
// the roots down (Wainwright and Jordan 2008, Sec. 2.5.1; Viterbi on a
// chain). It writes the maximizer into best (len NumVars) and returns its
// score, recomputed from the tables.
func maxSum(g *Graph, tab []float64, ws *work, best []int32) float64 {
	ws.aux = grow(ws.aux, g.TableLen())
	bel := ws.aux
	// Upward pass: beliefs of variables (their table plus the messages of
	// their child factors) and messages of factors to their parents.
	for k := len(g.order) - 1; k >= 0; k-- {
		a := int(g.order[k])
		off := g.TableOffset(a)
		if a < g.nv {
			b := bel[off : off+g.Card(a)]
			copy(b, tab[off:off+g.Card(a)])
			for q := g.nbPtr[a]; q < g.nbPtr[a+1]; q++ {
				c := g.nbNode[q]
				if g.parent[c] != int32(a) {
					continue
				}
				msg := bel[g.tableOff[c] : int(g.tableOff[c])+len(b)]
				for y := range b {
					b[y] += msg[y]
				}
			}
			continue
		}
		pp := int(g.ppos[a])
		kp := g.Card(int(g.parent[a]))
		// The message is written over the factor's own belief slot, which
		// has room for it (States >= the parent's cardinality); it is
		// computed in full before being stored.
		ws.msg = grow(ws.msg, kp)
		out := ws.msg
		for y := range out {
			out[y] = math.Inf(-1)
		}
		st := g.Strides(a)
		sc := g.Scope(a)
		for s := 0; s < g.States(a); s++ {
			v := tab[off+s]
			for j, u := range sc {
				if j != pp {
					v += bel[int(g.tableOff[u])+(s/int(st[j]))%int(g.card[u])]
				}
			}
			if yp := (s / int(st[pp])) % kp; v > out[yp] {
				out[yp] = v
			}
		}
		copy(bel[off:off+kp], out)
	}
	// Downward pass.
	for _, a32 := range g.order {
		a := int(a32)
		if a < g.nv {
			if g.parent[a] == -1 {
				off := g.TableOffset(a)
				best[a] = int32(argmax(bel[off : off+g.Card(a)]))
			}
			continue
		}
		pp := int(g.ppos[a])
		yp := int(best[g.parent[a]])
		st := g.Strides(a)
		sc := g.Scope(a)
		off := g.TableOffset(a)
		bs, bv := -1, math.Inf(-1)
		for s := 0; s < g.States(a); s++ {
			if (s/int(st[pp]))%int(g.card[sc[pp]]) != yp {
				continue
			}
			v := tab[off+s]
			for j, u := range sc {
				if j != pp {
					v += bel[int(g.tableOff[u])+(s/int(st[j]))%int(g.card[u])]
				}
			}
			if bs < 0 || v > bv {
				bs, bv = s, v
			}
		}
		for j, u := range sc {
			if j != pp {
				best[u] = int32((bs / int(st[j])) % int(g.card[u]))
			}
		}
	}
	return scoreOf(g, tab, best)
}

// argmax returns the index of the first largest entry.
func argmax(v []float64) int {
	k := 0
	for j, x := range v {
		if x > v[k] {
			k = j
		}
	}
	return k
}
