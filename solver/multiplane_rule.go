package solver

// slopeRule is the automatic rule of Shah et al. (2015, Sec. 3.4, Fig. 3)
// that ends the approximate passes of an outer iteration of multi-plane
// BCFW. After every approximate pass B it compares the increase of the dual
// per unit of expense of B with that of the whole iteration so far, A u B
// (A: the steps of the iteration before B, its exact pass included), and
// ends the iteration when the former is smaller.
//
// With gains g and positive expenses c, g_B/c_B < (g_A+g_B)/(c_A+c_B) holds
// exactly when g_B/c_B < g_A/c_A (the slope of A u B is a weighted mean of
// the two), which is the form the authors' code tests; it is evaluated
// multiplied out, g_B c_A < g_A c_B, so that no expense is a divisor. An
// approximate pass that gained nothing (g_B <= 0) also ends the iteration:
// the next one would repeat it.
type slopeRule struct {
	D0, C0 float64 // dual and expense when the iteration began
	D1, C1 float64 // dual and expense at the end of the pass before the last
}

// begin starts an iteration at dual d and expense c.
func (r *slopeRule) begin(d, c float64) { r.D0, r.C0, r.D1, r.C1 = d, c, d, c }

// passed records the end of a pass that the iteration goes on after.
func (r *slopeRule) passed(d, c float64) { r.D1, r.C1 = d, c }

// more reports, at the end of an approximate pass at dual d and expense c,
// whether the iteration makes another approximate pass.
func (r *slopeRule) more(d, c float64) bool {
	gainB, costB := d-r.D1, c-r.C1
	gainA, costA := r.D1-r.D0, r.C1-r.C0
	if !(gainB > 0) {
		return false
	}
	return !(gainB*costA < gainA*costB)
}

// updateCost is the cost of a step's update in plane evaluations
// (UpdateCost, 1 when unset).
func (mp *mpConfig) updateCost() float64 {
	if mp.UpdateCost > 0 {
		return mp.UpdateCost
	}
	return 1
}
