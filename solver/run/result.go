package run

// Result says why a solver's Run returned and what its trace holds.
type Result struct {
	// Status is why Run returned.
	Status Status
	// Last is the last trace point (the zero value before the first).
	Last Point
	// Current reports whether Last describes the iterate Run stopped at.
	// When it does not (a pass budget ended between two gap passes), call
	// Solver.Current for an exact evaluation of the final iterate.
	Current bool
}
