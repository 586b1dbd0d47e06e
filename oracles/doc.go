// Package oracles holds the structured models of fwstruct: for each training
// example i, the joint feature map through psi_i(y) = phi(x_i, y_i) - phi(x_i, y),
// the task loss L_i(y), the max oracle (loss-augmented decoding) and the
// decoder used for prediction.
//
// A new structured task is one new Problem; nothing in the solvers changes.
// Labelings are []int32 for every model (a tag sequence, a class, a mask), so
// caches, active sets and serialization stay generic. Run
// oraclestest.CheckProblem (brute force on small instances, concurrent calls,
// deliberately broken problems as controls) in the tests of a new model.
//
// Notation follows Lacoste-Julien et al. (2013), eq. (2):
//
//	H_i(y; w) = L_i(y) - <w, psi_i(y)>,   max oracle: argmax_y H_i(y; w).
//
// # Layers
//
// fwstruct is built in layers, each knowing only the ones below it:
//
//   - models: this package (Problem and its optional interfaces, the chain,
//     multi-class, tabular, segmentation and matching models, approximate
//     oracles) and package factorgraph (models over factor graphs and their
//     exact, LP-relaxed and rounded views): features, losses and what an
//     oracle must return;
//   - inference: the packages under inference/ (Viterbi, max-flow, matching,
//     the LP), which the models' oracles call on tables of scores; they know
//     nothing of features, losses or solvers;
//   - solvers: package solver (BCFW and its variants, batch FW, SSG, the
//     cutting plane), solver/soft and solver/kernel, over the shared
//     vocabulary of solver/run; they see a model only through Problem (or a
//     factorgraph.Model for solver/soft), never files or plots;
//   - data: package datasets reads real formats into models and generates
//     synthetic ones;
//   - presentation: viz (figures), ssvmnb (the notebook layer, which the GoNB
//     notebooks use) and cmd/fwstruct drive any solver through run.Solver.
package oracles
