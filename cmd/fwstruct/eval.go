package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: fwstruct eval --model FILE [flags]\n\nPrints the task loss of a saved model (weights, or a kernel model's support\nvectors) on the test (or training) split, and its task metrics (e.g. pixel\naccuracy for segmentation, chunk F1 for chunking, Hamming loss and\nexample-based F1 for multi-label data).\nThe dataset defaults to the one the model was trained on.\n\nFlags:")
		fs.PrintDefaults()
	}
	var data dataFlags
	data.register(fs, "")
	modelPath := fs.String("model", "", "model `FILE` written by fwstruct train --model")
	set := fs.String("set", "test", "which split to evaluate: test or train")
	average := fs.Bool("average", false, "evaluate the weighted-average weights (trained with --averaging)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" {
		fmt.Fprintln(stderr, "eval needs --model FILE")
		return errUsage
	}
	if *set != "test" && *set != "train" {
		return fmt.Errorf("--set must be test or train, got %q", *set)
	}
	if isKernelModel(*modelPath) {
		return evalKernel(stdout, *modelPath, &data, fs, *set, *average)
	}
	m, err := readModel(*modelPath)
	if err != nil {
		return err
	}
	if data.name == "" {
		data.defaultTo(fs, m.Data, m.Split)
		if m.Data == "synthetic" {
			data.synthWords, data.synthSeed, data.synthNoise = m.SyntheticWords, m.SyntheticSeed, m.SyntheticNoise
		}
	}
	train, test, name, err := data.load()
	if err != nil {
		return err
	}
	if train.Dim() != m.Dim {
		return fmt.Errorf("model has dimension %d but dataset %s has %d", m.Dim, name, train.Dim())
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
	printMetrics(stdout, *set, describeData(name, data.split), p, w)
	return nil
}

// defaultTo makes the dataset a model was trained on (name, OCR split) the
// one to load, unless the command line names one.
func (d *dataFlags) defaultTo(fs *flag.FlagSet, name, split string) {
	if d.name != "" {
		return
	}
	d.name = name
	if split != "" && !flagSet(fs, "split") {
		d.split = split
	}
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}
