package ssvmnb

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"

	// Every method of the solver packages can be resumed from a session,
	// whatever the cell imports (run.Load finds a method by its name).
	_ "github.com/fwstruct/fwstruct/solver/kernel"
	_ "github.com/fwstruct/fwstruct/solver/soft"
)

// The methods of the solver packages are plain structs (run.Method): the
// helpers below read and compare their fields by name, as the notebook
// layer needs for every method alike (a seed per run, a cell's method
// against a stored run's), without a switch over their types.

// typedNil reports whether m is a nil pointer (or another nil value) of a
// type that implements run.Method, e.g. a nil *solver.BCFW: no method,
// though m != nil.
func typedNil(m run.Method) bool {
	if m == nil {
		return false
	}
	switch v := reflect.ValueOf(m); v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// nilText says what a typed nil is, for errors ("" for none).
func nilText(m run.Method) string {
	if !typedNil(m) {
		return ""
	}
	return fmt.Sprintf("; got a nil %T", m)
}

// lambdaOf returns the Lambda field of m (every method has one).
func lambdaOf(m run.Method) float64 {
	if f, ok := field(m, "Lambda"); ok && f.CanFloat() {
		return f.Float()
	}
	return 0
}

// withSeed returns m with its Seed field set to seed; a method without one
// (a deterministic method: FW, the cutting plane, kernel FW) is returned as
// it is.
func withSeed(m run.Method, seed uint64) run.Method {
	return withField(m, "Seed", func(f reflect.Value) bool {
		if f.Kind() != reflect.Uint64 {
			return false
		}
		f.SetUint(seed)
		return true
	})
}

// recordable returns m as run.Encode can write it: a GapEvery of +Inf
// ("never", which the methods' New accept) becomes -1, the methods' other
// spelling of never, which JSON can write.
func recordable(m run.Method) run.Method {
	return withField(m, "GapEvery", func(f reflect.Value) bool {
		if !f.CanFloat() || !math.IsInf(f.Float(), 1) {
			return false
		}
		f.SetFloat(-1)
		return true
	})
}

// withField returns a copy of m whose field called name edit changed, or m
// when it has no such field or edit changes nothing (returns false).
func withField(m run.Method, name string, edit func(reflect.Value) bool) run.Method {
	v := reflect.New(reflect.TypeOf(m)).Elem()
	v.Set(reflect.ValueOf(m))
	if v.Kind() != reflect.Struct {
		return m
	}
	if f := v.FieldByName(name); !f.IsValid() || !edit(f) {
		return m
	}
	return v.Interface().(run.Method)
}

// field returns the field called name of the struct behind m.
func field(m run.Method, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.FieldByName(name)
	return f, f.IsValid()
}

// orLambda returns m at lambda when its Lambda is zero (a method given to
// Fork or Change without one continues at the run's lambda), else m.
func orLambda(m run.Method, lambda float64) run.Method {
	if lambdaOf(m) == 0 {
		return m.WithLambda(lambda)
	}
	return m
}

// methodDiff describes how want, the method a cell asks for, differs from
// a run's, field by field, "" when it does not: a field agrees when want
// has the value of asked (the method as the run was asked for, Lambda the
// run's) or of filled (the run's method with the defaults filled in,
// run.Solver.Method), so that a zero value and the default it stands for
// compare equal.
func methodDiff(asked, filled, want run.Method) string {
	if _, ok := want.(auto.Method); ok {
		// auto asked: the run is what auto chose, compared by what was asked.
		filled = asked
	}
	if reflect.TypeOf(want) != reflect.TypeOf(filled) {
		return fmt.Sprintf("the run is %s, the cell asks for %s", methodLabel(filled), methodLabel(want))
	}
	asked, want = recordable(asked), recordable(want)
	var diffs []string
	fieldDiffs("", reflect.ValueOf(want), []reflect.Value{reflect.ValueOf(asked), reflect.ValueOf(filled)}, &diffs)
	return strings.Join(diffs, "; ")
}

// fieldDiffs appends to diffs the fields of want (at path) that agree with
// none of the values of, when they are of want's type.
func fieldDiffs(path string, want reflect.Value, of []reflect.Value, diffs *[]string) {
	var same []reflect.Value
	for _, v := range of {
		if v.IsValid() && v.Type() == want.Type() {
			same = append(same, v)
		}
	}
	if len(same) == 0 {
		return
	}
	switch want.Kind() {
	case reflect.Struct:
		for i := 0; i < want.NumField(); i++ {
			sf := want.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			name := path + sf.Name
			if sf.Anonymous {
				name = path // an embedded method (LPHard's BCFW): its fields are the method's
			} else {
				name += "."
			}
			var fields []reflect.Value
			for _, v := range same {
				fields = append(fields, v.Field(i))
			}
			fieldDiffs(name, want.Field(i), fields, diffs)
		}
		return
	case reflect.Pointer:
		var set []reflect.Value
		for _, v := range same {
			if v.IsNil() == want.IsNil() {
				if want.IsNil() {
					return
				}
				set = append(set, v.Elem())
			}
		}
		if len(set) == 0 {
			*diffs = append(*diffs, fmt.Sprintf("%s is %s, the cell asks for %s", strings.TrimSuffix(path, "."), describe(same[len(same)-1]), describe(want)))
			return
		}
		fieldDiffs(path, want.Elem(), set, diffs)
		return
	}
	for _, v := range same {
		if reflect.DeepEqual(v.Interface(), want.Interface()) {
			return
		}
	}
	*diffs = append(*diffs, fmt.Sprintf("%s is %s, the cell asks for %s", strings.TrimSuffix(path, "."), describe(same[len(same)-1]), describe(want)))
}

// describe renders a setting for messages: "none" for a nil pointer.
func describe(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "none"
		}
		return fmt.Sprintf("%+v", v.Elem().Interface())
	}
	return fmt.Sprint(v.Interface())
}

// methodLabel names a method with its settings for messages: its
// registered name, its own summary when it has one (a fmt.Stringer, as
// solver.MultiPlane), and run.Encode's JSON.
func methodLabel(m run.Method) string {
	if m == nil {
		return "no method"
	}
	name := m.Name()
	if s, ok := m.(fmt.Stringer); ok {
		name += " (" + s.String() + ")"
	}
	b, err := run.Encode(m)
	if err != nil {
		return name
	}
	return fmt.Sprintf("%s %s", name, b)
}

// sameExecution reports whether two executions are equal (nil and
// execution.Sequential{} both sequential).
func sameExecution(a, b run.Execution) bool {
	ea, err1 := execution.Encode(a)
	eb, err2 := execution.Encode(b)
	return err1 == nil && err2 == nil && string(ea) == string(eb)
}

// executionLabel says how an execution runs the block steps (Wang et al.
// 2016; package solver/execution): "sequential", "mini-batch of 4",
// "mini-batch of 2, lookahead 1", "asynchronous", "simulated, K = 8" or,
// replaying a distribution of delays, "simulated, K = 2, delays of mean
// 1.3". A mini-batch of one block without lookahead and the simulator of
// one worker are the sequential execution.
func executionLabel(x run.Execution) string {
	switch x := x.(type) {
	case execution.Async:
		return "asynchronous"
	case execution.MiniBatch:
		switch {
		case x.Lookahead > 0:
			return fmt.Sprintf("mini-batch of %d, lookahead %d", x.Batch, x.Lookahead)
		case x.Batch > 1:
			return fmt.Sprintf("mini-batch of %d", x.Batch)
		}
	case execution.Simulated:
		switch {
		case x.Delays != nil:
			return fmt.Sprintf("simulated, K = %d, delays of mean %.3g", x.Workers, x.Delays.Mean())
		case x.Workers > 1:
			return fmt.Sprintf("simulated, K = %d", x.Workers)
		}
	}
	return "sequential"
}

// simulatedWorkers returns the K of a run of the delay simulator with its
// first-in first-out delays, K-1 for every answer (a sequential run is K
// = 1), and false for the other executions (a mini-batch, asynchronous,
// the simulator replaying a distribution of delays, whose staleness K
// alone does not say).
func simulatedWorkers(x run.Execution) (int, bool) {
	switch x := x.(type) {
	case nil, execution.Sequential:
		return 1, true
	case execution.MiniBatch:
		if x.Batch <= 1 && x.Lookahead == 0 {
			return 1, true
		}
	case execution.Simulated:
		if x.Delays == nil {
			return max(1, x.Workers), true
		}
	}
	return 0, false
}
