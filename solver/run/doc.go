// Package run is the vocabulary every fwstruct solver shares with its
// callers: when a run stops (Stop), why it stopped (Status, Result), what it
// records (Point, one exact evaluation, and the metrics of a trace such as
// PassesToGap), the settings several families have in common (Algorithm,
// Sampling, StepSize: each family's Config holds the ones that apply to it
// and refuses the others), and what every solver does (Solver).
//
// # Layers
//
// fwstruct is built in layers, each knowing only the ones below it: the
// models (package oracles and package factorgraph), the inference
// algorithms they call (inference/...), the solvers, the data readers
// (datasets), and the presentation layer. The solvers are three families,
// package solver (the example-level engine: BCFW and its variants, batch
// FW, SSG, the cutting plane), solver/soft (soft constraints over factor
// graphs) and solver/kernel (kernelized BCFW and FW), over this package and
// their shared internal machinery (solver/internal/core: the one loop, the
// samplers, the averages). The presentation layer (ssvmnb for notebooks,
// cmd/fwstruct) builds a family's solver and drives it through Solver; the
// traces of every family are slices of Point, so that the same figures
// (package viz, which depends on this package and on no family), tables
// and files serve all of them. Package runtest checks that a family keeps
// the contract of Solver.
package run
