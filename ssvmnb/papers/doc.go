// Package papers reproduces, in a notebook, the figures of the papers
// fwstruct implements, on top of the sessions, trainers and generic
// figures of package ssvmnb. One function or type per figure; each says
// which figure of which paper it draws.
//
// Lacoste-Julien, Jaggi, Schmidt and Pletscher (2013), "Block-Coordinate
// Frank-Wolfe Optimization for Structural SVMs": Figure1 runs BCFW,
// BCFW-wavg, SSG, SSG-wavg, batch FW and the cutting-plane method of Fig. 1
// (primal suboptimality and test error against effective passes, one panel
// per lambda; test error as in Fig. 3 of the appendix) and, on request,
// the averages and online EG of Fig. 3 and 4 of the appendix
// (Figure1AppendixMethods).
//
// Meshi, Srebro and Hazan (2015), "Efficient Training of Structured SVMs
// via Soft Constraints": SoftObjectives draws Fig. 1 (left), the soft
// primal and dual and the hard primal of soft runs; SweepRho and its
// RhoSweepResult draw Fig. 1 (right), the objectives against rho at fixed
// budgets; HardRun, HardObjectives, Accuracies and Reaches draw Fig. 2,
// the hard objective and the test accuracy of soft and LP-hard runs.
//
// Shah, Kolmogorov and Lampert (2015), "A Multi-Plane Block-Coordinate
// Frank-Wolfe Algorithm for Training Structural SVMs with a Costly
// max-Oracle": Suboptimality draws Fig. 4 and 5 (primal suboptimality
// against oracle calls and time, with BestDual as the reference),
// WorkingSets Fig. 6 (working-set size and approximate passes per outer
// iteration), OracleShareTable the share of the time spent in the exact
// oracle (Sec. 4.1), SuboptimalityTable the numbers behind Fig. 4 and 5.
//
// Osokin, Alayrac, Lukasewitz, Dokania and Lacoste-Julien (2016), "Minding
// the Gaps for Block Frank-Wolfe Optimization of Structured SVMs":
// PathCost draws Fig. 4, 7a and 8 (the cost to reach every lambda along a
// regularization path and by grid search), PathGaps Fig. 7b (the gaps at
// the breakpoints), KappaSweep and PathTable compare paths of several
// kappa. The gap-sampling, cache and gap-every experiments of Fig. 1-3 are
// generic sweeps and comparisons of package ssvmnb (Seeds, Compare,
// GapEverySweep, CacheSweep).
package papers
