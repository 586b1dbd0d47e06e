package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct train [flags]\n\nTrains a structural SVM and prints one line per exact duality-gap evaluation.\n"+
			"Flags whose value 0 means something say what; other zeros are rejected.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "auto")
	var sf solverFlags
	sf.register(fs)
	var sp stopFlags
	sp.register(fs)
	var kf kernelFlags
	kf.register(fs)
	tracePath := fs.String("trace", "", "write the trace (JSON array of trace points) to `FILE`")
	modelPath := fs.String("model", "", "write the model weights (JSON) to `FILE`")
	ckPath := fs.String("checkpoint", "", "write the whole state of the run to `FILE` periodically, when it ends and when it is\n"+
		"interrupted (SIGINT, SIGTERM), for --resume")
	ckEvery := fs.String("checkpoint-every", "5m", "with --checkpoint: a duration (30s, 5m) or a number of passes (10)")
	resume := fs.String("resume", "", "continue the run checkpointed in `FILE` (same data and solver flags; --passes, --gap-tol, --time,\n"+
		"the outputs and --workers may change), checkpointing to it unless --checkpoint says otherwise")
	trainLoss := fs.Bool("train-loss", false, "record the task loss on the training set at every evaluation")
	noTest := fs.Bool("no-test-loss", false, "do not record the task loss on the test split")
	quiet := fs.Bool("quiet", false, "print only the final summary")
	bar := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), on or off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := givenFlags(fs) // on the command line, not those a checkpoint records
	var state *bufio.Reader
	if *resume != "" {
		h, r, f, err := openCheckpoint(*resume)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := resumeFlags(fs, h.Flags); err != nil {
			return err
		}
		if *ckPath == "" {
			*ckPath = *resume
		}
		state = r
	}
	if err := checkRun("train", given, &data, &sf, kf.kind, func(u *runUse) {
		u.gapTol, u.checkpoint = sp.gapTol > 0, *ckPath != ""
	}); err != nil {
		return err
	}
	stop, err := sp.stop()
	if err != nil {
		return err
	}
	if *bar != "auto" && *bar != "on" && *bar != "off" {
		return fmt.Errorf("--progress: want auto, on or off, got %s", quote(*bar))
	}
	if *ckPath == "" && flagSet(fs, "checkpoint-every") {
		return errors.New("--checkpoint-every needs --checkpoint FILE")
	}
	var ck *checkpointer
	if *ckPath != "" {
		ck = &checkpointer{path: *ckPath}
		if ck.passes, ck.every, err = parseEvery(*ckEvery); err != nil {
			return err
		}
	}
	if err := checkOutputs(output{"trace", *tracePath}, output{"model", *modelPath}, output{"checkpoint", *ckPath}); err != nil {
		return err
	}
	if kf.enabled() {
		if ck != nil {
			return errors.New("--checkpoint and --resume are not available with --kernel")
		}
		return trainKernel(ctx, stdout, stderr, &data, &sf, &kf, stop, trainOptions{tracePath: *tracePath, modelPath: *modelPath,
			bar: *bar, trainLoss: *trainLoss, noTest: *noTest, quiet: *quiet, flags: fs})
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	train, test := loaded.Train, loaded.Test
	warnConditioning(stderr, "train", loaded, sf.lambda)
	dataOpts, err := data.resolved(fs, name)
	if err != nil {
		return err
	}
	trainFingerprint := fingerprint(train, sf.workers) // of the data, not of an approximate oracle's wrapper
	if sf.accuracy != 1 {
		if train, err = oracles.WithAccuracy(train, sf.accuracy); err != nil {
			return fmt.Errorf("--oracle-accuracy: %w", err)
		}
	}
	pb := newBar(*bar, stderr, stop.Passes)
	wire := trainWiring{trainLoss: *trainLoss, workers: sf.workers, progress: func(pt solverrun.Point) {
		if *quiet {
			return
		}
		pb.clear()
		fmt.Fprintln(stdout, formatPoint(pt))
	}}
	if !*noTest {
		wire.test = test
	}
	var s trainer
	var desc string
	if state != nil {
		if s, desc, err = loadTrainer(&sf, state, train, wire); err != nil {
			return fmt.Errorf("--resume %s: cannot continue on %s: %w", *resume, describeData(name, data.split), err)
		}
	} else if s, desc, err = newTrainer(&sf, train, wire); err != nil {
		return err
	}
	if cs, ok := s.(interface{ CheckStop(solverrun.Stop) error }); ok {
		if err := cs.CheckStop(stop); err != nil {
			return stopError(err)
		}
	}
	if ck != nil {
		if ck.header.Flags, err = checkpointFlags(fs, dataOpts); err != nil {
			return err
		}
		ck.start(s)
	}
	fmt.Fprintf(stdout, "data %s: %d training and %d test examples%s, d = %d\n", describeData(name, data.split), train.Len(), test.Len(), unseenNote(test), train.Dim())
	fmt.Fprintln(stdout, desc)
	if sf.accuracy != 1 {
		fmt.Fprintf(stdout, "approximate oracle of accuracy nu = %g (gaps certified by the exact oracle)\n", sf.accuracy)
	}
	if state != nil {
		fmt.Fprintf(stdout, "resumed from %s after %.1f passes\n", *resume, s.Passes())
	}
	status, runErr := runWithBar(ctx, s, stop, pb, ck)
	pb.finish()
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
	if err != nil {
		errs = append(errs, fmt.Errorf("evaluating the final iterate: %w", err))
		last = solverrun.Point{Gap: math.NaN(), Primal: math.NaN(), TestLoss: math.NaN()}
	} else {
		why, done := fmt.Sprintf("done (%s)", status), fmt.Sprintf("%.1f passes", s.Passes())
		switch {
		case ckErr != nil: // a periodic checkpoint failed: the run stopped there
			why = "stopped on the checkpoint write error"
		case status == solverrun.StatusPasses && s.Passes() < stop.Passes-1e-9:
			// A run never exceeds its budget; with the cache (whose hits
			// are not oracle calls) it can end up to a pass early.
			next := "the next exact gap pass, which costs a pass"
			if sf.algorithm == "online-eg" {
				next = "the next online-eg step, whose line search may cost up to 6 oracle calls"
			}
			done = fmt.Sprintf("%.2f passes (of --passes %g: %s, did not fit)", s.Passes(), stop.Passes, next)
		}
		fmt.Fprintf(stdout, "%s after %s, %.3f s solver time: gap %s, primal %s, test loss %s\n",
			why, done, s.Elapsed().Seconds(), fmtFloat(last.Gap), fmtFloat(last.Primal), fmtFloat(last.TestLoss))
		printDelays(stdout, s)
	}
	if *modelPath != "" {
		m := &modelFile{
			Data: name, DataOptions: dataOpts, TrainFingerprint: trainFingerprint,
			Dim: train.Dim(), Lambda: sf.lambda, Solver: sf.algorithm,
			Passes: s.Passes(), Gap: finiteOrNil(last.Gap), Weights: s.Weights(), AverageWeights: averageWeights(s),
			Scaler: loaded.Scaler,
		}
		if sf.algorithm == "soft" {
			m.Rho = sf.rho
		}
		if err := writeModel(*modelPath, m); err != nil {
			errs = append(errs, fmt.Errorf("write model: %w", err))
		}
	}
	if *tracePath != "" {
		if err := writeJSON(*tracePath, s.Trace()); err != nil {
			errs = append(errs, fmt.Errorf("write trace: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if status == solverrun.StatusCanceled {
		written := "outputs written"
		if ck != nil {
			written += "; continue with --resume " + ck.path
		}
		return fmt.Errorf("interrupted after %.1f passes (%s)", s.Passes(), written)
	}
	return nil
}

// runToEnd runs the solver with the bar and returns why it stopped and an
// evaluation of the final iterate: the summary and the trace end there
// (when the last trace point predates it, an observe-only evaluation is
// recorded).
func runToEnd(ctx context.Context, s solverrun.Solver, stop solverrun.Stop, pb *bar) (solverrun.Status, solverrun.Point, error) {
	status, err := runWithBar(ctx, s, stop, pb, nil)
	pb.finish()
	if err != nil {
		return status, solverrun.Point{}, err
	}
	last, err := s.Current()
	return status, last, err
}

// runWithBar runs the solver in chunks of about barTick so that the bar
// moves and checkpoints fall due (a chunk ends at a checkpoint's pass mark,
// leaving room for a whole gap pass); the trajectory is the same as in a
// single Run call. Chunks are measured in time, not passes: a run that
// computes its trace points' task losses while its steps go on waits for
// them at the end of every Run call, so a chunk must outlast many trace
// points.
func runWithBar(ctx context.Context, s solverrun.Solver, stop solverrun.Stop, pb *bar, ck *checkpointer) (solverrun.Status, error) {
	start := time.Now()
	for {
		chunk := stop
		if mark, ok := ck.mark(); ok {
			mark = max(mark, s.Passes()+1) // room for a gap pass
			if stop.Passes == 0 || mark < stop.Passes {
				chunk.Passes = mark
			}
		}
		chunk.Duration = barTick
		if stop.Duration > 0 {
			left := stop.Duration - time.Since(start)
			if left <= 0 {
				return solverrun.StatusTime, nil
			}
			chunk.Duration = min(chunk.Duration, left)
		}
		res, err := s.Run(ctx, chunk)
		if err != nil {
			return res.Status, stopError(err)
		}
		pb.set(s.Passes())
		switch {
		case res.Status == solverrun.StatusTime && (stop.Duration == 0 || time.Since(start) < stop.Duration):
		case res.Status == solverrun.StatusPasses && chunk.Passes != stop.Passes:
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

// barTick is the length of a chunk of runWithBar.
const barTick = 250 * time.Millisecond

// fingerprint returns the fingerprint of p as models record it, computed
// on workers goroutines (0: one per CPU).
func fingerprint(p oracles.Problem, workers int) string {
	return oracles.FingerprintOf(p, workers).String()
}

// checkFingerprint returns nil when p is the training problem whose
// fingerprint a model recorded, else an error naming what differs. Older
// models recorded a bare hex hash of n, d and the labels, compared as such.
func checkFingerprint(recorded string, p oracles.Problem) error {
	want, full, err := oracles.ParseFingerprint(recorded)
	if err != nil {
		return err
	}
	got := oracles.FingerprintOf(p, 0)
	if !full {
		if want.Labels != got.Labels {
			return errors.New("other examples or labels")
		}
		return nil
	}
	if err := want.Check(got); err != nil {
		return fmt.Errorf("it now has %w", err)
	}
	return nil
}

func describeData(name, split string) string {
	if name == "ocr" {
		return "ocr-" + split
	}
	return name
}

// formatPoint renders a trace point as one line.
func formatPoint(p solverrun.Point) string {
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

// printDelays says how stale the steps of a mini-batch, an asynchronous run
// or the delay simulator were (solver.Solver.Delays), in the form
// --simulate-delays takes, so that the simulator can replay a real run's
// staleness at other worker counts.
func printDelays(w io.Writer, s solverrun.Solver) {
	bs, ok := s.(*solver.Solver)
	if !ok {
		return
	}
	dd := bs.Delays()
	if dd == nil {
		return
	}
	weights := make([]string, len(dd.Weights))
	for d, v := range dd.Weights {
		weights[d] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	fmt.Fprintf(w, "steps applied %.3g steps after the iterate they read, on average (--simulate-delays %s)\n", dd.Mean(), strings.Join(weights, ","))
}
