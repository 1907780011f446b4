package spec

// The twin-SVM family (TWSVM, WLTSVM) and paper 001's MPWTSVM, which the
// catalogue files under the multi-view family because it needs two views.

// Citations of paper 001 (MPWTSVM) and of the twin SVM it builds on.
const (
	Paper001   = "R. Xu, H. Wang, Multi-view learning with privileged weighted twin support vector machine, arXiv:2201.11306 (2022)"
	PaperTWSVM = "Jayadeva, R. Khemchandani, S. Chandra, Twin support vector machines for pattern classification, IEEE TPAMI 29(5) (2007)"
)

func twinParams() []Param {
	return []Param{
		{Name: "C", Label: "C", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true,
			Help: "Penalty on the slacks of both twin problems (c₁ = c₂)."},
		{Name: "eps", Advanced: true, Label: "Ridge ε", Kind: Float, Default: "1e-6", Min: 1e-12, Max: 1, Log: true,
			Help: "Ridge added to XᵀDX (relative to its mean diagonal) where it is singular — always for kernels."},
	}
}

func twinOutputs() []Output {
	return []Output{
		scalar("norm_pos", "‖w₊‖", "Norm of the positive class's plane: its distances are divided by it."),
		scalar("norm_neg", "‖w₋‖", "Norm of the negative class's plane."),
		scalar("b_pos", "Offset b₊", "Offset of the positive class's plane."),
		scalar("b_neg", "Offset b₋", "Offset of the negative class's plane."),
		scalar("w_pos_*", "Weight of the + plane", "A coordinate of the positive plane's normal (linear kernel, up to three features)."),
		scalar("w_neg_*", "Weight of the − plane", "A coordinate of the negative plane's normal (linear kernel, up to three features)."),
		Output{Key: "dropped_fraction", Label: "Dropped constraints", Unit: "fraction",
			Help: "Share of the other class's samples whose constraint was dropped as redundant (not among the k nearest neighbours)."},
		scalar("objective_pos", "Objective (+ plane)", "Dual objective of the positive plane's problem."),
		scalar("objective_neg", "Objective (− plane)", "Dual objective of the negative plane's problem."),
		solver("kkt_violation", "Final KKT violation", "The larger of the two problems' final KKT violations."),
		solver("ridge_pos", "Ridge (+ plane)", "The ridge actually added to the positive plane's system."),
		solver("ridge_neg", "Ridge (− plane)", "The ridge actually added to the negative plane's system."),
		perSample("alpha", "Dual coefficient α", "The sample's multiplier in the other class's plane problem: > 0 where it pushes that plane away."),
		perSample("dropped", "Dropped constraint", "1 when the sample's constraint was dropped (not a k-nearest neighbour of the other class)."),
		perSample("weight", "Graph weight d", "The within-class k-nearest-neighbour weight of the sample in its own plane's fit (1 for TWSVM)."),
	}
}

func init() {
	register(&Spec{
		ID: "twsvm", Objective: "Sum of the two planes' dual objectives", Name: "TWSVM", Paper: PaperTWSVM,
		Equations: "Jayadeva et al. 2007 (TWSVM primal/dual pairs); Xu & Wang eqs (4)-(5) with all dⱼ = fⱼ = 1; decision as (33)",
		About: "Twin SVM: two non-parallel planes (or kernel surfaces), each as close as possible to its own class and at least 1 away from the other; " +
			"a point goes to the class whose plane is nearer. Each plane solves a box-constrained dual by coordinate descent.",
		Task: Binary, Family: FamilyTwin, Z: ZNone,
		Params:     concat(twinParams(), KernelParams("", "Kernel", KernelLinear), []Param{StrategyParam()}),
		MultiClass: strategies, Support: "samples with α > 0", Outputs: twinOutputs(),
	})
	register(&Spec{
		ID: "wltsvm", Objective: "Sum of the two planes' dual objectives", Name: "WLTSVM", Paper: "Q. Ye, C. Zhao, S. Gao, H. Zheng, Weighted twin support vector machines with local information and its application, Neural Networks 35 (2012); as restated in " + Paper001,
		Equations: "Xu & Wang eqs (1)-(5)",
		About: "Weighted twin SVM with local information: each plane's squared residuals are weighted by a within-class k-nearest-neighbour graph, " +
			"and only the other class's samples that are k-nearest neighbours of the plane's class keep a constraint (the others are dropped as redundant).",
		Task: Binary, Family: FamilyTwin, Z: ZNone,
		Params: concat(twinParams(), []Param{{Name: "k", Label: "k (neighbours)", Kind: Int, Default: "5", Min: 1, Max: 1000,
			Help: "Neighbours in the within-class graph (weights dⱼ) and the between-class graph (kept constraints fⱼ)."}},
			KernelParams("", "Kernel", KernelLinear), []Param{StrategyParam()}),
		MultiClass: strategies, Support: "samples with α > 0", Outputs: twinOutputs(),
	})

	params := []Param{
		{Name: "C_A", Label: "C_A", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true, Help: "Penalty on view A's slacks ξᴬ (C_A = C_A2).", Aliases: []string{"ca"}},
		{Name: "C_B", Label: "C_B", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true, Help: "Penalty on view B's slacks ξᴮ (C_B = C_B2).", Aliases: []string{"cb"}},
		{Name: "coupling", Label: "C (coupling)", Kind: Float, Default: "1", Min: 0, Max: 1e4, Aliases: []string{"c"},
			Help: "Weight of the consensus term CΣξᴬξᴮ (C = C_2); 0 removes the coupling."},
		{Name: "view_weight", Label: "γ (view B weight)", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true, Aliases: []string{"gamma_b"},
			Help: "Trade-off γ on view B's proximity term in (10)/(11) (not the kernel width)."},
		{Name: "k", Label: "k (neighbours)", Kind: Int, Default: "5", Min: 1, Max: 1000, Help: "Neighbours of the within- and between-class graphs, per view (eqs 7-9)."},
		{Name: "rule", Label: "Decision rule", Kind: Choice, Default: "both", Choices: []string{"both", "A", "B"},
			Help: "Which rule gives the decision: view A (33), view B (34) or both views (35). Per-view values are always reported."},
		{Name: "correcting", Label: "Correcting constraints", Kind: Bool, Default: "true",
			Help: "Keep the privileged constraints ξᴬ ≥ −fᴮ(wᴮ·x̃ᴮ), ξᴮ ≥ −fᴬ(wᴬ·x̃ᴬ); off (with C = 0) gives two independent WLTSVMs."},
		{Name: "eps", Advanced: true, Label: "Ridge ε", Kind: Float, Default: "1e-6", Min: 1e-12, Max: 1, Log: true,
			Help: "Ridge added to XᵀDX (relative to its mean diagonal), as in (27)-(28)."},
	}
	params = concat(params, KernelParams("", "Kernel", KernelRBF), []Param{StrategyParam()})
	register(&Spec{
		ID: "mpwtsvm", Objective: "Primal objective of (10) + (11)", Name: "MPWTSVM", Paper: Paper001,
		Equations: "Xu & Wang eqs (7)-(11), duals (31)-(32), kernel version (36)-(39), decision rules (33)-(35)",
		About: "Multi-view privileged weighted twin SVM: a WLTSVM per view whose slacks are bounded by the other view's plane (each view is the other's privileged information) " +
			"and coupled by CΣξᴬξᴮ. Its dual is a non-convex QP, solved to a KKT point by block coordinate descent.",
		Task: Binary, Family: FamilyMultiView, Z: ZView,
		Params: params, MultiClass: strategies, Support: "samples with a non-zero multiplier",
		Outputs: []Output{
			scalar("norm_A+", "‖w₊ᴬ‖", "Norm of view A's positive plane; near 0 means the view's plane collapsed."),
			scalar("norm_A-", "‖w₋ᴬ‖", "Norm of view A's negative plane."),
			scalar("norm_B+", "‖w₊ᴮ‖", "Norm of view B's positive plane."),
			scalar("norm_B-", "‖w₋ᴮ‖", "Norm of view B's negative plane."),
			Output{Key: "train_accuracy_A", Label: "View A rule, training accuracy", Unit: "fraction", Help: "Share of the training rows view A's own rule (33) classifies right (the per-view test accuracy: multiview.PerViewAccuracy)."},
			Output{Key: "train_accuracy_B", Label: "View B rule, training accuracy", Unit: "fraction", Help: "Share of the training rows view B's own rule (34) classifies right; far below view A's means view B gave way to the coupling."},
			Output{Key: "train_accuracy_A_c0", Label: "View A rule at C = 0", Unit: "fraction", Help: "View A's training accuracy without the coupling (the C = 0 solution the solver starts from), for comparison."},
			Output{Key: "train_accuracy_B_c0", Label: "View B rule at C = 0", Unit: "fraction", Help: "View B's training accuracy without the coupling (the C = 0 solution the solver starts from), for comparison."},
			scalar("plane_shrink_A", "View A plane shrink", "The larger ‖ω‖ of view A's two planes relative to the C = 0 solution; below 1e-6 the view's planes collapsed."),
			scalar("plane_shrink_B", "View B plane shrink", "The larger ‖ω‖ of view B's two planes relative to the C = 0 solution; below 1e-6 the view's planes collapsed."),
			scalar("primal_objective_10", "Objective of (10)", "Primal objective of the positive planes' problem (10)."),
			scalar("primal_objective_11", "Objective of (11)", "Primal objective of the negative planes' problem (11)."),
			Output{Key: "dropped_fraction", Label: "Dropped constraints", Unit: "fraction", Help: "Share of samples whose constraints were dropped in both views."},
			Output{Key: "dropped_fraction_A", Label: "Dropped in view A", Unit: "fraction", Help: "Share of samples whose view-A constraint was dropped."},
			Output{Key: "dropped_fraction_B", Label: "Dropped in view B", Unit: "fraction", Help: "Share of samples whose view-B constraint was dropped."},
			solver("kkt_residual_10", "KKT residual of (10)", "Largest violation of problem (10)'s KKT conditions at the returned point."),
			solver("kkt_residual_11", "KKT residual of (11)", "Largest violation of problem (11)'s KKT conditions at the returned point."),
			solverCount("rounds_10", "Rounds on (10)", "Block coordinate-descent rounds spent on problem (10)."),
			solverCount("rounds_11", "Rounds on (11)", "Block coordinate-descent rounds spent on problem (11)."),
			solver("ridge_A+", "Ridge (A+)", "Ridge added to view A's positive-plane system."),
			solver("ridge_A-", "Ridge (A−)", "Ridge added to view A's negative-plane system."),
			solver("ridge_B+", "Ridge (B+)", "Ridge added to view B's positive-plane system."),
			solver("ridge_B-", "Ridge (B−)", "Ridge added to view B's negative-plane system."),
			perSample("alpha", "Multiplier α", "αᴬ + αᴮ: how hard the sample pushes the other class's planes away."),
			perSample("alpha_A", "Multiplier αᴬ", "The sample's multiplier of view A's margin constraint."),
			perSample("alpha_B", "Multiplier αᴮ", "The sample's multiplier of view B's margin constraint."),
			perSample("lambda_A", "Correcting multiplier λᴬ", "The multiplier of view A's privileged constraint (view B bounds view A's slack)."),
			perSample("lambda_B", "Correcting multiplier λᴮ", "The multiplier of view B's privileged constraint."),
			perSample("xi_A", "Slack ξᴬ", "The sample's slack in view A."),
			perSample("xi_B", "Slack ξᴮ", "The sample's slack in view B."),
			perSample("dropped", "Dropped constraint", "1 when the sample's constraints were dropped in both views."),
			perSample("dropped_A", "Dropped in view A", "1 when the sample's view-A constraint was dropped."),
			perSample("dropped_B", "Dropped in view B", "1 when the sample's view-B constraint was dropped."),
			perSample("weight_A", "Graph weight dᴬ", "The within-class neighbour weight of the sample in view A."),
			perSample("weight_B", "Graph weight dᴮ", "The within-class neighbour weight of the sample in view B."),
		},
	})
}
