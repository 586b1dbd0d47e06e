// Package nodes computes, node by node, what a block step of the
// soft-constraint solver (package soft: Meshi, Srebro and Hazan 2015,
// "Efficient training of structured SVMs via soft constraints", Alg. 1
// and App. D) needs from a factorgraph.Model: the reparameterized scores
// of a block, the columns Psi_{m,alpha} of its step, the layout of the
// agreement variables delta and the marginals A_ci that update them.
//
// Package factorgraph holds the model and the views the example-level
// solvers train on; these kernels are the soft solver's own, built on the
// model's public accessors (node scores, true states, loss tables, inputs
// and the graph's structure), and internal to it.
//
// # Blocks and agreement variables
//
// A block (m, alpha) is an example m and a node alpha of its graph, a
// variable i < NumVars or a factor c (factorgraph numbers the nodes
// variables first). Meshi's agreement variables delta_{c,i}(y_i), one per
// factor c, variable i of its scope and state y_i, are laid out per
// example by a Layout of its graph (shared by the examples of one graph):
// factor by factor, scope position by position, from DeltaOffset(c, j).
//
// # Node scores and steps
//
// Reparam gives the reparameterized scores of lines 5 and 10 of Alg. 1,
// theta^m_alpha plus or minus the agreement variables; their maximum over
// a node's states, summed over the nodes, is the bracket of example m in
// the primal g of Meshi's eq. 2. NodePsi gives the column Psi_{m,alpha}
// coef of eq. 3 (up to the factor 1/(lambda M)) as a sparse vector;
// PsiSlotsNorm gives the same vector in the compact form of slot
// coefficients with its squared norm, and AddPsiSlots adds it to w, in
// time linear in the node's inputs and without a sparse accumulator.
// Layout.MarginalizeScope is the map A_ci of eq. 5 for every variable of a
// factor, and Layout.VarDeltas lists the agreement variables of a
// variable (N_i of them, line 7).
//
// Prefetch and PrefetchExample read the model's data of a block or an
// example early, for a solver that knows what it visits next.
package nodes
