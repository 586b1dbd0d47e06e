package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct eval --model FILE [flags]\n\nPrints the task loss of a saved model (weights, or a kernel model's support\n"+
			"vectors) on the test (or training) split, and its task metrics (e.g. pixel\n"+
			"accuracy for segmentation, chunk F1 for chunking, Hamming loss and\n"+
			"example-based F1 for multi-label data).\n"+
			"The data is rebuilt as the model was trained (every data option is recorded in the model);\n"+
			"data flags given here replace the recorded ones, and a --data naming another dataset\n"+
			"starts from the defaults.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "")
	modelPath := fs.String("model", "", "model `FILE` written by fwstruct train --model")
	set := fs.String("set", "test", "which split to evaluate: test or train")
	average := fs.Bool("average", false, "evaluate the averaged weights (trained with --averaging; the kind --average chose)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := givenFlags(fs) // before the model's data options are applied
	if *modelPath == "" {
		return usageErrorf(fs, "eval needs --model FILE")
	}
	if *set != "test" && *set != "train" {
		return fmt.Errorf("--set must be test or train, got %s", quote(*set))
	}
	if isKernelModel(*modelPath) {
		return evalKernel(stdout, *modelPath, &data, fs, given, *set, *average)
	}
	m, err := readModel(*modelPath)
	if err != nil {
		return err
	}
	rebuilt, err := applyModelData(fs, &data, m.Data, m.recordedOptions())
	if err != nil {
		return err
	}
	if err := useModelScaler(fs, &data, m.Scaler); err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	if err := checkEvalData(given, &data); err != nil {
		return err
	}
	loaded, name, err := data.load()
	if err != nil {
		return err
	}
	train, test := loaded.Train, loaded.Test
	if train.Dim() != m.Dim {
		return fmt.Errorf("model has dimension %d but dataset %s has %d", m.Dim, name, train.Dim())
	}
	if rebuilt && m.TrainFingerprint != "" {
		if err := checkFingerprint(m.TrainFingerprint, train); err != nil {
			return fmt.Errorf("%s: the training data the model records (%s) has changed since it was trained: %w", *modelPath, describeData(name, data.split), err)
		}
	}
	w := m.Weights
	if *average {
		if m.AverageWeights == nil {
			return fmt.Errorf("%s has no average weights (train with --averaging)", *modelPath)
		}
		w = m.AverageWeights
	}
	p := test
	if *set == "train" {
		p = train
	}
	which := "weights"
	if *average {
		which = "averaged weights"
	}
	// A path given as the data names the training file: the blocks name
	// the format Recognize told, the header the file evaluated.
	printEvaluated(stdout, *modelPath, which, *set, loaded, loaded.Name, data.split, p)
	printMetrics(stdout, *set, describeData(loaded.Name, data.split), p, w)
	return nil
}

// printEvaluated prints what eval evaluates, before the results: the model
// file with the weights used, and the split with the file it was read from
// (the data of the model, or the one the flags name) and its format, e.g.
//
//	model:    model.json (averaged weights)
//	test set: data/emotions-test.arff (mulan, 202 examples)
func printEvaluated(w io.Writer, modelPath, which, set string, d *datasets.Data, name, split string, p oracles.Problem) {
	file := d.TestPath
	if set == "train" {
		file = d.TrainPath
	}
	desc := describeData(name, split)
	fmt.Fprintf(w, "model:    %s (%s)\n", modelPath, which)
	if file == "" {
		fmt.Fprintf(w, "%s set: %s, %d examples (the dataset's %s split, no file of its own)\n", set, desc, p.Len(), set)
		return
	}
	fmt.Fprintf(w, "%s set: %s (%s, %d examples)\n", set, file, desc, p.Len())
}

// recordedOptions returns the data options the model records: every data
// flag for a version 2 model, those it kept for a version 1 model.
func (m *modelFile) recordedOptions() map[string]string {
	if m.DataOptions != nil {
		return m.DataOptions
	}
	rec := map[string]string{"data": m.Data}
	if m.Split != "" {
		rec["split"] = m.Split
	}
	if m.Data == "synthetic" {
		if m.SyntheticWords != 0 {
			rec["synthetic-words"] = fmt.Sprint(m.SyntheticWords)
		}
		if m.SyntheticNoise != 0 {
			rec["synthetic-noise"] = fmt.Sprint(m.SyntheticNoise)
		}
		rec["synthetic-seed"] = fmt.Sprint(m.SyntheticSeed)
	}
	return rec
}

// applyModelData sets the data flags that were not given on the command
// line to the ones recorded in a model trained on the dataset modelData,
// unless --data names another dataset, and reports whether the model's
// training data was rebuilt as recorded (no data flag given).
func applyModelData(fs *flag.FlagSet, data *dataFlags, modelData string, rec map[string]string) (rebuilt bool, err error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if data.name != "" && !sameFlagValue(fs, "data", data.name, modelData) {
		return false, nil // another dataset, with the defaults
	}
	names := make([]string, 0, len(rec))
	for k := range rec {
		names = append(names, k)
	}
	sort.Strings(names)
	rebuilt = true
	for _, k := range names {
		if given[k] {
			rebuilt = rebuilt && sameFlagValue(fs, k, fs.Lookup(k).Value.String(), rec[k])
			continue
		}
		if err := fs.Set(k, rec[k]); err != nil {
			return false, fmt.Errorf("the model's data option --%s: %w", k, err)
		}
	}
	return rebuilt, nil
}

// useModelScaler makes the feature scaling a model stores the one applied
// to the data eval loads (whichever data it is: the model's weights expect
// scaled inputs). A --scale given on the command line must be that
// scaling's kind.
func useModelScaler(fs *flag.FlagSet, data *dataFlags, sc *datasets.Scaler) error {
	if sc == nil {
		return nil
	}
	if flagSet(fs, "scale") && data.scale != "none" && data.scale != sc.Scaling.String() {
		return fmt.Errorf("--scale %s: the model was trained on features scaled by %v, which eval applies (its scaler is stored in the model)", data.scale, sc.Scaling)
	}
	data.scaler = sc
	return nil
}
