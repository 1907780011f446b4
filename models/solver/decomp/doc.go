// Package decomp is the decomposition engine of LUPI Lab's SMO-type
// solvers, after LIBSVM's Solver (Chang & Lin 2011, "LIBSVM: a library for
// support vector machines", ACM TIST 2(3), §4–5): a loop that moves a few
// variables at a time, with the working-set selection and the equality
// constraints it keeps supplied by a Policy. Two policies use it:
//
//   - lupilab/models/solver/smo: SVM-form duals (one equality yᵀα = Δ, or
//     none) by WSS2 pairs or greedy coordinates, with shrinking — the
//     C-SVM, the L2-SVM, SVM2+ and the joint SVM;
//   - lupilab/models/solver/gsmo: SVM1+'s dual (two equalities) by the five
//     kinds of sparse direction that keep both.
//
// The engine owns what they share:
//
//   - Matrix (matrix.go): the rows of a positive semi-definite matrix on
//     demand, one interface with the optional SubRower, SubRower32 and
//     Factored, which kernel.QMatrix and the models' matrices implement;
//   - Cache (cache.go): an LRU cache of rows under a memory budget, indexed
//     by position (shrinking permutes them), in float64 or float32; Rows
//     serves whole rows through it;
//   - the Newton polish (polish.go, newton.go): active-set Newton steps on
//     the face of the free variables under the equalities, with a ratio
//     test, in rounds widened by the violators, which a policy drives
//     through Face;
//   - Run (engine.go): the iteration loop — cancellation, progress, the
//     iteration limit, the shrinking cadence, the polish schedule the
//     policy sets, the final optimality check.
//
// How a policy keeps its iterate is its own affair (smo permutes α and ∇
// by position; gsmo keeps the two gradient blocks of (α, β) apart, so that
// a β step touches n entries rather than 2n).
package decomp
