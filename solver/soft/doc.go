// Package soft trains structural SVMs over factor graphs with soft
// agreement constraints: the block-coordinate Frank-Wolfe algorithm of
// Meshi, Srebro and Hazan (2015), "Efficient training of structured SVMs
// via soft constraints", Alg. 1, on a *factorgraph.Model.
//
// # Objective
//
// The hard (LP-relaxed) training problem of Meshi's eq. 2 is
//
//	g(w, delta) = lambda/2 |w|^2 + 1/M sum_m [ sum_i max_{y_i} theta^m_i(y_i) + sum_c max_{y_c} theta^m_c(y_c) ],
//	theta^m_i = theta_i + sum_{c : i in c} delta_ci,   theta^m_c = theta_c - sum_{i in c} delta_ci,
//
// with theta^m the scores of the nodes reparameterized by the agreement
// variables delta. Its optimum g* is the optimum of the LP-relaxed
// structural SVM, the objective that BCFW reaches on the factorgraph.Relaxed
// view ("LP-hard"). The soft problem replaces the agreement constraints
// mu_c(y_i) = mu_i(y_i) of the local polytope (eq. 4) by the penalty
// rho/2 |A mu|^2 (eq. 5):
//
//	f_rho(mu) = l^T mu - lambda/2 |Psi mu|^2 - rho/2 |A mu|^2,   mu in a product of simplices,
//	g_rho(w, delta) = g(w, delta) + rho/2 |delta|^2                (eq. 6),
//
// with Psi_{m,alpha,y} = (phi_alpha(x^m, y^m_alpha) - phi_alpha(x^m, y)) /
// (lambda M), l_{m,alpha,y} = Delta_alpha(y, y^m_alpha) / M, (A mu)_{m,c,i,y}
// = (mu^m_c(y) - mu^m_i(y)) / (rho M), and the primal-dual map w = Psi mu,
// delta = A mu. By weak duality f_rho(mu) <= g*_rho <= g_rho(w, delta) for
// every mu, so the soft duality gap g_rho - f_rho certifies g_rho; and
// g* <= g*_rho, g(w, delta) <= g_rho(w, delta) (Meshi Thm. 4.1, 4.2).
//
// # Blocks and passes
//
// A block is a pair (m, alpha) of an example and a node of its graph: a
// variable or a factor (Graph.NumNodes blocks per example, numbered example
// by example, variables first). Each block's dual variables mu^m_alpha live
// on their own simplex, so Frank-Wolfe applies block by block (Alg. 1): a
// step computes the block's gradient, the reparameterized scores
// theta^m_alpha (lines 5, 10), takes the vertex s of its largest entry
// (lines 6, 11) and moves mu^m_alpha towards it with the exact line search
// (lines 7, 12, 14), updating w and delta in place (line 15, App. D).
//
// A pass is one step per block on average: Blocks() block steps (for Yeast,
// 1,500 examples x (14 variables + 91 pairs) = 157,500 steps). Pass in the
// trace is OracleCalls / Blocks(), where an oracle call is the maximization
// of one block's scores (lines 6 and 11), so that, as for the example-level
// solvers, a scheduled gap pass (which maximizes every block once) costs
// one pass and the passes of Stop.Passes include it. A pass of soft BCFW
// costs far less than a pass of LP-hard BCFW (one LP per example): compare
// solvers by time (run.Point.Seconds).
//
// # Step size (Alg. 1, lines 7 and 12)
//
// With d = s - mu^m_alpha the direction of the step, f_rho along
// mu + gamma d is the concave quadratic
//
//	f_rho(mu + gamma d) = f_rho(mu) + gamma grad^T d - gamma^2/2 (lambda |Psi d|^2 + rho |A d|^2),
//
// whose curvature lambda Psi^T Psi + rho A^T A (Meshi App. E) is positive
// semi-definite: the two terms add. With the scalings above, grad^T d =
// theta^T d / M, lambda |Psi d|^2 = |P|^2 / (lambda M^2) with P =
// NodePsi(d) (the unscaled column), and rho |A d|^2 = K / (rho M^2)
// with K = N_i |d|^2 for a variable i in N_i factors (every factor sees
// -d on its copy of y_i) and K = sum_{i in c} |A_ci d|^2 for a factor c
// (the marginals A_ci d). The maximizer over [0, 1] is therefore
//
//	gamma = clip( (theta^T d / M) / (|P|^2/(lambda M^2) + K/(rho M^2)), 0, 1 ),
//
// (gamma = 1 when the curvature vanishes and theta^T d > 0: f_rho is then
// linear along d). The extracted text of the paper prints a minus sign
// before the rho term of line 12; the Hessian shows that it is a plus, and
// the tests compare the closed form with a numeric line search.
//
// The updates of line 15 are those of App. D: w += gamma/(lambda M) P,
// delta_ci -= gamma/(rho M) d for every factor c of a variable i, and
// delta_ci += gamma/(rho M) A_ci d for every variable i of a factor c.
// The marginals mu are stored for every block (the flat tables of
// Graph.TableOffset, 392 numbers per Yeast example): the block gaps of gap
// sampling need theta^T mu. At every scheduled gap pass w and delta are
// recomputed from mu, so that rounding errors of the incremental updates do
// not accumulate (the example-level solver re-anchors its v alike).
//
// # Sampling
//
// Alg. 1 samples a block at random (line 3); its analysis (Meshi Cor. 5.2)
// assumes uniform draws, the default (Uniform). Permutation visits every
// block once a pass in a fresh random order, GapSampling draws blocks in
// proportion to their stale gaps (Osokin et al. 2016, Alg. 2).
// ExamplePermutation also visits every block once a pass, in an order
// drawn at random at every pass that keeps each example's blocks together:
// the examples in a random order, and each example's blocks (its
// variables and factors) one after another in a random order. It is still
// block-coordinate Frank-Wolfe with the steps of Alg. 1, and the soft gap
// certifies it as any other; what changes is the memory: a step finds its
// example's marginals, agreement variables and data in the cache, where a
// random block is a cache miss in megabytes of state. On Yeast (lambda =
// 0.01, rho = 1, seeds 1-3) a pass takes 22-24 ms instead of 40-42 ms under
// uniform sampling, and the hard objective of eq. 2 gets within 1% of the
// best one in 58, 55 and 44 passes instead of 69, 70 and 71: with seed 1,
// 11.6 times sooner than LP-hard BCFW instead of 5.5 times (Meshi's Fig. 2;
// go run ./tools/softfigs -exp fig2). BenchmarkYeastSoftPass
// times the passes of both orders.
//
// # Cost of a step
//
// A step on a block touches its own marginals, the agreement variables of
// its example and the weights of its node's features. The node kernels
// live in the internal package nodes, over the model's public accessors:
// the reparameterized scores (Reparam, from factorgraph.Model.Theta and
// per-state tables of the agreement variables, Layout.VarDeltas and the
// factors' tables behind Layout.MarginalizeScope), and P = NodePsi(d),
// kept in the compact form of slot coefficients (PsiSlotsNorm, then
// AddPsiSlots) when the node's terms span disjoint coordinates, without a
// sparse accumulator. The step size costs one division. The solver reads
// state early where it knows what comes next (prefetch.go): under uniform
// sampling, whose draws do not depend on the state, the blocks of the next
// batch, drawn from a copy of the generator; under ExamplePermutation, the
// whole state of the next example when a new example starts. Neither
// changes the trajectory: the iterates and the trace keep their bits.
//
// # Trace
//
// The trace uses the format of the family (run.Point). On the soft
// solver's points Primal, Dual and Gap are the
// SOFT objectives g_rho, f_rho and g_rho - f_rho: they form a certificate
// (Stop.Gap, gap sampling and the gap figures rely on that), which the hard
// quantities cannot (f_rho is no lower bound of g*). Rho is the penalty and
// HardPrimal the hard primal g(w, delta) of eq. 2 at the current (w,
// delta): the dashed curve of Meshi's Fig. 1 and the objective of Fig. 2.
// To compare with hard solvers, plot HardObjective: HardPrimal on soft
// points, Primal on the others (on the Relaxed view, BCFW's primal is
// min_delta g(w, delta), the same function minimized over delta, so it is
// at most the soft solver's HardPrimal at equal w). RelaxedPrimal evaluates
// that objective for the weights of any solver (e.g. exact BCFW's).
package soft
