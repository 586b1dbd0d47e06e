package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// kernelFlags select the kernelized solver (solver/kernel) for multiclass
// data.
type kernelFlags struct {
	kind    string
	gamma   float64
	degree  int
	coef0   float64
	cacheMB int
	cache32 bool
}

func (k *kernelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&k.kind, "kernel", "", "train the kernelized solver (multiclass data) with this kernel: linear, rbf or poly\n(default: none, the primal solvers)")
	fs.Float64Var(&k.gamma, "gamma", 0, "kernel: gamma of rbf exp(-gamma |x-x'|^2) and poly (gamma <x,x'> + coef0)^degree")
	fs.IntVar(&k.degree, "degree", 3, "kernel: degree of poly")
	fs.Float64Var(&k.coef0, "coef0", 1, "kernel: coef0 of poly")
	fs.IntVar(&k.cacheMB, "kernel-cache", 512, "kernel: memory for cached kernel rows, in MB (0: none)")
	fs.BoolVar(&k.cache32, "kernel-cache-float32", false, "kernel: keep the cached rows as float32 (twice the rows in --kernel-cache; values rounded to float32)")
}

func (k *kernelFlags) enabled() bool { return k.kind != "" }

// config builds the kernelized solver's configuration from the solver
// flags and the kernel flags.
// cacheOption returns the kernel row cache the flags ask for.
func (k *kernelFlags) cacheOption() kernel.Option {
	if k.cache32 {
		return kernel.WithCacheFloat32(int64(k.cacheMB) << 20)
	}
	return kernel.WithCache(int64(k.cacheMB) << 20)
}

func (k *kernelFlags) config(sf *solverFlags) (kernel.Config, error) {
	kind, err := kernel.ParseKind(k.kind)
	if err != nil {
		return kernel.Config{}, fmt.Errorf("--kernel: %w", err)
	}
	if sf.given("preset") {
		return kernel.Config{}, fmt.Errorf("--kernel takes no --preset (its steps are the papers' BCFW and FW)")
	}
	base, err := sf.configPreset(1, "paper")
	if err != nil {
		return kernel.Config{}, err
	}
	switch {
	case base.Algorithm != solverrun.BCFW && base.Algorithm != solverrun.FW:
		return kernel.Config{}, fmt.Errorf("--kernel runs --solver bcfw or fw, not %v", base.Algorithm)
	case (base.Step != solver.FWStep && base.Step != solver.Exact) || base.Cache.Enabled || base.Box != nil:
		return kernel.Config{}, fmt.Errorf("--kernel takes no --cache or box flags, and of --step only exact")
	case sf.accuracy != 1:
		return kernel.Config{}, fmt.Errorf("--kernel takes no --oracle-accuracy")
	case k.cacheMB < 0:
		return kernel.Config{}, fmt.Errorf("--kernel-cache must be >= 0, got %d", k.cacheMB)
	}
	cfg := kernel.Config{
		Lambda: base.Lambda, Kernel: kernel.Kernel{Kind: kind, Gamma: k.gamma, Degree: k.degree, Coef0: k.coef0},
		Algorithm: base.Algorithm, Sampling: base.Sampling, StepSize: base.StepSize, Averaging: base.Averaging,
		GapEvery: base.GapEvery, TraceEvery: base.TraceEvery, Seed: base.Seed,
		Exact: base.Step == solver.Exact, Shrinking: base.Shrinking,
	}
	if kind == kernel.Linear {
		cfg.Kernel = kernel.Kernel{Kind: kernel.Linear}
	}
	return cfg, cfg.Kernel.Validate()
}

// trainOptions are the output options of train shared by both solvers.
type trainOptions struct {
	tracePath, modelPath, bar string
	trainLoss, noTest, quiet  bool
	flags                     *flag.FlagSet // the command line, whose data flags the model records
}

// trainKernel trains the kernelized solver on multiclass data and writes
// its trace and its model (support vectors and coefficients).
func trainKernel(ctx context.Context, stdout, stderr io.Writer, data *dataFlags, sf *solverFlags, kf *kernelFlags, stop solverrun.Stop, o trainOptions) error {
	cfg, err := kf.config(sf)
	if err != nil {
		return err
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	mtrain, ok1 := loaded.Train.(*oracles.Multiclass)
	mtest, ok2 := loaded.Test.(*oracles.Multiclass)
	if !ok1 || !ok2 {
		return fmt.Errorf("--kernel needs multiclass data (usps, svmlight, csv), not %s", name)
	}
	dataOpts, err := data.resolved(o.flags, name)
	if err != nil {
		return err
	}
	if cfg.Kernel.Kind == kernel.Linear {
		// The kernel's features are the inputs themselves; an rbf kernel
		// has k(x, x) = 1 whatever their scale.
		warnConditioning(stderr, "train", loaded, cfg.Lambda)
	}
	// The loaded data keeps the training inputs as read (for its Split),
	// a copy of the problem's: nothing below uses it, so that the garbage
	// collector frees it before the run (USPS: 22 MB).
	scaler := loaded.Scaler
	pb := newBar(o.bar, stderr, stop.Passes)
	opts := []kernel.Option{kernel.WithTrainLoss(o.trainLoss), kernel.WithWorkers(sf.workers), kf.cacheOption(),
		kernel.WithProgress(func(pt solverrun.Point) {
			if !o.quiet {
				pb.clear()
				fmt.Fprintln(stdout, formatPoint(pt))
			}
		})}
	if !o.noTest {
		opts = append(opts, kernel.WithTest(mtest))
	}
	s, err := kernel.New(mtrain, cfg, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "data %s: %d training and %d test examples%s, %d features, %d classes\n", describeData(name, data.split), mtrain.Len(), mtest.Len(), unseenNote(mtest), mtrain.NumFeatures(), mtrain.NumClasses())
	fmt.Fprintf(stdout, "kernelized solver %s (sampling %s), kernel %v, lambda = %g\n", cfg.Algorithm, cfg.Sampling, cfg.Kernel, cfg.Lambda)
	status, last, err := runToEnd(ctx, s, stop, pb)
	if err != nil {
		return err
	}
	hits, misses, _ := s.CacheStats()
	fmt.Fprintf(stdout, "done (%s) after %.1f passes, %.3f s solver time: gap %s, primal %.6g, test loss %s, %d support vectors, kernel cache hit rate %s\n",
		status, s.Passes(), s.Elapsed().Seconds(), fmtFloat(last.Gap), last.Primal, fmtFloat(last.TestLoss), s.SupportVectors(), fmtFloat(float64(hits)/float64(hits+misses)))
	// The model is written even when the trace cannot be, and vice versa.
	var errs []error
	if o.modelPath != "" {
		m := &kernelModelFile{Data: name, DataOptions: dataOpts, TrainFingerprint: fingerprint(mtrain, 1), Lambda: cfg.Lambda, Solver: cfg.Algorithm.String(),
			Passes: s.Passes(), Gap: finiteOrNil(last.Gap), Model: s.Model(), AverageModel: s.AverageModel(), Scaler: scaler}
		if err := writeKernelModel(o.modelPath, m); err != nil {
			errs = append(errs, fmt.Errorf("write model: %w", err))
		}
	}
	if o.tracePath != "" {
		if err := writeJSON(o.tracePath, s.Trace()); err != nil {
			errs = append(errs, fmt.Errorf("write trace: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if status == solverrun.StatusCanceled {
		return fmt.Errorf("interrupted after %.1f passes (trace and model written)", s.Passes())
	}
	return nil
}

// kernelModelFormat is written by train --kernel; kernelModelFormatV1
// files (before the data options and the scaling were recorded) are still
// read.
const (
	kernelModelFormat   = "fwstruct-kernel-model/2"
	kernelModelFormatV1 = "fwstruct-kernel-model/1"
)

// kernelModelFile is the JSON model of the kernelized solver: its kernel
// expansion (support vectors and coefficients), self-contained, with the
// data options and the feature scaling it was trained with, as the primal
// model (modelFile) records them.
type kernelModelFile struct {
	Format string `json:"format"`
	Data   string `json:"data"`
	// DataOptions and TrainFingerprint as in modelFile.
	DataOptions      map[string]string `json:"data_options,omitempty"`
	TrainFingerprint string            `json:"train_fingerprint,omitempty"`
	// Split is the OCR split of a version 1 model (read from old files
	// only).
	Split        string        `json:"split,omitempty"`
	Lambda       float64       `json:"lambda"`
	Solver       string        `json:"solver"`
	Passes       float64       `json:"passes"`
	Gap          *float64      `json:"gap"`
	Model        *kernel.Model `json:"model"`
	AverageModel *kernel.Model `json:"average_model,omitempty"`
	// Scaler as in modelFile.
	Scaler *datasets.Scaler `json:"scaler,omitempty"`
}

func writeKernelModel(path string, m *kernelModelFile) error {
	m.Format = kernelModelFormat
	return writeCompactJSON(path, m)
}

// isKernelModel reports whether the file at path is a kernel model (by its
// format field); it returns false when the file cannot be read as JSON,
// leaving the error to the reader of the other format.
func isKernelModel(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var head struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(b, &head) == nil && (head.Format == kernelModelFormat || head.Format == kernelModelFormatV1)
}

func readKernelModel(path string) (*kernelModelFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m kernelModelFile
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a kernel model file: %w", path, err)
	}
	if m.Model == nil {
		return nil, fmt.Errorf("%s: kernel model file without a model", path)
	}
	for _, km := range []*kernel.Model{m.Model, m.AverageModel} {
		if km == nil {
			continue
		}
		if err := km.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if !(m.Lambda > 0) || math.IsInf(m.Lambda, 0) {
		return nil, fmt.Errorf("%s: lambda %v", path, m.Lambda)
	}
	if m.Scaler != nil {
		if err := m.Scaler.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	names := dataFlagNames()
	for k := range m.DataOptions {
		if !names[k] {
			return nil, fmt.Errorf("%s: unknown data option %s", path, quote(k))
		}
	}
	return &m, nil
}

// recordedOptions returns the data options the kernel model records.
func (m *kernelModelFile) recordedOptions() map[string]string {
	if m.DataOptions != nil {
		return m.DataOptions
	}
	rec := map[string]string{"data": m.Data}
	if m.Split != "" {
		rec["split"] = m.Split
	}
	return rec
}

// evalKernel prints the test (or training) error of a kernel model on the
// data it was trained on (its recorded data options and scaling), or on
// the data the flags name.
func evalKernel(stdout io.Writer, path string, data *dataFlags, fs *flag.FlagSet, given []string, set string, average bool) error {
	m, err := readKernelModel(path)
	if err != nil {
		return err
	}
	rebuilt, err := applyModelData(fs, data, m.Data, m.recordedOptions())
	if err != nil {
		return err
	}
	if err := useModelScaler(fs, data, m.Scaler); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := checkEvalData(given, data); err != nil {
		return err
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	if rebuilt && m.TrainFingerprint != "" {
		if err := checkFingerprint(m.TrainFingerprint, loaded.Train); err != nil {
			return fmt.Errorf("%s: the training data the model records (%s) has changed since it was trained: %w", path, describeData(name, data.split), err)
		}
	}
	p := loaded.Test
	if set == "train" {
		p = loaded.Train
	}
	mp, ok := p.(*oracles.Multiclass)
	if !ok {
		return fmt.Errorf("a kernel model needs multiclass data, not %s", name)
	}
	km := m.Model
	if average {
		if m.AverageModel == nil {
			return fmt.Errorf("%s has no average model (train with --averaging)", path)
		}
		km = m.AverageModel
	}
	loss, err := km.MeanLoss(mp)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	which := "kernel model"
	if average {
		which = "averaged kernel model"
	}
	printEvaluated(&buf, path, which, set, loaded, loaded.Name, data.split, mp)
	fmt.Fprintf(&buf, "%s loss %.6f (%s, %d examples%s; kernel %v, %d support vectors)\n", set, loss, describeData(loaded.Name, data.split), mp.Len(), unseenNote(mp), km.Kernel, len(km.SV))
	_, err = stdout.Write(buf.Bytes())
	return err
}
