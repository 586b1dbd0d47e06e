package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/soft"
)

const evalUsage = `Usage: fwstruct eval --model FILE [flags]

Prints the task loss of a saved model (weights, or a kernel model's support
vectors) on the test (or training) split, and its task metrics (e.g. pixel
accuracy for segmentation, chunk F1 for chunking, Hamming loss and
example-based F1 for multi-label data).
The data is rebuilt as the model was trained (the model records its data);
data flags given here replace the recorded ones, and a --data naming another
dataset starts from the defaults. The model's feature scaling is applied.`

// evalLine is the command line of fwstruct eval.
type evalLine struct {
	f       *flagSet
	data    dataFlags
	model   string
	set     string
	average bool
}

// declareEval declares the flags of eval, the data flags' defaults those
// of from (the model's data).
func declareEval(f *flagSet, from datasets.Spec) *evalLine {
	e := &evalLine{f: f, set: "test"}
	f.section("Model", "")
	f.String(&e.model, "model", "model `FILE` written by fwstruct train --model or tune --model")
	f.choice("set", "which split to evaluate: test or train", []string{"test", "train"},
		func() string { return e.set }, func(s string) error { e.set = s; return nil })
	f.Bool(&e.average, "average", "evaluate the averaged weights (of a run with --average or --averaging)")
	e.data.declare(f, from, "Their defaults are those of the data the model records.")
	return e
}

// parseEval parses the command line of eval and reads the model it names:
// the data flags default to the model's data, unless --data names another
// dataset (then to the defaults).
func parseEval(args []string, stderr io.Writer) (*evalLine, *modelFile, error) {
	parse := func(from datasets.Spec) (*evalLine, error) {
		e := declareEval(newFlagSet("eval"), from)
		e.f.help = e.f.simpleHelp(stderr, evalUsage)
		return e, e.f.parse(args)
	}
	path := flagValue(args, "model")
	if path == "" {
		if _, err := parse(freshData("")); err != nil {
			return nil, nil, err
		}
		return nil, nil, usageErrorf("eval", "eval needs --model FILE")
	}
	m, err := readModel(path)
	if err != nil {
		return nil, nil, err
	}
	e, err := parse(m.Data)
	if err != nil {
		return nil, nil, err
	}
	if e.f.given("data") && !sameValue("data", e.data.name, m.Data.Name) {
		e, err = parse(freshData(""))
	}
	return e, m, err
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e, m, err := parseEval(args, stderr)
	if err != nil {
		return err
	}
	spec, err := e.data.spec(e.f.givenNames())
	if err != nil {
		return err
	}
	rebuilt := sameValue("data", spec.Name, m.Data.Name)
	for _, name := range e.f.givenNames() {
		fl := e.f.fs.Lookup(name)
		if _, isData := dataKinds[name]; (isData || name == "data-path") && !sameValue(name, fl.Value.String(), fl.DefValue) {
			rebuilt = false
		}
	}
	if sc := m.Scaler; sc != nil {
		// The model's weights expect inputs scaled as its training file was,
		// whichever data eval loads.
		if o := &spec.Options; e.f.given("scale") && o.Scaling != datasets.ScaleNone && o.Scaling != sc.Scaling {
			return fmt.Errorf("--scale %v: the model was trained on features scaled by %v, which eval applies (its scaler is stored in the model)", o.Scaling, sc.Scaling)
		}
		spec.Options.Scaling, spec.Options.Scaler = sc.Scaling, sc
	}
	loaded, err := spec.Load()
	if err != nil {
		return err
	}
	train := loaded.Train
	if m.Kernel == nil && train.Dim() != m.Dim {
		return fmt.Errorf("model has dimension %d but dataset %s has %d", m.Dim, loaded.Name, train.Dim())
	}
	if rebuilt {
		if err := checkFingerprint(m.TrainFingerprint, train); err != nil {
			return fmt.Errorf("%s: the training data the model records (%s) has changed since it was trained: %w", e.model, describeData(loaded, spec), err)
		}
	}
	p := loaded.Test
	if e.set == "train" {
		p = train
	}
	var buf bytes.Buffer
	if err := evaluate(&buf, e, m, loaded, spec, p); err != nil {
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// evaluate prints what eval computes of model m on p.
func evaluate(w io.Writer, e *evalLine, m *modelFile, d *datasets.Data, spec datasets.Spec, p oracles.Problem) error {
	desc := describeData(d, spec)

	if km := m.Kernel; km != nil {
		which := "kernel model"
		if e.average {
			if km = m.AverageKernel; km == nil {
				return fmt.Errorf("%s has no average kernel model (train with --averaging)", e.model)
			}
			which = "averaged kernel model"
		}
		mp, ok := p.(*oracles.Multiclass)
		if !ok {
			return fmt.Errorf("a kernel model needs multiclass data, not %s", d.Name)
		}
		loss, err := km.MeanLoss(mp)
		if err != nil {
			return err
		}
		printEvaluated(w, e.model, m, which, e.set, d, desc, p)
		fmt.Fprintf(w, "%s loss %.6f (%s, %d examples%s; kernel %v, %d support vectors)\n", e.set, loss, desc, mp.Len(), unseenNote(mp), km.Kernel, len(km.SV))
		return nil
	}
	wts, which := m.Weights, "weights"
	if e.average {
		if wts = m.AverageWeights; wts == nil {
			return fmt.Errorf("%s has no average weights (train with --average or --averaging)", e.model)
		}
		which = "averaged weights"
	}
	printEvaluated(w, e.model, m, which, e.set, d, desc, p)
	printMetrics(w, e.set, desc, p, wts)
	return nil
}

// checkFingerprint returns nil when p is the training problem whose
// fingerprint a model recorded, else an error naming what differs.
func checkFingerprint(recorded string, p oracles.Problem) error {
	want, _, err := oracles.ParseFingerprint(recorded)
	if err != nil {
		return err
	}
	if err := want.Check(oracles.FingerprintOf(p, 0)); err != nil {
		return fmt.Errorf("it now has %w", err)
	}
	return nil
}

// printEvaluated prints what eval evaluates, before the results: the model
// file with the weights used, the split with the file it was read from
// (the data of the model, or the one the flags name) and its format, and
// the method the model records, e.g.
//
//	model:    model.json (averaged weights)
//	test set: data/emotions-test.arff (mulan, 202 examples)
//	method:   soft (gap_every 10, rho 1, sampling uniform, seed 0), lambda 0.01, 50.0 passes
func printEvaluated(w io.Writer, modelPath string, m *modelFile, which, set string, d *datasets.Data, desc string, p oracles.Problem) {
	file := d.TestPath
	if set == "train" {
		file = d.TrainPath
	}
	fmt.Fprintf(w, "model:    %s (%s)\n", modelPath, which)
	if file == "" {
		fmt.Fprintf(w, "%s set: %s, %d examples (the dataset's %s split, no file of its own)\n", set, desc, p.Len(), set)
	} else {
		fmt.Fprintf(w, "%s set: %s (%s, %d examples)\n", set, file, desc, p.Len())
	}
	if method, _, err := m.decode(); err == nil { // checked by parseModel
		fmt.Fprintf(w, "method:   %s, lambda %g, %.1f passes\n", describeMethod(method), lambdaOf(method), m.Passes)
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
	head := fmt.Sprintf("%s, %d examples%s", desc, p.Len(), unseenNote(p))
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
