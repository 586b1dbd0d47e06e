// Command fwstruct trains structural SVMs with the block-coordinate
// Frank-Wolfe family and evaluates the models.
//
// Usage:
//
//	fwstruct train    [--method NAME] [flags]   train a model, print one line per gap evaluation
//	                            (--checkpoint FILE, then --resume FILE after an interruption)
//	fwstruct eval     [flags]   print the task loss of a saved model
//	fwstruct predict  [flags]   write a saved model's predictions for a file
//	fwstruct path     [--method NAME] [flags]   compute an epsilon-approximate regularization path
//	fwstruct tune     [--method NAME] [flags]   choose lambda (rho, gamma) by validation, train the final model
//	fwstruct report   [flags] TRACE.json...   draw the figures of traces
//	fwstruct download NAME      fetch a public dataset (ocr, usps) into the cache
//
// Run "fwstruct COMMAND --help" for the flags of a command, and "fwstruct
// COMMAND --method NAME --help" for those of a method. Errors are one
// line; outputs are checked before any work and written atomically; SIGINT
// and SIGTERM stop a run at its next step and write its outputs.
//
// The reference of every flag, docs/cli.md's "Flag reference", is generated
// from the flag definitions:
//
//go:generate go run . help-reference --update ../../docs/cli.md
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGTERM (kill, a batch scheduler, a container stopping) is handled
	// like SIGINT: the run stops at the next step and writes its outputs.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(execute(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// command is a subcommand of fwstruct.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"train", "train a structural SVM and write its trace and model", runTrain},
		{"eval", "print the task loss and metrics of a saved model on its test file or another file", runEval},
		{"predict", "write a saved model's predictions for a file, in the output of its task", runPredict},
		{"path", "compute an epsilon-approximate regularization path", runPath},
		{"tune", "choose lambda (rho, gamma) by cross-validation and train the final model", runTune},
		{"report", "draw the figures of traces (PNG, SVG, PDF, interactive HTML)", runReport},
		{"download", "fetch a public dataset (ocr, usps) into the user cache", runDownload},
	}
}

// hidden are the commands the usage does not list.
var hidden = []command{
	{"help-reference", "write the flag reference (Markdown)", runHelpReference},
}

// execute runs the command line args and returns the exit status: 0, 1
// for a failure, 2 for an error in the command line.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range append(commands(), hidden...) {
		if c.name != args[0] {
			continue
		}
		writeCtx = ctx
		err := c.run(ctx, args[1:], stdout, stderr)
		var ue *usageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "fwstruct %s: %s\n", c.name, errorLine(err))
			return 2
		default:
			fmt.Fprintf(stderr, "fwstruct %s: %s\n", c.name, errorLine(err))
			return 1
		}
	}
	fmt.Fprintf(stderr, "fwstruct: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "fwstruct trains structural SVMs with block-coordinate Frank-Wolfe.")
	fmt.Fprintln(w, "\nUsage: fwstruct COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'fwstruct COMMAND --help' for the flags of a command, 'fwstruct COMMAND --method NAME --help' for a method's.")
}
