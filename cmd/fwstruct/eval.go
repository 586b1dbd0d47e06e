package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/soft"
)

const evalUsage = `Usage: fwstruct eval --model FILE [--data FILE] [flags]

Prints the task loss of a saved model (weights, or a kernel model's support
vectors) and its task metrics (e.g. pixel accuracy for segmentation, chunk F1
for chunking, Hamming loss and example-based F1 for multi-label data) on its
test file (--set train: its training file) or on the file --data names.
The model stores what its training data fixes (the classes, labels or tags,
the feature map, the scaling): the file is read as its test file was, with
no training file. The horses and the Hansards, whose features are computed
from statistics of the training data, load the data the model records.`

// modelLine is the part of the command lines of eval and predict that
// says which model scores which data.
type modelLine struct {
	f       *flagSet
	model   string
	data    string
	set     string
	weights string // --weights: auto, average or iterate
	average bool   // the averaged weights are used (resolved by open)
}

// declareModelLine declares the flags of a command reading a model and
// the data it scores or predicts (command names the action in the help).
func declareModelLine(f *flagSet, action string) *modelLine {
	l := &modelLine{f: f, set: "test", weights: "auto"}
	f.section("Model and data", "")
	f.String(&l.model, "model", "model `FILE` written by fwstruct train --model, tune --model or ssvmnb's SaveModel")
	f.String(&l.data, "data", "the `FILE` to "+action+", in the format of the model's training data, with or without gold labels\n"+
		"(a folder of test.e and test.f for word alignment); default: the model's own test file (see --set)")
	f.choice("set", "without --data: the model's test or training file (or split)", []string{"test", "train"},
		func() string { return l.set }, func(s string) error { l.set = s; return nil })
	f.choice("weights", "the weights to use: the averaged iterate's of a run that kept one (--average, --averaging), the last\n"+
		"iterate's, or auto: the average when the model has one (as auto's runs on chains), else the iterate", []string{"auto", "average", "iterate"},
		func() string { return l.weights }, func(s string) error { l.weights = s; return nil })
	f.check(func() error {
		switch {
		case l.model == "":
			return usageErrorf(f.fs.Name(), "%s needs --model FILE", f.fs.Name())
		case l.data != "" && f.given("set"):
			return errors.New("--set chooses one of the model's own files; --data names another: give one of them")
		}
		return nil
	})
	return l
}

// open reads the model and the set it scores: --data read with the
// model's schema, else the model's test (or training) set.
func (l *modelLine) open() (*model.Model, *datasets.Set, error) {
	m, err := model.Load(l.model)
	if err != nil {
		return nil, nil, err
	}
	var set *datasets.Set
	switch {
	case l.data != "":
		set, err = m.Open(l.data)
	case l.set == "train":
		set, err = m.TrainSet()
	default:
		set, err = m.TestSet()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", l.model, err)
	}
	hasAverage := m.AverageWeights != nil || m.AverageKernel != nil
	switch l.weights {
	case "average":
		if !hasAverage {
			return nil, nil, fmt.Errorf("--weights average: %s has no averaged weights (train with --average or --averaging)", l.model)
		}
		l.average = true
	case "iterate":
		l.average = false
	default:
		l.average = hasAverage
	}
	return m, set, nil
}

// which names the weights used, for the lines that say what is scored.
func (l *modelLine) which(m *model.Model) string {
	switch {
	case m.Kernel != nil && l.average:
		return "averaged kernel model"
	case m.Kernel != nil:
		return "kernel model"
	case l.average:
		return "averaged weights"
	}
	return "weights"
}

// setName is "train" for the model's training set, else "test": what
// the results are labelled.
func (l *modelLine) setName() string {
	if l.data != "" {
		return "test"
	}
	return l.set
}

// warnChangedTest prints a warning when the model's own test set is not
// the one of the run that made it (the file changed since).
func (l *modelLine) warnChangedTest(stderr io.Writer, m *model.Model, set *datasets.Set) {
	if l.data != "" || l.set != "test" {
		return
	}
	if err := m.CheckTest(set); err != nil {
		fmt.Fprintf(stderr, "fwstruct %s: warning: the test set %s has changed since the model was trained (it now has %v): the results are not the run's\n",
			l.f.fs.Name(), l.setFile(set), err)
	}
}

// setFile names the file of a set, or the split when it has none.
func (l *modelLine) setFile(set *datasets.Set) string {
	if set.Path == "" {
		return "the dataset's " + l.set + " split"
	}
	return set.Path
}

// describeModelData names the data of a model in the lines the commands
// print: its format, and the split of OCR data.
func describeModelData(m *model.Model) string {
	if m.Schema.Format == "ocr" {
		return "ocr-" + m.Data.Options.Split.String()
	}
	return m.Schema.Format
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newFlagSet("eval")
	l := declareModelLine(f, "score")
	f.help = f.simpleHelp(stderr, evalUsage)
	if err := f.parse(args); err != nil {
		return err
	}
	m, set, err := l.open()
	if err != nil {
		return err
	}
	if !set.Gold {
		return fmt.Errorf("%s holds no gold labels: nothing to score (fwstruct predict writes the predictions)", l.setFile(set))
	}
	l.warnChangedTest(stderr, m, set)
	var buf bytes.Buffer
	if err := evaluate(&buf, l, m, set); err != nil {
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// evaluate prints what eval computes of model m on set.
func evaluate(w io.Writer, l *modelLine, m *model.Model, set *datasets.Set) error {
	desc, name := describeModelData(m), l.setName()
	p := set.Problem
	printEvaluated(w, l, m, desc, set)
	if km := m.Kernel; km != nil {
		if l.average {
			km = m.AverageKernel
		}
		mp, ok := p.(*oracles.Multiclass)
		if !ok {
			return fmt.Errorf("a kernel model needs multiclass data, not %s", set.Format)
		}
		loss, err := km.MeanLoss(mp)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s loss %.6f (%s, %d examples; kernel %v, %d support vectors)\n", name, loss, desc, mp.Len(), km.Kernel, len(km.SV))
		return nil
	}
	wts := m.Weights
	if l.average {
		wts = m.AverageWeights
	}
	if len(wts) != p.Dim() {
		return fmt.Errorf("the model has dimension %d, the data %d", len(wts), p.Dim())
	}
	printMetrics(w, name, desc, p, wts)
	return nil
}

// printEvaluated prints what eval evaluates, before the results: the model
// file with the weights used, the set with the file it was read from and
// its format, the method the model records, and what the set holds that
// the training data does not (once), e.g.
//
//	model:    model.json (averaged weights)
//	test set: data/emotions-test.arff (mulan, 202 examples)
//	method:   soft (gap_every 10, rho 1, sampling uniform, seed 0), lambda 0.01, 50.0 passes
func printEvaluated(w io.Writer, l *modelLine, m *model.Model, desc string, set *datasets.Set) {
	fmt.Fprintf(w, "model:    %s (%s)\n", l.model, l.which(m))
	label := l.setName() + " set:"
	if set.Path == "" {
		fmt.Fprintf(w, "%s %s, %d examples (the dataset's %s split, no file of its own)\n", label, desc, set.Problem.Len(), l.set)
	} else {
		fmt.Fprintf(w, "%s %s (%s, %d examples)\n", label, set.Path, desc, set.Problem.Len())
	}
	fmt.Fprintf(w, "method:   %s, lambda %g, %.1f passes\n", describeMethod(m.Method()), m.Lambda(), m.Passes)
	if note := unseenLine(set.Unseen); note != "" {
		fmt.Fprintf(w, "unseen:   %s\n", note)
	}
}

// printMetrics prints the task loss of the weights on p and, when p has
// task metrics (oracles.Evaluator: Hamming loss and example-based F1 for
// multi-label data), every metric. On factor-graph data it also prints
// those of LP-plus-rounding prediction (Meshi et al. 2015, Sec. 6), and
// labels each block with its prediction ("exact MAP", "LP + rounding").
func printMetrics(w io.Writer, set, desc string, p oracles.Problem, weights []float64) {
	show := func(head string, q oracles.Problem) {
		loss, ms := soft.Metrics(q, weights, 0)
		fmt.Fprintf(w, "%s loss %.6f (%s)\n", set, loss, head)
		for _, m := range ms {
			fmt.Fprintf(w, "  %-16s %.6f\n", m.Name, m.Value)
		}
	}
	head := fmt.Sprintf("%s, %d examples", desc, p.Len())
	if _, ok := p.(*factorgraph.Exact); ok {
		m, _ := factorgraph.ModelOf(p)
		if r, err := factorgraph.NewRounded(m); err == nil {
			show("exact MAP, "+head, p)
			show("LP + rounding, "+head, r)
			return
		}
	}
	show(head, p)
}
