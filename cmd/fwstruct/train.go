package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct train [flags]\n\nTrains a structural SVM and prints one line per exact duality-gap evaluation.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "auto")
	var sf solverFlags
	sf.register(fs)
	var sp stopFlags
	sp.register(fs)
	tracePath := fs.String("trace", "", "write the trace (JSON array of trace points) to `FILE`")
	modelPath := fs.String("model", "", "write the model weights (JSON) to `FILE`")
	trainLoss := fs.Bool("train-loss", false, "record the task loss on the training set at every evaluation")
	noTest := fs.Bool("no-test-loss", false, "do not record the task loss on the test split")
	quiet := fs.Bool("quiet", false, "print only the final summary")
	bar := fs.String("progress", "auto", "progress bar on stderr: auto (when stderr is a terminal), on or off")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	stop, err := sp.stop()
	if err != nil {
		return err
	}
	train, test, name, err := data.load()
	if err != nil {
		return err
	}
	cfg, err := sf.config(train.Dim())
	if err != nil {
		return err
	}
	pb := newBar(*bar, stderr, stop.Passes)
	opts := []solver.Option{solver.WithTrainLoss(*trainLoss), solver.WithWorkers(sf.workers), solver.WithProgress(func(pt solver.TracePoint) {
		if *quiet {
			return
		}
		pb.clear()
		fmt.Fprintln(stdout, formatPoint(pt))
	})}
	if !*noTest {
		opts = append(opts, solver.WithTest(test))
	}
	s, err := solver.New(train, cfg, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "data %s: %d training and %d test examples, d = %d\n", describeData(name, data.split), train.Len(), test.Len(), train.Dim())
	fmt.Fprintf(stdout, "solver %s (sampling %s, %s steps, cache %v%s), lambda = %g\n", cfg.Algorithm, cfg.Sampling, cfg.Step, cfg.Cache.Enabled, describeMultiPlane(s.Config().MultiPlane), cfg.Lambda)
	status, err := runWithBar(ctx, s, stop, pb)
	pb.finish()
	if err != nil {
		return err
	}
	// The summary and the trace end at the final iterate: when the last
	// trace point predates it, an observe-only evaluation is recorded.
	last, err := s.Current()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "done (%s) after %.1f passes, %.3f s solver time: gap %s, primal %.6g, test loss %s\n",
		status, s.Passes(), s.Elapsed().Seconds(), fmtFloat(last.Gap), last.Primal, fmtFloat(last.TestLoss))
	if *tracePath != "" {
		if err := writeJSON(*tracePath, s.Trace()); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
	}
	if *modelPath != "" {
		m := &modelFile{
			Data: name, Split: data.split, Dim: train.Dim(), Lambda: cfg.Lambda, Solver: cfg.Algorithm.String(),
			Passes: s.Passes(), Gap: finiteOrNil(last.Gap), Weights: s.Weights(), AverageWeights: s.AverageWeights(),
		}
		if name == "synthetic" {
			m.SyntheticWords, m.SyntheticSeed, m.SyntheticNoise = data.synthWords, data.synthSeed, data.synthNoise
		}
		if err := writeModel(*modelPath, m); err != nil {
			return fmt.Errorf("write model: %w", err)
		}
	}
	if status == solver.StatusCanceled {
		return fmt.Errorf("interrupted after %.1f passes (trace and model written)", s.Passes())
	}
	return nil
}

// runWithBar runs the solver about a pass at a time so that the bar moves;
// the trajectory is the same as in a single Run call (a chunk always leaves
// room for a whole gap pass, so it always makes progress).
func runWithBar(ctx context.Context, s *solver.Solver, stop solver.Stop, pb *bar) (solver.Status, error) {
	start := time.Now()
	for {
		chunk := stop
		chunk.Passes = s.Passes() + 1
		last := stop.Passes > 0 && chunk.Passes >= stop.Passes
		if last {
			chunk.Passes = stop.Passes
		}
		if stop.Duration > 0 {
			chunk.Duration = stop.Duration - time.Since(start)
			if chunk.Duration <= 0 {
				return solver.StatusTime, nil
			}
		}
		res, err := s.Run(ctx, chunk)
		if err != nil {
			return res.Status, err
		}
		pb.set(s.Passes())
		if res.Status != solver.StatusPasses || last {
			return res.Status, nil
		}
	}
}

func describeData(name, split string) string {
	if name == "ocr" {
		return "ocr-" + split
	}
	return name
}

// formatPoint renders a trace point as one line.
func formatPoint(p solver.TracePoint) string {
	line := fmt.Sprintf("pass %7.2f  gap %-10s primal %-10.6g dual %-10s", p.Pass, fmtFloat(p.Gap), p.Primal, fmtFloat(p.Dual))
	if !math.IsNaN(p.GapEstimate) {
		line += fmt.Sprintf(" est %-10s", fmtFloat(p.GapEstimate))
	}
	if !math.IsNaN(p.GapAvg) {
		line += fmt.Sprintf(" gap-avg %-10s", fmtFloat(p.GapAvg))
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

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
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

// meanLoss is the task loss of w on p.
func meanLoss(p oracles.Problem, w []float64) float64 { return oracles.MeanLoss(p, w) }
