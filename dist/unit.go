package dist

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
)

// A Unit is one element of work: the task that does it, a key naming it
// within its run, and the task's input. It is plain data, encoded by Beam's
// coders between the program and the workers.
type Unit struct {
	// Task is the registered name of the work ("train").
	Task string
	// Key names the unit; every unit of a run has its own.
	Key string
	// Spec is the task's input, the JSON of its spec type (TrainUnit).
	Spec []byte
}

// Output is what a unit gave: the task's result, or the error that ended it.
type Output struct {
	// Task and Key are the unit's.
	Task, Key string
	// Body is the task's result, the JSON of its result type (TrainResult);
	// nil when Err is set.
	Body []byte
	// Err is the error (or panic) that ended the unit, empty when it ran
	// through.
	Err string
}

// A task does the work of one unit on a worker: it reads the spec, does the
// work, and returns its result as JSON.
type task func(ctx context.Context, spec []byte) ([]byte, error)

// tasks maps the task names to their functions. It is filled by the init
// functions of this package, so that a worker built from the same binary
// knows every task the program can submit.
var tasks = map[string]task{}

func registerTask(name string, fn task) {
	if _, dup := tasks[name]; dup {
		panic("dist: task " + name + " registered twice")
	}
	tasks[name] = fn
}

// runUnit runs a unit's task, turning an error or a panic of the task into the
// output's Err: a unit that fails fails alone, and a runner does not retry an
// error that would come again.
func runUnit(ctx context.Context, u Unit) (out Output) {
	out = Output{Task: u.Task, Key: u.Key}
	fn, ok := tasks[u.Task]
	if !ok {
		out.Err = fmt.Sprintf("unknown task %q (known: %s)", u.Task, strings.Join(taskNames(), ", "))
		return out
	}
	defer func() {
		if r := recover(); r != nil {
			out.Body = nil
			out.Err = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	body, err := fn(ctx, u.Spec)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Body = body
	return out
}

func taskNames() []string {
	names := make([]string, 0, len(tasks))
	for name := range tasks {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// A Runner runs units and returns their outputs, one for every unit, in the
// order of the units. An error is about the run as a whole (the runner could
// not start, a worker could not write the outputs); a unit's own failure is
// its Output.Err.
type Runner interface {
	Run(ctx context.Context, units []Unit) ([]Output, error)
}

// Local runs the units in this process, one after another: the reference the
// Beam runs are compared with, and a run without Beam's start-up.
type Local struct{}

// Run runs the units in order.
func (Local) Run(ctx context.Context, units []Unit) ([]Output, error) {
	if err := checkKeys(units); err != nil {
		return nil, err
	}
	outs := make([]Output, len(units))
	for i, u := range units {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		outs[i] = runUnit(ctx, u)
	}
	return outs, nil
}

// checkKeys checks that every unit has a key of its own and a task.
func checkKeys(units []Unit) error {
	seen := make(map[string]bool, len(units))
	for i, u := range units {
		if u.Key == "" {
			return fmt.Errorf("unit %d has no key", i)
		}
		if seen[u.Key] {
			return fmt.Errorf("two units have the key %q", u.Key)
		}
		seen[u.Key] = true
		if _, ok := tasks[u.Task]; !ok {
			return fmt.Errorf("unit %q: unknown task %q (known: %s)", u.Key, u.Task, strings.Join(taskNames(), ", "))
		}
	}
	return nil
}

// order returns the outputs in the order of the units, checking that every
// unit has exactly one: a runner that lost an output or delivered one twice
// (a retried bundle counted twice) is an error, never a silent gap or a
// duplicate in the results.
func order(units []Unit, outs []Output) ([]Output, error) {
	at := make(map[string]int, len(units))
	for i, u := range units {
		at[u.Key] = i
	}
	ordered := make([]Output, len(units))
	got := make([]bool, len(units))
	var errs []error
	for _, o := range outs {
		i, ok := at[o.Key]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("an output for %q, which is no unit of the run", o.Key))
		case got[i]:
			errs = append(errs, fmt.Errorf("unit %q has two outputs", o.Key))
		default:
			ordered[i], got[i] = o, true
		}
	}
	for i, ok := range got {
		if !ok {
			errs = append(errs, fmt.Errorf("unit %q has no output", units[i].Key))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return ordered, nil
}
