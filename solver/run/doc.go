// Package run is the vocabulary every fwstruct solver shares with its
// callers: when a run stops (Stop), why it stopped (Status, Result), what it
// records (Point, one exact evaluation, and the metrics of a trace such as
// PassesToGap), the settings several families have in common (Algorithm,
// Sampling, StepSize: each family's Config holds the ones that apply to it
// and refuses the others), and what every solver does (Solver).
//
// The solver families are package solver (the example-level engine: BCFW
// and its variants, batch FW, SSG, the cutting plane), solver/soft (soft
// constraints over factor graphs) and solver/kernel (kernelized BCFW and
// FW). Their traces are slices of Point, so that the same figures (package
// viz), tables and files serve all of them; the tools above them (the
// notebook layer ssvmnb, the command line) drive any of them through
// Solver.
package run
