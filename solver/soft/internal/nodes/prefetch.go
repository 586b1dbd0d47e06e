package nodes

import (
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Prefetch reads the model's data of node a of example i that the node
// methods (Reparam, NodePsi, PsiSlotsNorm, AddPsiSlots) read: its true
// state, its loss table, its inputs and their norms, and returns a value
// derived from them for the caller to keep, so that the reads are not
// optimized away. A solver that knows its next block calls it before the
// current step: the cache misses of the next step then overlap with the
// work of this one. It changes nothing.
func (k *Model) Prefetch(i, a int) float64 {
	x := &k.ex[i]
	v := float64(k.m.TrueState(i, a))
	if l := k.m.NodeLoss(i, a); l != nil {
		v += l[0]
	}
	inputs := k.m.Inputs(i)
	for _, t := range x.lay.g.Terms(a) {
		if t.Input != factorgraph.Const {
			v += x.inSq[t.Input] + touchInput(&inputs[t.Input])
		}
	}
	return v
}

// PrefetchExample reads all the model's data of example i that the node
// methods read (true states, loss tables, inputs), as Prefetch does for
// one node, and returns a value derived from them for the caller to keep.
// A solver that visits an example's nodes one after another calls it for
// the next example while it works on the current one.
func (k *Model) PrefetchExample(i int) float64 {
	x := &k.ex[i]
	n := x.lay.g.NumNodes()
	var v float64
	for a := 0; a < n; a += 16 { // 16 states a cache line
		v += float64(k.m.TrueState(i, a))
	}
	for a := 0; a < n; a++ {
		l := k.m.NodeLoss(i, a)
		for j := 0; j < len(l); j += 8 { // 8 values a cache line
			v += l[j]
		}
	}
	inputs := k.m.Inputs(i)
	for j, sq := range x.inSq {
		v += sq + touchInput(&inputs[j])
	}
	return v
}

// touchInput reads every cache line of an input vector: 8 values, 16
// indices a line.
func touchInput(in *oracles.SparseVec) float64 {
	var v float64
	for j := 0; j < len(in.Idx); j += 8 {
		v += in.Val[j]
	}
	for j := 0; j < len(in.Idx); j += 16 {
		v += float64(in.Idx[j])
	}
	return v
}
