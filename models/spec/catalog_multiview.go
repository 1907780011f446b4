package spec

// The multi-view baselines of paper 001: SVM-2K, MvTSVM, PSVM-2V and MCPK
// (MPWTSVM itself is in catalog_twin.go, beside the twin SVMs it extends).

// RuleParam is the "rule" parameter every two-view SVM has.
func RuleParam() Param {
	return Param{Name: "rule", Label: "Decision rule", Kind: Choice, Default: "both",
		Choices: []string{"A", "B", "both"},
		Help:    "Which decision the model reports: view A alone sign(f_A), view B alone sign(f_B), or both sign(½(f_A+f_B)). Paper 001 picks the best by cross-validation."}
}

// The multi-view models share one naming scheme for their parameters:
//
//	C_A, C_B       penalties on view A's and view B's slacks
//	agreement      penalty on the views' disagreement (SVM-2K, PSVM-2V)
//	coupling       weight of the coupling term Σ ξᴬξᴮ (MCPK, MPWTSVM)
//	view_weight    the trade-off γ that weighs view B (PSVM-2V, MCPK, MPWTSVM)
//	C_pos, C_neg   MvTSVM's penalties in its positive- and negative-plane problems
//	agreement_pos, agreement_neg   MvTSVM's disagreement penalties
//
// The names the catalogue used before (C, CB, D, tradeoff, C2, H; ca, cb,
// c, gamma_b) stay as aliases: Resolve and the fits accept them.

// cParam is a positive, log-scale penalty parameter.
func cParam(name, label, def, help string, aliases ...string) Param {
	return Param{Name: name, Label: label, Kind: Float, Default: def, Min: 1e-5, Max: 1e5, Log: true, Help: help, Aliases: aliases}
}

// epsParam is the insensitivity ε of the |f_A − f_B| ≤ ε + η constraints.
func epsParam() Param {
	return Param{Name: "epsilon", Label: "ε", Kind: Float, Default: "0", Min: 0, Max: 10,
		Help: "Insensitivity of the view-agreement constraint |f_A − f_B| ≤ ε + η (0 = exact agreement is the target)."}
}

// twoViewKernels returns the kernels of both views: view A ("kernel",
// "gamma", …) and view B ("zkernel", "zgamma", …), RBF by default.
func twoViewKernels() []Param {
	return concat(KernelParams("", "Kernel (view A)", KernelRBF), KernelParams("z", "Kernel (view B)", KernelRBF))
}

func twoView(ps ...Param) []Param {
	return concat(ps, twoViewKernels(), []Param{RuleParam(), StrategyParam()})
}

func init() {
	register(&Spec{
		ID: "svm2k", Objective: "Dual objective", Name: "SVM-2K",
		Paper:     "Farquhar, Hardoon, Meng, Shawe-Taylor & Szedmak, Two view learning: SVM-2K, theory and practice, NIPS 2005",
		Equations: "SVM-2K primal and dual (section 2 of the NIPS 2005 paper); decision ½(f_A + f_B); per-view rules as in Xu & Wang §5.1",
		About: "Two SVMs, one per view, trained jointly: besides each view's hinge loss, the two views' outputs are asked to agree " +
			"(|f_A − f_B| ≤ ε + η, with D penalising the disagreement η) — the distance-minimisation form of kernel CCA folded into one QP.",
		Task: Binary, Family: FamilyMultiView, Z: ZView,
		Params: twoView(
			cParam("C_A", "C_A", "1", "Penalty C_A on view A's hinge slacks ξ^A.", "C"),
			cParam("C_B", "C_B", "1", "Penalty C_B on view B's hinge slacks ξ^B.", "CB"),
			cParam("agreement", "D (agreement)", "1", "Penalty D on the views' disagreement η (|f_A − f_B| ≤ ε + η).", "D"),
			epsParam(),
		),
		MultiClass: strategies, Support: "support vectors",
		Outputs: []Output{
			scalar("b_a", "Offset b_A", "Offset of view A's decision function."),
			scalar("b_b", "Offset b_B", "Offset of view B's decision function."),
			perSample("alpha_a", "Multiplier α_A", "The sample's multiplier of view A's margin constraint."),
			perSample("alpha_b", "Multiplier α_B", "The sample's multiplier of view B's margin constraint."),
			perSample("beta", "Agreement multiplier β", "The multiplier of the sample's view-agreement constraint |f_A − f_B| ≤ ε + η."),
		},
	})
	register(&Spec{
		ID: "mvtsvm", Objective: "Sum of the two dual objectives", Name: "MvTSVM",
		Paper:     "Xie & Sun, Multi-view twin support vector machines, Intelligent Data Analysis 19(4), 2015",
		Equations: "MvTSVM primal pair and duals (kernel version); nearest-plane rule per view and the mean distance for both views",
		About: "A twin SVM per view (one plane near each class, far from the other), trained jointly: the two views' projections " +
			"of the samples a plane must pass near are asked to agree.",
		Task: Binary, Family: FamilyMultiView, Z: ZView,
		Params: twoView(
			cParam("C_pos", "c₁ = c₂", "1", "Penalty on both views' slacks in the positive-plane problem.", "C"),
			cParam("C_neg", "c₃ = c₄", "1", "Penalty on both views' slacks in the negative-plane problem.", "C2"),
			cParam("agreement_pos", "D (agreement +)", "1", "Penalty on the views' disagreement on the positive samples (positive-plane problem).", "D"),
			cParam("agreement_neg", "H (agreement −)", "1", "Penalty on the views' disagreement on the negative samples (negative-plane problem).", "H"),
			epsParam(),
			Param{Name: "ridge", Advanced: true, Label: "Ridge", Kind: Float, Default: "1e-4", Min: 1e-10, Max: 1, Log: true,
				Help: "Ridge r added to EᵀE and FᵀF, which are singular in the kernel version."},
		),
		MultiClass: strategies,
	})
	register(&Spec{
		ID: "psvm2v", Objective: "Dual objective", Name: "PSVM-2V",
		Paper:     "Tang, Tian, Zhang & Liu, Multiview privileged support vector machines, IEEE TNNLS 29(8), 2018",
		Equations: "Xu & Wang eq (6) (PSVM-2V primal); dual derived from its Lagrangian; decision rules of Xu & Wang §5.1",
		About: "Two SVMs, one per view, where each view's slack is bounded by the other view's output (learning using privileged " +
			"information, with each view privileged for the other), plus SVM-2K's agreement constraint between the views.",
		Task: Binary, Family: FamilyMultiView, Z: ZView,
		Params: twoView(
			cParam("C_A", "C_A", "1", "Penalty C_A on view A's slacks ξ^A.", "C"),
			cParam("C_B", "C_B", "1", "Penalty C_B on view B's slacks ξ^B.", "CB"),
			cParam("agreement", "C (agreement)", "1", "Penalty on the views' disagreement η (the paper's C in eq 6).", "D"),
			cParam("view_weight", "γ (view B weight)", "1", "Trade-off γ between the two views' regularisers ½(‖w_A‖² + γ‖w_B‖²).", "tradeoff"),
			epsParam(),
		),
		MultiClass: strategies, Support: "support vectors",
		Outputs: []Output{
			perSample("alpha_a", "Multiplier α_A", "The sample's multiplier of view A's margin constraint."),
			perSample("alpha_b", "Multiplier α_B", "The sample's multiplier of view B's margin constraint."),
			perSample("lambda_a", "Correcting multiplier λ_A", "The multiplier of view A's privileged constraint (view B bounds view A's slack)."),
			perSample("lambda_b", "Correcting multiplier λ_B", "The multiplier of view B's privileged constraint."),
			perSample("beta", "Agreement multiplier β", "The multiplier of the sample's view-agreement constraint."),
		},
	})
	register(&Spec{
		ID: "mcpk", Objective: "Primal objective (non-convex)", Name: "MCPK",
		Paper:     "Tang, Tian, Liu & Kou, Coupling privileged kernel method for multi-view learning, Information Sciences 481, 2019",
		Equations: "MCPK primal (coupling term D Σ ξ^A ξ^B with privileged constraints) and its 6l-variable dual; solved by the convex–concave procedure",
		About: "Two SVMs, one per view, each view's slack bounded by the other view's output (privileged information), and a " +
			"coupling term D Σ ξ^A ξ^B that penalises samples both views get wrong.",
		Task: Binary, Family: FamilyMultiView, Z: ZView,
		Params: twoView(
			cParam("C_A", "C_A", "1", "Penalty C_A on view A's slacks ξ^A.", "C"),
			cParam("C_B", "C_B", "1", "Penalty C_B on view B's slacks ξ^B.", "CB"),
			cParam("coupling", "D (coupling)", "1", "Weight D of the coupling term D Σ ξ^A ξ^B.", "D"),
			cParam("view_weight", "γ (view B weight)", "1", "Trade-off γ between the two views' regularisers ½(‖w_A‖² + γ‖w_B‖²).", "tradeoff"),
			Param{Name: "ccp_iter", Advanced: true, Label: "CCP steps", Kind: Int, Default: "30", Min: 1, Max: 1000,
				Help: "Maximum convex–concave steps (each a convex QP) used to reach a KKT point of the non-convex problem."},
		),
		MultiClass: strategies, Support: "support vectors",
		Outputs: []Output{
			solverCount("ccp_steps", "Convex–concave steps", "Convex QPs solved by the convex–concave procedure."),
			solverCount("steps_in_6n", "Steps in the full dual", "Convex–concave steps that fell back to the full 6n-variable dual."),
			perSample("xi_a", "Slack ξ_A", "The sample's slack in view A."),
			perSample("xi_b", "Slack ξ_B", "The sample's slack in view B."),
		},
	})
}
