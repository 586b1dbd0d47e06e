package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
)

const trainUsage = `Usage: fwstruct train [--method NAME] [flags]

Trains a structural SVM and prints one line per exact duality-gap evaluation.
Flags whose value 0 means something say what; other zeros are rejected.`

// trainLine is the command line of fwstruct train.
type trainLine struct {
	f        *flagSet
	entry    methodEntry
	method   func() run.Method // the method, once f is parsed and finished
	lambda   float64
	accuracy float64
	data     dataFlags
	stop     stopFlags
	exec     execFlags

	trace, model, checkpoint, every, resume string
	trainLoss, noTest, quiet                bool
	progress                                string

	// resumed, when resuming, is the checkpoint's header and state.
	resumed *checkpointHeader
	state   *bufio.Reader
}

// declareTrain declares the flags of train with method e on f: their
// defaults those of the checkpoint h when resuming (h non-nil).
func declareTrain(f *flagSet, e methodEntry, h *checkpointHeader) *trainLine {
	t := &trainLine{f: f, entry: e, lambda: 0.01, accuracy: 1, every: "5m", progress: "auto", resumed: h}
	var from run.Method
	var x run.Execution
	data, stop := freshData("auto"), run.Stop{Passes: 50}
	if h != nil {
		from, x, data = h.method, h.execution, h.Data
		stop, _ = h.Stop.stop()
		t.lambda, t.accuracy, t.trainLoss, t.noTest = lambdaOf(from), h.Accuracy(), h.TrainLoss, !h.TestLoss
	}
	name := e.name
	f.section("Method", "")
	f.String(&name, "method", "the method, by `NAME` (fwstruct train --help lists them; fwstruct train --method NAME --help its flags)")
	f.Float(&t.lambda, "lambda", "regularization parameter lambda (> 0)")
	f.check(func() error { return checkFlags(positive("lambda", t.lambda)) })
	t.data.declare(f, data, "")
	t.stop.declare(f, stop, true)
	f.section("Output", "")
	f.String(&t.trace, "trace", "write the trace (JSON array of trace points) to `FILE`")
	f.String(&t.model, "model", "write the model (JSON: the method, the data, the weights) to `FILE`")
	f.String(&t.checkpoint, "checkpoint", "write the whole state of the run to `FILE` periodically, when it ends and when it is\n"+
		"interrupted (SIGINT, SIGTERM), for --resume")
	f.String(&t.every, "checkpoint-every", "with --checkpoint: a duration (30s, 5m) or a number of passes (10)")
	f.String(&t.resume, "resume", "continue the run checkpointed in `FILE`: its method, execution and data (flags that differ are refused),\n"+
		"stopping criteria and trace settings unless given again, checkpointing to FILE unless --checkpoint says otherwise")
	if !e.noTrainLoss {
		f.Bool(&t.trainLoss, "train-loss", "record the task loss on the training set at every evaluation")
	}
	f.Bool(&t.noTest, "no-test-loss", "do not record the task loss on the test split")
	f.Bool(&t.quiet, "quiet", "print only the final summary")
	f.choice("progress", "progress bar on stderr: auto (when stderr is a terminal), on or off", []string{"auto", "on", "off"},
		func() string { return t.progress }, func(s string) error { t.progress = s; return nil })
	f.section("Execution", "")
	t.exec.declare(f, e.execs, x)
	f.section("Method "+e.name, e.summary)
	t.method = e.declare(f, from)
	if e.approx {
		f.Float(&t.accuracy, "oracle-accuracy", "run the max oracle approximately with multiplicative accuracy nu in (0, 1]\n"+
			"(oracles.WithAccuracy; gaps stay certified by the exact oracle)")
		f.check(func() error {
			return checkFlags(flagCheck{"oracle-accuracy", "in (0, 1]", t.accuracy, t.accuracy > 0 && t.accuracy <= 1})
		})
	}
	f.check(func() error {
		if f.given("checkpoint-every") && t.checkpoint == "" {
			return errors.New("--checkpoint-every needs --checkpoint FILE")
		}
		return nil
	})
	return t
}

// lambdaOf returns the lambda of a method.
func lambdaOf(m run.Method) float64 {
	var v struct {
		Lambda float64 `json:"lambda"`
	}
	if b, err := run.Encode(m); err == nil {
		_ = json.Unmarshal(b, &v)
	}
	return v.Lambda
}

// parseTrain parses the command line of train: the method (--method, or
// the checkpoint's with --resume) chooses the flags.
func parseTrain(args []string, stderr io.Writer) (*trainLine, error) {
	var h *checkpointHeader
	var state *bufio.Reader
	var closer io.Closer
	if path := flagValue(args, "resume"); path != "" {
		hdr, r, c, err := openCheckpoint(path)
		if err != nil {
			return nil, err
		}
		h, state, closer = &hdr, r, c
	}
	t, err := parseTrainWith(args, stderr, h)
	if err != nil && closer != nil {
		closer.Close()
	}
	if t != nil {
		t.state = state
	}
	return t, err
}

func parseTrainWith(args []string, stderr io.Writer, h *checkpointHeader) (*trainLine, error) {
	e, err := chosenMethod(args, methods, h)
	if err != nil {
		return nil, err
	}
	declare := func(f *flagSet, e methodEntry) *trainLine { return declareTrain(f, e, nil) }
	f := newFlagSet("train")
	t := declareTrain(f, e, h)
	f.elsewhere = methodElsewhere(e, methods, func(g *flagSet, o methodEntry) { declare(g, o) }, nil)
	f.help = methodHelp(stderr, trainUsage, f, e, methods, args)
	if err := f.parse(args); err != nil {
		return nil, err
	}
	if h != nil {
		if err := checkResumed(f, e, h); err != nil {
			return nil, err
		}
		if t.checkpoint == "" {
			t.checkpoint = t.resume // never a path stored in the file
		}
	}
	return t, nil
}

// checkResumed refuses the flags given again to a resumed run that differ
// from what the checkpoint holds (the flags' defaults are its values): the
// method and its flags, the execution (but --workers) and the data.
func checkResumed(f *flagSet, e methodEntry, h *checkpointHeader) error {
	var errs []error
	for _, s := range f.sections {
		if s.heading == "Output" || s.heading == "Stopping" {
			continue
		}
		for _, name := range s.names {
			if name == "workers" || !f.given(name) {
				continue
			}
			fl := f.fs.Lookup(name)
			if !sameValue(name, fl.Value.String(), fl.DefValue) {
				errs = append(errs, fmt.Errorf("--%s %s differs from the checkpoint's %s", name, quote(fl.Value.String()), quote(fl.DefValue)))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: a resumed run keeps the method, the execution and the data of the run it continues", errors.Join(errs...))
	}
	return nil
}

// sameValue reports whether two values of a flag mean the same: as the
// flag prints them, paths as absolute paths, and for --method the names of
// one method (recommended is bcfw).
func sameValue(name, a, b string) bool {
	switch name {
	case "method":
		ea, err1 := methodNamed(a, methods)
		eb, err2 := methodNamed(b, methods)
		return err1 == nil && err2 == nil && ea.method == eb.method
	case "data", "data-path", "test-data":
		if a == "" || b == "" || name == "data" && (dataName(a) || dataName(b)) {
			return a == b
		}
		pa, err1 := filepath.Abs(a)
		pb, err2 := filepath.Abs(b)
		return err1 == nil && err2 == nil && pa == pb
	}
	return a == b
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseTrain(args, stderr)
	if err != nil {
		return err
	}
	return t.run(ctx, stdout, stderr)
}

// run trains: it checks the outputs, loads the data, builds (or loads) the
// solver, drives it to the stopping criteria and writes the outputs, each
// even when another fails.
func (t *trainLine) run(ctx context.Context, stdout, stderr io.Writer) error {
	stop := t.stop.value()
	var ck *checkpointer
	if t.checkpoint != "" {
		ck = &checkpointer{path: t.checkpoint}
		var err error
		if ck.passes, ck.every, err = parseEvery(t.every); err != nil {
			return err
		}
	}
	if err := checkOutputs(output{"trace", t.trace}, output{"model", t.model}, output{"checkpoint", t.checkpoint}); err != nil {
		return err
	}
	spec, err := t.data.spec(t.f.givenNames())
	if err != nil {
		return err
	}
	loaded, err := spec.Load()
	if err != nil {
		return err
	}
	if err := checkNotInputs(dataInputs(loaded), output{"trace", t.trace}, output{"model", t.model}, output{"checkpoint", t.checkpoint}); err != nil {
		return err
	}
	if t.resumed != nil { // the checkpoint goes on in the file it resumes from, unless --checkpoint says otherwise
		if err := checkNotInputs([]input{{"--resume", t.resume}}, output{"trace", t.trace}, output{"model", t.model}); err != nil {
			return err
		}
	}
	train, test := loaded.Train, loaded.Test
	if test == nil {
		t.noTest = true
	}
	if linearFeatures(t.method()) {
		warnConditioning(stderr, "train", loaded, t.lambda)
	}
	if t.accuracy != 1 {
		if train, err = oracles.WithAccuracy(train, t.accuracy); err != nil {
			return fmt.Errorf("--oracle-accuracy: %w", err)
		}
	}
	if err := t.f.finish(train.Dim()); err != nil {
		return err
	}
	opts := []run.Option{run.WithWorkers(t.exec.workers), run.WithTrainLoss(t.trainLoss), run.WithLateLosses(true), run.WithExecution(t.exec.x)}
	if !t.noTest {
		opts = append(opts, run.WithTest(test))
	}
	var s run.Solver
	m := t.method().WithLambda(t.lambda)
	chosen, chosenExec := "", ""
	if am, ok := m.(auto.Method); ok && t.resumed == nil {
		c, err := auto.Choose(train, am, t.exec.workers, t.exec.x)
		if err != nil {
			return err
		}
		m, chosen = c.Method, c.String()
		if t.exec.x == nil {
			opts = append(opts, run.WithExecution(c.Execution))
		} else if c.ExecutionReason != "" {
			chosen = c.Reason + "; the execution given (" + t.exec.flag() + ")"
		}
	} else if t.resumed == nil && !t.exec.named(t.f) {
		x, why, err := auto.Execution(train, m, t.exec.workers)
		if err != nil {
			return err
		}
		if x != nil {
			opts = append(opts, run.WithExecution(x))
			chosenExec = why + " (--batch 1: sequential steps)"
		}
	}
	if t.resumed != nil {
		if s, err = run.Load(t.state, train, opts...); err != nil {
			return fmt.Errorf("--resume %s: cannot continue on %s: %w", t.resume, describeData(loaded, spec), err)
		}
		if !run.Same(s.Method(), t.resumed.method) {
			return fmt.Errorf("--resume %s: corrupt checkpoint: its header and its state describe other methods", t.resume)
		}
	} else if s, err = m.New(train, opts...); err != nil {
		if fl := t.exec.flag(); fl != "" {
			return fmt.Errorf("%s: %w", fl, err)
		}
		return err
	}
	if err := s.CheckStop(stop); err != nil {
		return stopError(err)
	}
	if ck != nil {
		ck.header = checkpointHeader{Record: model.Record{Data: spec, OracleAccuracy: t.accuracy}, Stop: recordStop(stop),
			TrainLoss: t.trainLoss, TestLoss: !t.noTest}
		ck.start(s)
	}
	printData(stdout, loaded, spec, "training without test losses")
	fmt.Fprintf(stdout, "method %s, lambda %g; execution %s\n", describeMethod(s.Method()), s.Lambda(), describeExecution(s.Execution(), train.Len()))
	if chosen != "" {
		fmt.Fprintf(stdout, "auto: %s\n", chosen)
	}
	if chosenExec != "" {
		fmt.Fprintf(stdout, "execution: %s\n", chosenExec)
	}
	if t.accuracy != 1 {
		fmt.Fprintf(stdout, "approximate oracle of accuracy nu = %g (gaps certified by the exact oracle)\n", t.accuracy)
	}
	if t.resumed != nil {
		fmt.Fprintf(stdout, "resumed from %s after %.1f passes\n", t.resume, s.Passes())
	}
	out := &traceOut{w: stdout, quiet: t.quiet, bar: newBar(t.progress, stderr, stop.Passes), shown: len(s.Trace())}
	status, runErr := drive(ctx, s, stop, out, ck)
	// Whatever happened, nothing computed is lost: the checkpoint, the
	// model and the trace are written, each even when another fails. The
	// state is saved before Current adds its observe-only point, so that a
	// resumed run follows the trajectory of an uninterrupted one.
	errs := []error{runErr}
	var ckErr *checkpointError
	if ck != nil && !errors.As(runErr, &ckErr) {
		errs = append(errs, ck.save(s))
	}
	// The summary and the trace end at the final iterate: when the last
	// trace point predates it, an observe-only evaluation is recorded.
	last, err := s.Current()
	out.show(s)
	out.bar.finish()
	if err != nil {
		errs = append(errs, fmt.Errorf("evaluating the final iterate: %w", err)) // the model records no gap then
	} else {
		printSummary(stdout, s, status, stop, last, ckErr != nil)
		printStats(stdout, s)
	}
	if t.model != "" {
		if err := saveModel(t.model, s, loaded, spec, t.accuracy, t.exec.workers); err != nil {
			errs = append(errs, fmt.Errorf("write model: %w", err))
		}
	}
	if t.trace != "" {
		if err := writeJSON(t.trace, s.Trace()); err != nil {
			errs = append(errs, fmt.Errorf("write trace: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if status == run.StatusCanceled {
		written := "outputs written"
		if ck != nil {
			written += "; continue with --resume " + ck.path
		}
		return fmt.Errorf("interrupted after %.1f passes (%s)", s.Passes(), written)
	}
	return nil
}

// printSummary prints the line that ends a run: why it stopped, after how
// many passes and how much solver time, and the final iterate's gap,
// primal and test loss (and the averaged iterate's, when the run keeps
// one).
func printSummary(w io.Writer, s run.Solver, status run.Status, stop run.Stop, last run.Point, ckFailed bool) {
	why, done := fmt.Sprintf("done (%s)", status), fmt.Sprintf("%.1f passes", s.Passes())
	switch {
	case ckFailed: // a periodic checkpoint failed: the run stopped there
		why = "stopped on the checkpoint write error"
	case status == run.StatusPasses && s.Passes() < stop.Passes-1e-9:
		// A run never exceeds its budget; with the cache (whose hits
		// are not oracle calls) it can end up to a pass early.
		next := "the next exact gap pass, which costs a pass"
		if s.Method().Name() == "online-eg" {
			next = "the next online-eg step, whose line search may cost up to 6 oracle calls"
		}
		done = fmt.Sprintf("%.2f passes (of --passes %g: %s, did not fit)", s.Passes(), stop.Passes, next)
	}
	avg := ""
	if !math.IsNaN(last.TestLossAvg) {
		avg = ", of the averaged weights " + fmtFloat(last.TestLossAvg)
	}
	evaluating := ""
	if !math.IsNaN(last.EvalSeconds) {
		evaluating = fmt.Sprintf(" (%.3f s evaluating)", last.EvalSeconds)
	}
	fmt.Fprintf(w, "%s after %s, %.3f s solver time%s: gap %s, primal %s, test loss %s%s\n",
		why, done, s.Elapsed().Seconds(), evaluating, fmtFloat(last.Gap), fmtFloat(last.Primal), fmtFloat(last.TestLoss), avg)
}

// traceOut prints the trace points of a run as they come, and moves the
// progress bar.
type traceOut struct {
	w     io.Writer
	quiet bool
	bar   *bar
	shown int // trace points printed (or, resuming, there before)
}

// show moves the bar to the passes of s and prints its new trace points.
func (o *traceOut) show(s run.Solver) {
	o.bar.set(s.Passes())
	if o.quiet {
		return
	}
	tr := s.Trace()
	if len(tr) <= o.shown {
		return
	}
	o.bar.clear()
	for _, p := range tr[o.shown:] {
		fmt.Fprintln(o.w, formatPoint(p))
	}
	o.shown = len(tr)
}

// drive runs s to stop in slices of at most barTick, showing the trace
// points and the bar after each and writing the checkpoints that fall due
// (a slice ends at a checkpoint's pass mark, leaving room for a whole gap
// pass); the trajectory is that of a single Run call. It returns why the
// run stopped. Slices are measured in time, not passes: a run that computes
// its trace points' task losses while its steps go on waits for them at the
// end of every Run call, so a slice must outlast many trace points.
func drive(ctx context.Context, s run.Solver, stop run.Stop, out *traceOut, ck *checkpointer) (run.Status, error) {
	start := time.Now()
	for {
		slice := stop
		if mark, ok := ck.mark(); ok {
			mark = max(mark, s.Passes()+1) // room for a gap pass
			if stop.Passes == 0 || mark < stop.Passes {
				slice.Passes = mark
			}
		}
		slice.Duration = barTick
		if stop.Duration > 0 {
			left := stop.Duration - time.Since(start)
			if left <= 0 {
				return run.StatusTime, nil
			}
			slice.Duration = min(slice.Duration, left)
		}
		res, err := s.Run(ctx, slice)
		out.show(s)
		if err != nil {
			return res.Status, stopError(err)
		}
		switch {
		case res.Status == run.StatusTime && (stop.Duration == 0 || time.Since(start) < stop.Duration):
		case res.Status == run.StatusPasses && slice.Passes != stop.Passes:
		default:
			return res.Status, nil
		}
		if ck.due(s) {
			if err := ck.save(s); err != nil {
				return res.Status, err
			}
		}
	}
}

// barTick is the longest slice of drive.
const barTick = 250 * time.Millisecond

// formatPoint renders a trace point as one line.
func formatPoint(p run.Point) string {
	line := fmt.Sprintf("pass %7.2f  gap %-10s primal %-10.6g dual %-10s", p.Pass, fmtFloat(p.Gap), p.Primal, fmtFloat(p.Dual))
	if !math.IsNaN(p.GapEstimate) {
		line += fmt.Sprintf(" est %-10s", fmtFloat(p.GapEstimate))
	}
	if !math.IsNaN(p.GapAvg) {
		line += fmt.Sprintf(" gap-avg %-10s", fmtFloat(p.GapAvg))
	}
	if !math.IsNaN(p.HardPrimal) {
		line += fmt.Sprintf(" hard %-10.6g", p.HardPrimal)
	}
	if !math.IsNaN(p.TrainLoss) {
		line += fmt.Sprintf(" train %.4f", p.TrainLoss)
	}
	if !math.IsNaN(p.TestLoss) {
		line += fmt.Sprintf(" test %.4f", p.TestLoss)
	}
	if !math.IsNaN(p.TestLossAvg) {
		line += fmt.Sprintf(" test-avg %.4f", p.TestLossAvg)
	}
	return line + fmt.Sprintf("  %.3fs", p.Seconds)
}

func fmtFloat(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}

// bar is a progress bar over effective passes, drawn on a terminal only.
type bar struct {
	pb    *progressbar.ProgressBar
	total float64
}

func newBar(mode string, w io.Writer, passes float64) *bar {
	on := mode == "on"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			on = true
		}
	}
	if !on || passes <= 0 {
		return &bar{}
	}
	return &bar{total: passes, pb: progressbar.NewOptions64(int64(math.Ceil(passes*100)),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("passes"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

func (b *bar) set(passes float64) {
	if b.pb != nil {
		b.pb.Set64(int64(math.Min(passes, b.total) * 100))
	}
}

func (b *bar) clear() {
	if b.pb != nil {
		b.pb.Clear()
	}
}

func (b *bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
	}
}

// stopFlags say when training stops.
type stopFlags struct {
	passes, gapTol, earlyCheck float64
	limit                      time.Duration
}

// declare declares the stopping flags under the heading Stopping, their
// defaults those of from; --time when withTime.
func (s *stopFlags) declare(f *flagSet, from run.Stop, withTime bool) {
	s.passes, s.gapTol, s.earlyCheck, s.limit = from.Passes, from.Gap, from.EarlyCheck, from.Duration
	f.section("Stopping", "")
	f.Float(&s.passes, "passes", "stop after this many effective passes in total (oracle calls / n, the exact gap passes\n"+
		"of bcfw included; a resumed run counts the passes before it); never exceeded: a gap pass that\n"+
		"does not fit ends the run up to a pass early; 0: no pass budget")
	f.Float(&s.gapTol, "gap-tol", "stop once the certified duality gap is at most this (0: off)")
	f.Float(&s.earlyCheck, "early-check", "with --gap-tol: certify the gap as soon as the stale gap estimate falls below this times\n"+
		"--gap-tol, e.g. 0.8, instead of waiting for the next scheduled gap pass (0: off)")
	if withTime {
		f.Duration(&s.limit, "time", "wall-clock budget of this command, e.g. 30s (0: none)")
	}
	f.check(func() error {
		offOr := func(name string, v float64) flagCheck {
			return flagCheck{name, "finite and >= 0 (0: off)", v, v >= 0 && !math.IsInf(v, 1)}
		}
		if err := checkFlags(offOr("passes", s.passes), offOr("gap-tol", s.gapTol), offOr("early-check", s.earlyCheck)); err != nil {
			return err
		}
		switch {
		case s.limit < 0:
			return fmt.Errorf("--time must be >= 0 (0: none), got %v", s.limit)
		case s.passes == 0 && s.gapTol == 0 && s.limit == 0:
			return fmt.Errorf("give at least one of --passes, --gap-tol or --time")
		case s.earlyCheck > 0 && s.gapTol == 0:
			return errors.New("--early-check needs --gap-tol (it certifies the gap early)")
		}
		return nil
	})
}

// value returns the stopping criteria (checked; the solver's CheckStop
// checks the rest).
func (s *stopFlags) value() run.Stop {
	return run.Stop{Passes: s.passes, Gap: s.gapTol, EarlyCheck: s.earlyCheck, Duration: s.limit}
}

// dataName reports whether s is a dataset name rather than a path.
func dataName(s string) bool { return s == "auto" || slices.Contains(datasets.Names, s) }
