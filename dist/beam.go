package dist

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	// The file systems of the outputs: local paths and gs://.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"

	// The runners Runners names register themselves.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Unit)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Output)(nil)).Elem())
	register.DoFn3x0[context.Context, Unit, func(Output)](&unitFn{})
	register.Emitter1[Output]()
	register.Function1x2(encodeOutput)
}

// Runners are the Beam runners this package links: prism (the default, run
// in-process unless --endpoint names a prism job server), flink and spark
// (through their job servers, --endpoint), dataflow (Google Cloud Dataflow:
// --project, --region, --temp_location) and universal (any portable job
// server, --endpoint).
var Runners = []string{"prism", "flink", "spark", "dataflow", "universal"}

// Beam runs the units on a Beam runner: one pipeline whose elements are the
// units, reshuffled over the workers, each run by the DoFn of its task; the
// outputs are written by a worker to one file under Output and read back
// from there.
//
// The runner's settings are Beam's flags (--endpoint, --environment_type,
// --environment_config, --worker_binary, --project, --region,
// --temp_location, ...), read from the command line by flag.Parse as in
// every Beam program. Beam leaves an empty file in os.TempDir at every run
// whose workers are this process (a stand-in for the worker binary):
// fwstruct-dist gives each run a TMPDIR of its own.
type Beam struct {
	// Runner is one of Runners; empty means prism.
	Runner string
	// Output is the location (a directory, or a gs:// prefix) where the
	// workers write the outputs and this program reads them (a file of
	// its own for every run, removed once read). Empty means
	// a temporary directory of this machine, which only a runner whose
	// workers run in this process (prism in-process, or
	// --environment_type=LOOPBACK) can write; it is removed after the run.
	Output string
}

// Check reports whether the runner can be used: linked, given what it needs
// (a job server's --endpoint that answers, a location for the outputs), as
// Run checks before it builds the pipeline.
func (b Beam) Check() error {
	_, err := b.runnerName()
	return err
}

// runnerName returns the runner Run uses, or an error naming one that is not
// linked or lacks what it needs.
func (b Beam) runnerName() (string, error) {
	name := b.Runner
	if name == "" {
		name = "prism"
	}
	if !slices.Contains(Runners, name) {
		return "", fmt.Errorf("runner %q is not available (available: %s)", name, strings.Join(Runners, ", "))
	}
	switch name {
	case "flink", "spark", "universal":
		if *jobopts.Endpoint == "" {
			return "", fmt.Errorf("runner %s needs --endpoint, the address of its job server (host:port)", name)
		}
	}
	if e := *jobopts.Endpoint; e != "" && name != "dataflow" {
		// Beam waits two minutes for a job server that is not there; a
		// closed port or an unknown host is known at once.
		c, err := net.DialTimeout("tcp", e, 10*time.Second)
		if err != nil {
			return "", fmt.Errorf("runner %s: no job server at --endpoint %s: %w", name, e, err)
		}
		c.Close()
	}
	if b.Output == "" && !b.inProcess(name) {
		return "", fmt.Errorf("runner %s: the outputs need a location every worker and this program reach "+
			"(a shared directory, gs://...), or --environment_type=LOOPBACK", name)
	}
	return name, nil
}

// InProcess reports whether the runner's workers are this process (prism
// in-process, or --environment_type=LOOPBACK): then a temporary directory
// of this machine can hold what the workers and this program share.
func (b Beam) InProcess() bool {
	name := b.Runner
	if name == "" {
		name = "prism"
	}
	return b.inProcess(name)
}

// inProcess reports whether the runner's workers run in this process, so
// that a temporary directory of this machine can hold the outputs.
func (b Beam) inProcess(name string) bool {
	if jobopts.IsLoopback() {
		return true
	}
	return name == "prism" && *jobopts.Endpoint == "" && *jobopts.EnvironmentType == ""
}

// Run runs the units as one pipeline and returns their outputs in the order
// of the units.
func (b Beam) Run(ctx context.Context, units []Unit) ([]Output, error) {
	if err := checkKeys(units); err != nil {
		return nil, err
	}
	name, err := b.runnerName()
	if err != nil {
		return nil, err
	}
	if len(units) == 0 {
		return nil, nil
	}
	dir := b.Output
	if dir == "" {
		if dir, err = os.MkdirTemp("", "fwstruct-dist-"); err != nil {
			return nil, fmt.Errorf("the outputs' temporary directory: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	path, err := outputPath(dir)
	if err != nil {
		return nil, err
	}

	p, s := beam.NewPipelineWithRoot()
	col := beam.CreateList(s, units)
	// Created elements are one bundle: the reshuffle spreads them over the
	// workers.
	col = beam.Reshuffle(s, col)
	outs := beam.ParDo(s, &unitFn{}, col)
	textio.Write(s, path, beam.ParDo(s, encodeOutput, outs))
	if _, err := beam.Run(ctx, name, p); err != nil {
		return nil, fmt.Errorf("runner %s: %w", name, err)
	}
	got, err := readOutputs(ctx, path)
	if err != nil {
		return nil, err
	}
	return order(units, got)
}

// outputPath returns a file name under dir that no other run uses.
func outputPath(dir string) (string, error) {
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	return strings.TrimSuffix(dir, "/") + "/outputs-" + hex.EncodeToString(id[:]) + ".jsonl", nil
}

// unitFn is the DoFn of every task: it runs one unit.
type unitFn struct{}

// ProcessElement runs the unit's task and emits its output.
func (*unitFn) ProcessElement(ctx context.Context, u Unit, emit func(Output)) {
	emit(runUnit(ctx, u))
}

// encodeOutput writes an output as one line of JSON.
func encodeOutput(o Output) (string, error) {
	b, err := json.Marshal(o)
	return string(b), err
}

// readOutputs reads the outputs a run wrote to path, then removes the file
// (when its file system can; a file that could not be read stays).
func readOutputs(ctx context.Context, path string) (outs []Output, err error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("reading the outputs: %w", err)
	}
	defer func() {
		r.Close()
		if rm, ok := fs.(filesystem.Remover); ok && err == nil {
			rm.Remove(ctx, path)
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var o Output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, len(outs)+1, err)
		}
		outs = append(outs, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return outs, nil
}

// errUnits joins the errors of the units that failed.
func errUnits(outs []Output) error {
	var errs []error
	for _, o := range outs {
		if o.Err != "" {
			errs = append(errs, fmt.Errorf("unit %q: %s", o.Key, o.Err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d units failed: %w", len(errs), len(outs), errors.Join(errs...))
}
