package factorgraph

// Template is the shape of a feature term: how the states of a node select
// the weights that its input multiplies. A term with input x on a node in
// state s contributes x_f at coordinate Offset + f*Slots + Slot[s] for every
// feature f, and nothing when Slot[s] = -1. Templates are shared by every
// term of the same shape; they must not be modified after use.
type Template struct {
	// InputDim is the dimension F of the input vectors (1 for the constant
	// input).
	InputDim int
	// Slots is the number of weight vectors of length InputDim.
	Slots int
	// Slot maps every joint state of the node (len(Slot) is its number of
	// states) to a slot in [0, Slots), or to -1 for no feature.
	Slot []int32
}

// OneHot returns the template that gives each of the states of a node its
// own weight vector: Slot[s] = s (the emission and transition features of a
// chain).
func OneHot(states, inputDim int) *Template {
	slot := make([]int32, states)
	for s := range slot {
		slot[s] = int32(s)
	}
	return &Template{InputDim: inputDim, Slots: states, Slot: slot}
}

// Width returns InputDim*Slots, the number of coordinates a term of this
// template spans from its Offset.
func (t *Template) Width() int { return t.InputDim * t.Slots }

// Const is the Input of a Term whose input is the constant 1 (a bias, a
// pairwise weight); its template must have InputDim 1.
const Const = -1

// Term is one feature term of a node: the template, which input vector of
// the example it multiplies (an index into Example.Inputs, or Const) and the
// first coordinate of its weights.
type Term struct {
	T      *Template
	Input  int
	Offset int
}
