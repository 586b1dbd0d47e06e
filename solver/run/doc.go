// Package run holds what every fwstruct solver shares with its callers: when
// a run stops (Stop), why it stopped (Status, Result) and what it records
// (Point, one exact evaluation, in the trace format of DESIGN.md).
//
// Package solver re-exports these types under the names users know
// (solver.Stop, solver.Status, solver.Result, solver.TracePoint), and so do
// the sibling solvers (e.g. solver/soft), so that their traces go through
// the same figures, tables and files.
package run
