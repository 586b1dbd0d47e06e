package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
)

const predictUsage = `Usage: fwstruct predict --model FILE [--data FILE] [--out FILE] [flags]

Writes the predictions of a saved model for every example of a file (default:
the model's own test file), with or without gold labels, in the output of its
task, one prediction an example as the task's tools read it:
  multiclass (svmlight, csv, usps)  one label a line, in the file's label names
  multi-label (MULAN)               the predicted label names of an example a line, separated by spaces
  chunking (column format)          the token lines as read, the gold tag kept when the file has one, then the
                                    predicted tag, a blank line between sentences: conlleval's input
  word alignment (Hansards)         "snum e f" a link, the submission format of wa_eval_align.pl
  OCR letters                       one word a line
  segmentation (horses)             a PNG mask an image (255 on the horse) into the folder --out names
The file is read as the model's test file was (see fwstruct eval --help). It may
hold no gold labels: svmlight lines without the label, a CSV without its label
column, USPS lines of 256 values, column-format text without its tag column, an
ARFF file of the feature attributes alone, a Hansards folder without its links.`

// declarePredict declares the flags of predict; out is bound to --out.
func declarePredict(f *flagSet, out *string) *modelLine {
	l := declareModelLine(f, "predict")
	f.section("Output", "")
	f.String(out, "out", "write the predictions to `FILE` (default: standard output); for segmentation, the folder of the masks")
	return l
}

func runPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlagSet("predict")
	out := ""
	l := declarePredict(f, &out)
	f.help = f.simpleHelp(stderr, predictUsage)
	if err := f.parse(args); err != nil {
		return err
	}
	m, set, err := l.open()
	if err != nil {
		return err
	}
	_, segmentation := set.Problem.(*oracles.Segmentation)
	outs := []output{{"out", out}}
	if segmentation {
		if out == "" {
			return fmt.Errorf("segmentation predictions are PNG masks: name their folder with --out DIR")
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		outs = nil
		for _, p := range set.MaskFiles(out) {
			outs = append(outs, output{"out", p})
		}
	} else if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("--out %s is a folder: name the file of the predictions", out)
	}
	if err := checkOutputs(outs...); err != nil {
		return err
	}
	inputs := append([]input{{"--model", l.model}}, setInputs(set, m.TrainFile, m.TestFile)...)
	if err := checkNotInputs(inputs, outs...); err != nil {
		return err
	}
	if set.Gold {
		l.warnChangedTest(stderr, m, set)
	}
	pred, err := m.Predict(set, l.average)
	if err != nil {
		return err
	}
	summary := stderr
	dest := "standard output"
	switch {
	case segmentation:
		files, err := set.WriteMasks(out, pred)
		if err != nil {
			return fmt.Errorf("write masks: %w", err)
		}
		dest, summary = fmt.Sprintf("%d masks in %s", len(files), out), stdout
	case out == "":
		if err := set.WritePredictions(stdout, pred); err != nil {
			return err
		}
	default:
		if err := writeFile(out, func(w io.Writer) error { return set.WritePredictions(w, pred) }); err != nil {
			return fmt.Errorf("write predictions: %w", err)
		}
		dest, summary = out, stdout
	}
	line := fmt.Sprintf("predicted %d examples of %s (%s, %s) into %s", len(pred), l.setFile(set), describeModelData(m), l.which(m), dest)
	if set.Gold {
		line += fmt.Sprintf("; task loss %.6f on their gold labels (fwstruct eval prints the task metrics)", meanLoss(set.Problem, pred))
	} else {
		line += " (no gold labels)"
	}
	fmt.Fprintln(summary, line)
	if note := unseenLine(set.Unseen); note != "" {
		fmt.Fprintf(summary, "unseen: %s\n", note)
	}
	return nil
}

// meanLoss returns the mean task loss of the predictions pred on p.
func meanLoss(p oracles.Problem, pred [][]int32) float64 {
	sum := 0.0
	for i, y := range pred {
		sum += p.Loss(i, y)
	}
	return sum / float64(len(pred))
}

// setInputs returns the files a set was read from, with the model's own
// training and test files, as inputs no output may replace.
func setInputs(set *datasets.Set, files ...string) []input {
	var in []input
	for _, p := range append(set.Files(), files...) {
		if p != "" {
			in = append(in, input{"the data", p})
		}
	}
	return in
}
