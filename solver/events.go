package solver

import "strings"

// noteEvent records a change of the run (a knob changed mid-run, a fork)
// for the next trace point's Event field.
func (s *Solver) noteEvent(e string) { s.events = append(s.events, e) }

// takeEvents returns the pending events, joined, and clears them.
func (s *Solver) takeEvents() string {
	if len(s.events) == 0 {
		return ""
	}
	e := strings.Join(s.events, "; ")
	s.events = s.events[:0]
	return e
}
