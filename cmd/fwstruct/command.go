package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fwstruct/fwstruct/solver/run"
)

// flagValue returns the value of flag name on the command line args (the
// last one given: --name V, --name=V, -name V or -name=V), before it is
// parsed, "" when it is not given: the method and the files (--resume,
// --model) that choose the other flags and their defaults.
func flagValue(args []string, name string) string {
	v := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		k, val, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case k != name:
		case has:
			v = val
		case i+1 < len(args):
			v = args[i+1]
			i++
		}
	}
	return v
}

// chosenMethod returns the entry of the method of a command line: the
// checkpoint's when resuming (h non-nil; a --method given is compared with
// it later), else --method's among entries, else the first of entries.
func chosenMethod(args []string, entries []methodEntry, h *checkpointHeader) (methodEntry, error) {
	if h != nil {
		return entryOf(h.method)
	}
	name := flagValue(args, "method")
	if name == "" {
		return entries[0], nil
	}
	return methodNamed(name, entries)
}

// methodElsewhere returns the flagSet.elsewhere of a command line with
// method e: a flag of another of entries (declare declares a command
// line's flags with method o) does not apply to e; else hints says why a
// flag of another command is not here.
func methodElsewhere(e methodEntry, entries []methodEntry, declare func(f *flagSet, o methodEntry), hints map[string]string) func(string) string {
	return func(name string) string {
		var in []string
		for _, o := range entries {
			g := newFlagSet("")
			declare(g, o)
			if g.fs.Lookup(name) != nil {
				in = append(in, o.name)
			}
		}
		if len(in) > 0 {
			return fmt.Sprintf("does not apply to --method %s (a flag of --method %s)", e.name, orList(in))
		}
		return hints[name]
	}
}

// methodHelp returns the help of a command line args with method e: its
// usage, its flags under their headings, and, when args name no method,
// the methods of entries instead of e's flags.
func methodHelp(w io.Writer, usage string, f *flagSet, e methodEntry, entries []methodEntry, args []string) func() {
	named := flagValue(args, "method") != ""
	return func() {
		fmt.Fprintln(w, usage)
		f.printSections(w, func(heading string) bool { return !named && heading == "Method "+e.name })
		if named {
			return
		}
		fmt.Fprintf(w, "\nMethods (--method NAME; fwstruct %s --method NAME --help lists its flags):\n", f.fs.Name())
		for _, m := range entries {
			fmt.Fprintf(w, "  %-13s %s\n", m.name, m.summary)
		}
	}
}

// withExecutionHints adds to hints why the execution flags of train are
// not those of a command whose steps are sequential (path, tune).
func withExecutionHints(hints map[string]string) map[string]string {
	for _, name := range []string{"batch", "lookahead", "async", "simulate-workers", "simulate-delays"} {
		hints[name] = "applies to train only (the steps here are sequential; --workers runs the gap passes and evaluations in parallel)"
	}
	return hints
}

// workersAndMethod declares the Execution section of a command whose
// steps are sequential (--workers alone, bound to workers) and the
// section of method e, and returns e's method once f is parsed.
func workersAndMethod(f *flagSet, e methodEntry, workers *int) func() run.Method {
	f.section("Execution", "")
	f.Int(workers, "workers", "goroutines of the gap passes and evaluations (0: one per CPU)")
	f.check(func() error {
		return checkFlags(flagCheck{"workers", ">= 0 (0: one per CPU)", float64(*workers), *workers >= 0})
	})
	f.section("Method "+e.name, e.summary)
	return e.declare(f, nil)
}

// offeredOnly restates err, the error of chosenMethod for a command that
// offers entries only, when --method names a method of another command.
func offeredOnly(command string, args []string, entries []methodEntry, err error) error {
	name := flagValue(args, "method")
	if _, unknown := methodNamed(name, methods); unknown != nil {
		return err
	}
	names := make([]string, len(entries))
	for k, e := range entries {
		names[k] = e.name
	}
	return fmt.Errorf("--method %s: %s runs %s only", name, command, orList(names))
}
