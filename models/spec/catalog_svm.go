package spec

// The SVM family: the SVM and L2-SVM (baselines) and paper 000's SVM1+ and
// SVM2+.

// Paper000 is the citation of paper 000 (SVM2+).
const Paper000 = "X. Xu, J. T. Zhou, I. W. Tsang, Z. Qin, R. S. M. Goh, Y. Liu: Simple and Efficient Learning using Privileged Information (arXiv:1604.01518)"

// SVMParams returns the hyper-parameters of "svm" and "l2svm": C, the kernel
// on X, class weights, probability, solver settings and the multi-class
// strategy (also for packages that train SVMs as building blocks).
func SVMParams() []Param {
	ps := []Param{
		{Name: "C", Label: "C", Kind: Float, Default: "1", Min: 1e-5, Max: 1e5, Log: true,
			Help: "Cost of margin violations: larger C fits the training data more closely."},
	}
	ps = append(ps, KernelParams("", "Kernel", KernelRBF)...)
	return append(ps,
		Param{Name: "wpos", Advanced: true, Label: "Class 1 weight", Kind: Float, Default: "1", Min: 1e-3, Max: 1e3, Log: true,
			Help: "Multiplies C for the second class (class 1 in the data, +1 to the solver); LIBSVM's -w1."},
		Param{Name: "wneg", Advanced: true, Label: "Class 0 weight", Kind: Float, Default: "1", Min: 1e-3, Max: 1e3, Log: true,
			Help: "Multiplies C for the first class (class 0 in the data, −1 to the solver); LIBSVM's -w-1."},
		Param{Name: "balanced", Advanced: true, Label: "Balanced weights", Kind: Bool, Default: "false",
			Help: "Weight each class by n/(2·n_class) (n training rows, n_class of them in the class), so the smaller class counts as much as the larger; used in place of the two class weights above."},
		Param{Name: "probability", Advanced: true, Label: "Probabilities", Kind: Bool, Default: "false",
			Help: "Fit Platt's sigmoid on 5-fold cross-validated decision values (LIBSVM -b 1; folds drawn from the seed)."},
		Param{Name: "eps", Advanced: true, Label: "Tolerance", Kind: Float, Default: "0.001", Min: 1e-12, Max: 1, Log: true,
			Help: "SMO stopping tolerance on the maximal KKT violation (LIBSVM -e)."},
		Param{Name: "shrinking", Advanced: true, Label: "Shrinking", Kind: Bool, Default: "true",
			Help: "LIBSVM's shrinking heuristic (same solution, usually faster)."},
		Param{Name: "cache", Advanced: true, Label: "Cache (MB)", Kind: Float, Default: "100", Min: 1, Max: 1e5, Log: true,
			Help: "Kernel-row cache budget in MiB (LIBSVM -m)."},
		Param{Name: "precision", Advanced: true, Label: "Cache precision", Kind: Choice, Default: "single", Choices: []string{"single", "double"},
			Help: "Store cached kernel rows in single precision as LIBSVM does (half the memory, LIBSVM's solution) or in double precision (the exact problem)."},
		Param{Name: "max_iter", Advanced: true, Label: "Max iterations", Kind: Int, Default: "0", Min: 0, Max: 1e9,
			Help: "SMO iteration bound; 0 means max(10⁷, 100n). Hitting it reports converged = false."},
		StrategyParam(),
	)
}

// svmOutputs are what an SVM fit reports (also each tag's SVM of
// "indepsvm").
func svmOutputs() []Output {
	return []Output{
		count("n_free_sv", "Free support vectors", "Support vectors strictly inside the box 0 < α < C: they lie on the margin."),
		count("n_bounded_sv", "Bounded support vectors", "Support vectors with α = C: margin violators (inside the margin or misclassified)."),
		solver("max_violation", "Final KKT violation", "The largest violation of the optimality conditions when SMO stopped (below the tolerance when converged)."),
		solver("platt_a", "Platt slope A", "Slope of Platt's sigmoid P(y=1|f) = 1/(1+exp(A·f+B)), fitted on cross-validated decisions."),
		solver("platt_b", "Platt offset B", "Offset of Platt's sigmoid."),
		perSample("alpha", "Dual coefficient α", "The sample's Lagrange multiplier: 0 for points beyond the margin, > 0 for support vectors."),
		perSample("slack", "Slack ξ", "How far the sample violates the margin: max(0, 1 − y·f(x))."),
	}
}

func svmPlusParams(lossHelp, lambdaHelp string) []Param {
	return concat(
		[]Param{
			{Name: "C", Label: "C", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true, Help: lossHelp},
			{Name: "lambda", Label: "λ", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true, Help: lambdaHelp},
		},
		// RBF by default, like the SVM's: with a linear privileged kernel of
		// low dimension the optimum is often the degenerate w = 0 (a constant
		// slack for everyone is cheapest; cvxopt agrees on lupi2d). The
		// paper's experiments use linear kernels and `lupi experiment
		// svm2plus` sets them.
		KernelParams("", "Kernel", KernelRBF),
		KernelParams("z", "Privileged kernel", KernelRBF),
		[]Param{
			{Name: "eps", Advanced: true, Label: "Tolerance", Kind: Float, Default: "0.001", Min: 1e-12, Max: 1, Log: true,
				Help: "Stopping tolerance on the maximal KKT violation (as LIBSVM's -e)."},
			{Name: "max_iter", Advanced: true, Label: "Max iterations", Kind: Int, Default: "0", Min: 0, Max: 1e9,
				Help: "Solver iteration bound; 0 means max(10⁷, 100n). Hitting it reports converged = false."},
			StrategyParam(),
		},
	)
}

func svmPlusOutputs() []Output {
	return []Output{
		solver("C", "C used", "The C of this fit."),
		solver("lambda", "λ used", "The λ of this fit."),
		scalar("w_norm2", "‖w‖²", "Squared norm of the decision function in the kernel's feature space (the margin is 2/‖w‖)."),
		solver("violation", "Final KKT violation", "The largest violation of the optimality conditions when the solver stopped."),
		solverCount("polishes", "Newton polishes", "Newton steps on the free set that finished the solve."),
		perSample("alpha", "Dual coefficient α", "The sample's Lagrange multiplier: > 0 for support vectors."),
		perSample("slack", "Correcting value ξ = g(z)", "The slack the correcting function predicts from the sample's privileged features: large for samples the teacher calls hard."),
	}
}

func init() {
	register(&Spec{
		ID: "svm", Objective: "Dual objective", Name: "SVM",
		Paper:     "Cortes & Vapnik (1995), Support-vector networks; solver: Fan, Chen & Lin (2005), JMLR 6; LIBSVM (Chang & Lin 2011)",
		Equations: "C-SVM dual (Cortes & Vapnik 1995; LIBSVM, Chang & Lin 2011, eq. (2)): min ½αᵀ(yyᵀ∘K)α − 1ᵀα s.t. yᵀα = 0, 0 ≤ αᵢ ≤ Cᵢ",
		About:     "The kernel support vector machine with the hinge loss, trained by SMO with second-order working-set selection (Fan, Chen & Lin 2005) as in LIBSVM. It uses the main features only and is the baseline every LUPI and multi-view model is compared with.",
		Task:      Binary, Family: FamilySVM, Z: ZNone,
		Params: SVMParams(), MultiClass: strategies,
		Support: "support vectors", Outputs: svmOutputs(),
	})
	register(&Spec{
		ID: "l2svm", Objective: "Dual objective", Name: "L2-SVM",
		Paper:     "Cortes & Vapnik (1995), Support-vector networks; solver: Fan, Chen & Lin (2005), JMLR 6; LIBSVM (Chang & Lin 2011)",
		Equations: "L2-SVM dual (squared hinge; Hsieh et al. 2008, eq. (4), with the bias kept): min ½αᵀ(yyᵀ∘(K + I/(2Cᵢ)))α − 1ᵀα s.t. yᵀα = 0, αᵢ ≥ 0",
		About:     "The support vector machine with the squared hinge loss Σ Cᵢξᵢ². Its dual has no upper bound on α; SVM2+ with each sample as its own privileged feature reduces to it (Xu et al. 2016).",
		Task:      Binary, Family: FamilySVM, Z: ZNone,
		Params: SVMParams(), MultiClass: strategies,
		Support: "support vectors", Outputs: svmOutputs(),
	})
	register(&Spec{
		ID: "svm1plus", Objective: "Dual objective", Name: "SVM1+", Paper: Paper000 + "; Vapnik & Vashist (2009)",
		Equations: "Xu et al. 2016, eqs (1)-(2)",
		About: "Vapnik's SVM+ with the hinge loss: slacks ξᵢ = g(zᵢ) = v'zᵢ + ρ ≥ 0 come from a correcting function on privileged features. " +
			"Its dual has 2n variables and two equality constraints; LUPI Lab solves it with a generalised SMO (three kinds of working direction).",
		Task: Binary, Family: FamilySVM, Z: ZPrivileged,
		Params: svmPlusParams("Weight C of the slacks Σξᵢ (Xu et al. 2016 eq 1).",
			"Regularisation λ/2‖v‖² of the correcting function g(z) = v'z + ρ (eq 1)."),
		MultiClass: strategies, Support: "support vectors",
		Outputs: append(svmPlusOutputs(),
			solver("rho_correcting", "Correcting offset ρ", "The offset ρ of the correcting function g(z) = v'z + ρ."),
			perSample("beta", "Correcting multiplier β", "The sample's multiplier of the constraint ξᵢ = g(zᵢ) ≥ 0 (β = 0 where the correcting value is positive)."),
		),
	})
	register(&Spec{
		ID: "svm2plus", Objective: "Dual objective", Name: "SVM2+", Paper: Paper000,
		Equations: "Xu et al. 2016, eqs (3)-(5), Proposition 1, footnote 1",
		About: "SVM+ with the squared hinge loss: the slack of each training sample is predicted by a correcting function g(z) on privileged features seen only in training. " +
			"Its dual is a standard SVM dual (no upper bound on α) with kernel K + Qλ∘yyᵀ, solved by SMO; prediction uses x only.",
		Task: Binary, Family: FamilySVM, Z: ZPrivileged,
		Params: svmPlusParams("Weight C/2 of the squared slacks Σξᵢ² (Xu et al. 2016 eq 3).",
			"Regularisation λ/2‖v‖² of the correcting function g(z) = v'z (eq 3); large λ trusts the privileged space less (λ → ∞ gives the hard-margin SVM)."),
		MultiClass: strategies, Support: "support vectors",
		Outputs: append(svmPlusOutputs(),
			Output{Key: "qlambda_seconds", Label: "Qλ time", Unit: "s", Solver: true, Help: "Time spent forming the privileged matrix Qλ of eq (5)."},
			solverCount("qlambda_rank", "Qλ rank", "Rank of the pivoted Cholesky factor of the privileged kernel when Qλ is formed in low rank."),
			solverCount("qlambda_shared", "Qλ reused", "1 when Qλ was reused from the previous one-vs-rest task on the same privileged data."),
		),
	})
}
