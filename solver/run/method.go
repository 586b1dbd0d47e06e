package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fwstruct/fwstruct/internal/frame"
	"github.com/fwstruct/fwstruct/oracles"
)

// A Method is one optimization algorithm with its own settings: a value of
// one of the method types of the solver packages (solver.BCFW,
// solver.MultiPlane, solver.FW, solver.SSG, solver.CuttingPlane,
// solver.OnlineEG, solver.Exact, solver.LPHard, soft.BCFW, kernel.BCFW,
// kernel.FW, kernel.Exact), each holding only the knobs that method reads,
// in the style of gonum's optimize.Method. The zero value of every field
// but Lambda is the method's default; what remains to validate is values
// (lambda > 0, a cache factor in range), which New checks.
//
// A method is plain data: Encode writes it as JSON, Decode reads it back,
// so that a model file, a checkpoint and a notebook session record the
// method that made them.
type Method interface {
	// Name is the method's registered name, as flags and files write it
	// ("bcfw", "mp-bcfw", "fw", "ssg", "cp", "online-eg", "exact",
	// "lp-hard", "soft", "kernel", "kernel-fw", "kernel-exact").
	Name() string
	// New returns a solver for the training problem p at the method's
	// starting point, wired by opts.
	New(p oracles.Problem, opts ...Option) (Solver, error)
	// WithLambda returns a copy of the method at another lambda.
	WithLambda(lambda float64) Method
}

// A Loader continues a run from a checkpoint written by a solver's Save
// (the frame and its state, whole) on the training problem p.
type Loader func(r io.Reader, p oracles.Problem, opts ...Option) (Solver, error)

// registry holds the registered methods by name.
var registry struct {
	sync.RWMutex
	methods map[string]registered
}

type registered struct {
	proto Method
	load  Loader
}

// Register makes a method known by its name to Lookup, Decode and Load,
// as database/sql.Register makes a driver known; the solver packages
// register their methods when they are imported. proto is the method's
// zero value (its defaults); load continues its checkpoints. Registering
// a name twice panics: it is a programming error.
func Register(proto Method, load Loader) {
	registry.Lock()
	defer registry.Unlock()
	if registry.methods == nil {
		registry.methods = map[string]registered{}
	}
	name := proto.Name()
	if _, dup := registry.methods[name]; dup {
		panic("run: method " + name + " registered twice")
	}
	registry.methods[name] = registered{proto, load}
}

// Methods returns the names of the registered methods, sorted.
func Methods() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.methods))
	for name := range registry.methods {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the zero value (the defaults) of the method registered as
// name, or an error listing the known names.
func Lookup(name string) (Method, error) {
	registry.RLock()
	r, ok := registry.methods[name]
	registry.RUnlock()
	if !ok {
		return nil, unknownMethod(name)
	}
	return r.proto, nil
}

func unknownMethod(name string) error {
	known := Methods()
	if len(known) == 0 {
		return fmt.Errorf("unknown method %q (no method is registered: import the solver packages)", name)
	}
	return fmt.Errorf("unknown method %q (want %s)", name, strings.Join(known, ", "))
}

// Encode returns the method as one JSON object: its settings under their
// JSON names and its name under "method", e.g.
// {"method":"bcfw","lambda":0.01,"sampling":"gap",...}.
func Encode(m Method) ([]byte, error) {
	if m == nil {
		return nil, errors.New("run: encode: no method")
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("run: encode %s: %w", m.Name(), err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("run: encode %s: %w", m.Name(), err)
	}
	if _, clash := fields["method"]; clash {
		return nil, fmt.Errorf("run: encode %s: a setting is named \"method\"", m.Name())
	}
	name, _ := json.Marshal(m.Name())
	fields["method"] = name
	return json.Marshal(fields)
}

// Decode reads a method written by Encode. The method must be registered;
// a setting it does not have is an error naming it (a file written by
// another build, or edited by hand, is refused rather than half read).
func Decode(b []byte) (Method, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("method: %w", err)
	}
	raw, ok := fields["method"]
	if !ok {
		return nil, errors.New("method: no \"method\" name")
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return nil, fmt.Errorf("method: name: %w", err)
	}
	proto, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	delete(fields, "method")
	body, _ := json.Marshal(fields)
	ptr := reflect.New(reflect.TypeOf(proto))
	ptr.Elem().Set(reflect.ValueOf(proto))
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(ptr.Interface()); err != nil {
		return nil, fmt.Errorf("method %s: %w", name, err)
	}
	return ptr.Elem().Interface().(Method), nil
}

// Load continues the run a solver's Save wrote to r, on the training
// problem p (the same data: the checkpoint's fingerprint is checked), with
// the method the checkpoint names. The wiring (test set, progress,
// workers) is not saved: opts give it again.
func Load(r io.Reader, p oracles.Problem, opts ...Option) (Solver, error) {
	var whole bytes.Buffer
	name, _, err := frame.Checkpoint.Read(io.TeeReader(r, &whole))
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	registry.RLock()
	reg, ok := registry.methods[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("load: a checkpoint of %w", unknownMethod(name))
	}
	return reg.load(&whole, p, opts...)
}

// Same reports whether two methods are equal: the same type and settings
// (a Box compared by its values).
func Same(a, b Method) bool {
	ea, err1 := Encode(a)
	eb, err2 := Encode(b)
	return err1 == nil && err2 == nil && slices.Equal(ea, eb)
}
