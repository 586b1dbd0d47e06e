package factorgraph

// Prefetch reads the per-node data of node a of example i that the node
// methods (Reparam, NodeLoss, PsiSlots, AddPsiSlots) read: its true state,
// its loss table and its inputs, and returns a value
// derived from them for the caller to keep, so that the reads are not
// optimized away. A solver that knows its next block calls it before the
// current step: the cache misses of the next step then overlap with the
// work of this one. It changes nothing.
func (m *Model) Prefetch(i, a int) float64 {
	x := &m.ex[i]
	v := float64(x.tstate[a])
	if off := x.lossOff[a]; off >= 0 {
		v += x.loss[off]
	}
	for _, t := range x.g.Terms(a) {
		if t.Input != Const {
			// Every cache line of the input: 8 values, 16 indices a line.
			in := &x.inputs[t.Input]
			for k := 0; k < len(in.Idx); k += 8 {
				v += in.Val[k]
			}
			for k := 0; k < len(in.Idx); k += 16 {
				v += float64(in.Idx[k])
			}
		}
	}
	return v
}

// PrefetchExample reads all the per-node data of example i that the node
// methods read (true states, loss tables, inputs), as Prefetch does for
// one node, and returns a value derived from them for the caller to keep.
// A solver that visits an example's nodes one after another calls it for
// the next example while it works on the current one.
func (m *Model) PrefetchExample(i int) float64 {
	x := &m.ex[i]
	var v float64
	for k := 0; k < len(x.tstate); k += 16 {
		v += float64(x.tstate[k] + x.lossOff[k])
	}
	for k := 0; k < len(x.loss); k += 8 {
		v += x.loss[k]
	}
	for k := range x.inputs {
		in := &x.inputs[k]
		for j := 0; j < len(in.Idx); j += 8 {
			v += in.Val[j]
		}
		for j := 0; j < len(in.Idx); j += 16 {
			v += float64(in.Idx[j])
		}
	}
	return v
}
