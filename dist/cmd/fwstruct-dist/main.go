// Command fwstruct-dist runs fwstruct's work on Apache Beam: by default on
// Beam's prism runner in this process (nothing to start), or on a Flink or
// Spark cluster through its job server, or on Dataflow.
//
// Usage:
//
//	fwstruct-dist train [flags]   train units of work, one (method, data, fold) each
//	fwstruct-dist tune [flags]    choose lambda (rho, gamma) by validation, every (value, fold) a unit
//	fwstruct-dist rounds [flags]  train BCFW data-parallel in rounds (CoCoA, CoCoA+)
//
// The units of train are a file of JSON lines (--units) or the grid of the
// flags (--method, --lambdas, --data, --folds); those of tune are the grid
// and folds of fwstruct tune's flags. The runner is --runner: prism (the
// default), flink, spark, dataflow or universal, with Beam's flags
// (--endpoint, --environment_type, --environment_config, --worker_binary,
// --project, --region, --temp_location, ...), or local (a loop in this
// process, without Beam). See docs/distributed.md.
//
// A cluster's workers run this same binary: it becomes a Beam worker when
// started with Beam's worker flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/fwstruct/fwstruct/dist"
)

func main() {
	os.Exit(cli(flag.CommandLine, os.Args[1:], os.Stdout, os.Stderr))
}

// cli runs the command line args with the flags of fs, which must be
// flag.CommandLine in a program (Beam's flags are there, and Beam reads the
// flags set there), and returns the exit status.
func cli(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	fs.SetOutput(stderr)
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	var cmd command
	switch name {
	case "train":
		cmd = &trainCmd{}
	case "tune":
		cmd = &tuneCmd{}
	case "rounds":
		cmd = &roundsCmd{}
	case "", "help":
	default:
		fmt.Fprintf(stderr, "fwstruct-dist: unknown command %q (commands: train, tune, rounds)\n", name)
		return 2
	}
	own := map[string]bool{}
	if cmd != nil {
		before := map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) { before[f.Name] = true })
		cmd.register(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !before[f.Name] {
				own[f.Name] = true
			}
		})
	}
	logLevel := fs.String("log", "warn", "the level of Beam's and prism's log on stderr: debug, info, warn or error")
	fs.Func("job_endpoint", "the same as --endpoint (the job server's host:port), as Beam's Python SDK spells it",
		func(s string) error { *jobopts.Endpoint = s; return nil })
	fs.Usage = func() { usage(fs, name, cmd, own, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := setLogLevel(*logLevel); err != nil {
		fmt.Fprintf(stderr, "fwstruct-dist: %v\n", err)
		return 2
	}
	// A worker started by a cluster runner runs this binary with Beam's
	// worker flags: Init runs the worker and exits. (A worker keeps the
	// default handling of SIGTERM, by which runners stop it.)
	beam.Init()
	// Beam leaves files in the temporary directory (at every loopback run
	// an empty stand-in for the worker binary): the run has a directory of
	// its own, removed at the end.
	if tmp, err := os.MkdirTemp("", "fwstruct-dist-"); err == nil {
		defer os.RemoveAll(tmp)
		os.Setenv("TMPDIR", tmp)
	}
	// SIGTERM (kill, a batch scheduler) is handled like SIGINT: the run is
	// canceled.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cmd == nil {
		fs.Usage()
		if name == "help" {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fwstruct-dist %s: unexpected arguments %q\n", name, fs.Args())
		return 2
	}
	r, err := runner(*runners.Runner, cmd.outputDir())
	if err == nil {
		err = cmd.run(ctx, r, *runners.Runner, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fwstruct-dist %s: %s\n", name, firstLine(err))
		return 1
	}
	return 0
}

// A command is one of fwstruct-dist's commands.
type command interface {
	// register declares the command's flags on fs.
	register(fs *flag.FlagSet)
	// summary is the paragraph of the command's usage message.
	summary() string
	// outputDir is the --output-dir given.
	outputDir() string
	// run runs the command on r, named runnerName ("" for prism).
	run(ctx context.Context, r dist.Runner, runnerName string, stdout, stderr io.Writer) error
}

// runner returns the runner named by --runner: local, or a Beam runner.
func runner(name, output string) (dist.Runner, error) {
	if name == "local" {
		if output != "" {
			return nil, errors.New("--output-dir is for Beam runners; --runner local keeps the outputs in memory")
		}
		return dist.Local{}, nil
	}
	if name != "" && !slices.Contains(dist.Runners, name) {
		return nil, fmt.Errorf("runner %q is not available (available: local, %s)", name, strings.Join(dist.Runners, ", "))
	}
	b := dist.Beam{Runner: name, Output: output}
	return b, b.Check()
}

// setLogLevel sets the level of the log Beam and prism write to stderr,
// which beam.Init sets up.
func setLogLevel(s string) error {
	switch s {
	case "debug", "info", "warn", "error":
		beamlog.LogLevel = s
		return nil
	}
	return fmt.Errorf("--log %q: want debug, info, warn or error", s)
}

// ownFlags are the flags fwstruct-dist defines; the others of the flag set
// are Beam's.
var ownFlags = map[string]bool{"log": true, "job_endpoint": true, "runner": true}

func usage(fs *flag.FlagSet, name string, cmd command, cmdFlags map[string]bool, w io.Writer) {
	if cmd == nil {
		fmt.Fprint(w, `Usage: fwstruct-dist COMMAND [flags]

Commands:
  train   train units of work, one (method, data, fold) each, on a Beam runner
  tune    choose lambda (rho, gamma) by validation as fwstruct tune does, every (value, fold) a unit
  rounds  train BCFW data-parallel: K partitions, rounds of local passes combined (CoCoA, CoCoA+)

Run "fwstruct-dist COMMAND -h" for its flags.
`)
		return
	}
	fmt.Fprint(w, "Usage: fwstruct-dist "+name+" [flags]\n\n"+cmd.summary()+"\n\nFlags:\n")
	own := flag.NewFlagSet("", flag.ContinueOnError)
	own.SetOutput(w)
	var beamFlags []string
	fs.VisitAll(func(f *flag.Flag) {
		if ownFlags[f.Name] || cmdFlags[f.Name] {
			own.Var(f.Value, f.Name, f.Usage)
			if f.Name == "runner" {
				own.Lookup("runner").Usage = "the runner: prism (in this process unless --endpoint), flink, spark, dataflow, universal, or local (a loop in this process, without Beam)"
				own.Lookup("runner").DefValue = "prism"
			}
		} else if !isWorkerFlag(f.Name) {
			beamFlags = append(beamFlags, "--"+f.Name)
		}
	})
	own.PrintDefaults()
	fmt.Fprintf(w, "\nBeam's flags, passed to the runner (see Beam's documentation):\n  %s\n", wrap(beamFlags, 100))
}

// isWorkerFlag reports whether a flag is one the cluster's boot program
// gives a worker, of no use on the command line.
func isWorkerFlag(name string) bool {
	switch name {
	case "worker", "id", "logging_endpoint", "control_endpoint", "semi_persist_dir", "options", "status_endpoint":
		return true
	}
	return strings.HasPrefix(name, "test.")
}

// wrap joins the words into lines of at most width characters.
func wrap(words []string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range words {
		if n > 0 && n+1+len(w) > width {
			b.WriteString("\n  ")
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// firstLine returns the first line of an error's message: errors are one
// line, whatever the runner's stack traces below it.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
