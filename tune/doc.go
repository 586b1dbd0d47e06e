// Package tune chooses the regularization of a structural SVM in one call:
// lambda, and rho for the soft-constraint solver (solver/soft) or gamma for
// a kernel (solver/kernel), by k-fold or held-out validation on the
// training set, on the task's own metric (DefaultMetric: Hamming loss for
// multi-label data, chunk F1 for chunking, pixel accuracy for segmentation,
// error rate for multiclass data, the task loss otherwise), then trains
// the final model on the whole training set with the chosen values.
//
// Run takes loaded data (datasets.LoadData), whose Split rebuilds the
// folds with the preprocessing fitted on each fold's training part, and a
// method (run.Method: solver.BCFW, soft.BCFW, kernel.BCFW, ...) whose other
// settings every fit keeps; the second hyperparameter is set through the
// method's WithRho or WithGamma, the held-out examples are predicted by the
// fold's solver (run.Solver.Predict). The methods of BCFW's block steps in
// package solver walk the lambda grid from the largest value down,
// warm-started by run.Solver.SetLambda (Osokin et al. 2016, Prop. 1: w is
// kept and the dual variables rescaled, so the gaps stay certified); the
// other methods start every value cold. The Result holds the validation curve (every
// value computed, its metric on every fold, their mean and standard error,
// the gaps and primal objectives reached), the chosen value, the final
// solver and its test metric; Table and Figure (a viz.Figure) show the
// curve with the chosen value marked, and the Result marshals to JSON.
//
// Run's work is a Plan (NewPlan) of independent units (one value of the
// grid on one fold, or one fold's warm-started walk down the lambda grid),
// each fitted by Plan.Fit, their fits turned into the Result by
// Plan.Result: Run runs them in a loop, the module
// github.com/fwstruct/fwstruct/dist on the workers of a Beam runner, with
// the same results. Folds is the split of the training examples both use.
//
// The package sits above datasets and the solver packages and below the
// notebook layer (ssvmnb.Tune) and the command line (fwstruct tune).
package tune
