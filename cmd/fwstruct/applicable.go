package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
)

// runUse is what a command's run uses of its flags: the data, the solver
// and their options. Every flag given explicitly that the run does not use
// is refused (checkUsed): no option is silently ignored.
type runUse struct {
	command    string // train, eval, path or tune
	data       string // the dataset or format (datasets.Names, "mulan"), "" when unknown
	solver     string // --solver: bcfw, fw, ssg, cp, soft or lp-hard ("" for eval)
	kernel     string // --kernel, "" for none
	multiplane bool
	cache      bool // the cache is on (--cache, or the recommended preset of bcfw)
	mpRule     string
	gapTol     bool // --gap-tol > 0
	heuristic  bool // path --heuristic
	out        bool // path --out
	checkpoint bool // train --checkpoint or --resume
	simWorkers int  // --simulate-workers
}

// flagUse returns "" when u uses the flag, else why not, the end of a
// sentence "--NAME applies to ... only" or "--NAME needs ..."; flags
// without a rule are used by every run of the commands that have them.
func (u runUse) flagUse(name string) string {
	data := func(kinds ...string) string {
		if u.data == "" || slices.Contains(kinds, u.data) {
			return ""
		}
		return fmt.Sprintf("applies to %s data only, not %s", orList(kinds), u.data)
	}
	solvers := func(names ...string) string {
		if slices.Contains(names, u.solver) {
			return ""
		}
		return fmt.Sprintf("applies to --solver %s only, not %s", orList(names), u.solver)
	}
	primal := u.kernel == "" && u.solver != "soft"
	switch name {
	case "split":
		return data("ocr")
	case "no-bias":
		return data("usps", "svmlight", "csv", "yeast", "mulan")
	case "scale":
		return data("usps", "yeast", "mulan", "svmlight", "csv")
	case "index-base":
		return data("svmlight")
	case "label-column", "csv-header", "csv-comma":
		return data("csv")
	case "test-data":
		return data("svmlight", "csv", "conll", "usps", "yeast", "mulan")
	case "synthetic-words", "synthetic-seed", "synthetic-noise":
		return data("synthetic")
	case "lambda":
		switch u.command {
		case "path":
			return "applies to train only (the path sweeps lambda from lambda_inf down to --lambda-min)"
		case "tune":
			return "applies to train only (tune chooses lambda: give the grid with --lambdas)"
		}
	case "time":
		if u.command == "tune" {
			return "applies to train only (bound each value of tune's grid with --passes or --gap-tol)"
		}
	case "rhos":
		return solvers("soft")
	case "gammas":
		if u.kernel != "rbf" && u.kernel != "poly" {
			return "applies to --kernel rbf and poly only"
		}
	case "rho":
		return solvers("soft")
	case "kernel":
		return solvers("bcfw", "fw")
	case "gamma":
		if u.kernel != "rbf" && u.kernel != "poly" {
			return "applies to --kernel rbf and poly only"
		}
	case "degree", "coef0":
		if u.kernel != "poly" {
			return "applies to --kernel poly only"
		}
	case "kernel-cache", "kernel-cache-float32":
		if u.kernel == "" {
			return "needs --kernel (the kernelized solver)"
		}
	case "preset":
		switch {
		case u.kernel != "":
			return "applies to the primal bcfw solver only, not --kernel (whose steps are the papers' bcfw and fw)"
		case u.multiplane:
			return "applies to bcfw without --multiplane only (multi-plane BCFW is its own choice of plane reuse)"
		}
		return solvers("bcfw", "lp-hard")
	case "sampling", "seed":
		// Batch FW and the cutting plane visit every example every step.
		if u.solver == "fw" || u.solver == "cp" {
			return "applies to the solvers that sample blocks only (bcfw, ssg, online-eg, soft), not " + u.solver
		}
	case "step", "shrinking":
		if u.kernel != "" && u.solver == "bcfw" {
			return "" // --step exact, --shrinking: the kernelized bcfw's exact steps
		}
		if !primal {
			return "applies to the primal bcfw solver only"
		}
		return solvers("bcfw", "lp-hard")
	case "cache":
		if !primal {
			return "applies to the primal bcfw solver only"
		}
		return solvers("bcfw", "lp-hard")
	case "step-size":
		if u.solver == "ssg" || u.solver == "cp" || u.solver == "soft" || u.solver == "online-eg" {
			return "applies to bcfw and fw only, not " + u.solver + " (which has its own steps)"
		}
	case "averaging":
		if u.solver == "soft" {
			return "applies to bcfw, fw, ssg and cp only, not soft"
		}
	case "average":
		switch {
		case !primal:
			return "applies to the primal bcfw, fw, ssg and cp solvers only (--kernel keeps the weighted average)"
		case u.multiplane:
			return "applies to bcfw without --multiplane only (multi-plane BCFW keeps weighted averages)"
		}
	case "cache-f", "cache-nu", "cache-size":
		if !primal || !u.cache {
			return "needs the cache (--cache, on by default with the recommended preset of bcfw)"
		}
	case "box-lower", "box-upper":
		if !primal || u.solver == "cp" {
			return "applies to the primal bcfw, fw and ssg solvers only"
		}
	case "oracle-accuracy":
		if u.command == "path" || u.command == "tune" {
			return "applies to train only (" + u.command + " runs the exact oracle)"
		}
		if !primal || u.solver == "lp-hard" {
			return "applies to the primal solvers of a max oracle only (bcfw, fw, ssg, cp)"
		}
	case "cp-tol", "cp-cache":
		return solvers("cp")
	case "simulate-delays":
		if u.simWorkers == 0 {
			return "needs --simulate-workers"
		}
		if !primal {
			return "applies to the primal bcfw solver only (mini-batch BCFW, Wang et al. 2016)"
		}
		return solvers("bcfw", "lp-hard")
	case "batch", "lookahead", "simulate-workers", "async":
		switch {
		case u.kernel != "":
			return "applies to the primal bcfw solver only: --kernel steps run on --workers and stay the sequential run"
		case !primal:
			return "applies to the primal bcfw solver only (mini-batch BCFW, Wang et al. 2016)"
		case u.multiplane && (name == "simulate-workers" || name == "async"):
			return "applies to bcfw without --multiplane only (answers in flight would cross the passes, whose kind the slope rule decides as each ends; --batch or --workers N make multi-plane mini-batches)"
		}
		return solvers("bcfw", "lp-hard")
	case "multiplane":
		if !primal {
			return "applies to the primal bcfw solver only"
		}
		return solvers("bcfw", "lp-hard")
	case "mp-n", "mp-t", "mp-m", "mp-rule":
		if !u.multiplane {
			return "needs --multiplane"
		}
	case "mp-cost-ratio":
		if !u.multiplane || u.mpRule != "cost" {
			return "needs --multiplane --mp-rule cost"
		}
	case "early-check":
		if !u.gapTol {
			return "needs --gap-tol (it certifies the gap early)"
		}
	case "train-loss":
		if u.solver == "soft" {
			return "applies to the solvers of one labeling an example only, not soft"
		}
	case "checkpoint", "resume":
		if u.kernel != "" {
			return "applies to the primal and soft solvers only, not --kernel"
		}
	case "checkpoint-every":
		if !u.checkpoint {
			return "needs --checkpoint FILE"
		}
	case "true-gaps":
		if !u.heuristic {
			return "needs --heuristic (the gaps of the certified path are exact already)"
		}
	case "weights":
		if !u.out {
			return "needs --out FILE (the weights go into its JSON)"
		}
	}
	return ""
}

// checkUsed refuses the first flag of given (the names given explicitly on
// the command line, in order) that u does not use.
func checkUsed(given []string, u runUse) error {
	for _, name := range given {
		if why := u.flagUse(name); why != "" {
			return fmt.Errorf("--%s %s", name, why)
		}
	}
	return nil
}

// checkRun refuses an unknown --solver or --kernel, then the flags of
// given that a run of command with these data and solver flags does not
// use; extra completes the description of the run (stopping criteria,
// outputs).
func checkRun(command string, given []string, data *dataFlags, sf *solverFlags, kernelKind string, extra func(*runUse)) error {
	if err := sf.checkNames(kernelKind); err != nil {
		return err
	}
	if command == "path" && sf.algorithm != "bcfw" {
		return fmt.Errorf("--solver %s: path runs bcfw only (the path rescales its dual variables and stops on its gap estimates)", sf.algorithm)
	}
	kind, err := data.kind()
	if err != nil {
		return err
	}
	u := sf.use(command, kind, kernelKind)
	if extra != nil {
		extra(&u)
	}
	return checkUsed(given, u)
}

// checkEvalData refuses the data flags of given that the data eval loads
// (the model's, unless --data names other data) does not use.
func checkEvalData(given []string, data *dataFlags) error {
	kind, err := data.kind()
	if err != nil {
		return err
	}
	return checkUsed(given, runUse{command: "eval", data: kind})
}

// givenFlags returns the names of the flags set on fs so far, sorted.
func givenFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// kind returns the dataset or format the data flags select, as Load
// resolves it: auto is ocr when OCR is found (or a path is given), else
// synthetic; a path is what datasets.Recognize tells. It returns "" when
// the path cannot be recognized (loading it then says why).
func (d *dataFlags) kind() (string, error) {
	switch {
	case d.name == "auto":
		if d.path != "" {
			return "ocr", nil
		}
		_, err := datasets.Locate(datasets.OCR, "")
		switch {
		case errors.Is(err, datasets.ErrNotFound):
			return "synthetic", nil
		case err != nil:
			return "", err
		}
		return "ocr", nil
	case slices.Contains(datasets.Names, d.name):
		return d.name, nil
	}
	kind, err := datasets.Recognize(d.name)
	if err != nil {
		return "", nil
	}
	return kind, nil
}
