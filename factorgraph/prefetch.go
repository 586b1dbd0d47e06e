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
