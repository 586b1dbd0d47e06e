// Package dist runs fwstruct's work on Apache Beam: units of work (train one
// method on one dataset, one fold; one unit of a tuning grid, Tune) spread
// over the workers of a Beam runner,
// their results collected back in the program that submitted them. Beam's
// prism runner, linked in and run in-process, is the default: nothing to
// start, the workers are goroutines of this program. The same pipeline runs on
// a Flink or Spark cluster through their job servers, or on Dataflow, with
// Beam's usual flags (see docs/distributed.md for the recipe).
//
// The package lives in a module of its own (github.com/fwstruct/fwstruct/dist)
// so that the core module, the command line tool and the notebooks do not link
// Beam and its dependencies.
//
// # Units and tasks
//
// A Unit is plain data: the name of a task, a key unique within a run, and
// the task's input as JSON (for the train task, a TrainUnit: the method as
// run.Encode writes it, the data as a datasets.Spec, the fold).
// A task is a function from that input to its output, run on a worker by one
// DoFn for every task, which catches the task's errors and panics into the
// unit's Output instead of failing the pipeline (a unit whose data is missing
// on a worker fails alone, and the runner does not retry a deterministic
// error). A Runner runs units: Local in this process in a loop (the
// reference), Beam on a Beam runner. Both run the same task functions, so that
// a deterministic method gives the same result, bit for bit, on both.
//
// The workers keep the datasets they loaded for the next units of the same
// data (see TrainUnit.Data), so that the units of a grid load their data once
// per worker process.
//
// # Where things must live
//
// A unit names its data by a path on the worker (the spec's Options.Path,
// or $FWSTRUCT_DATA on the worker): on a cluster every worker must reach it (a
// shared filesystem, or the same files on every worker). The outputs are
// written by a worker to Beam.Output and read from there by the submitting
// program: on a cluster outside LOOPBACK, a location both reach (a shared
// directory, gs://...).
//
// The program that submits pipelines must call flag.Parse and beam.Init at
// the start of main (tests: in TestMain), as every Beam program does: a
// worker started by a cluster runs the same binary with Beam's worker flags,
// and beam.Init turns it into the worker.
package dist
