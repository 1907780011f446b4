package spec

// The multi-label family: paper 003's joint SVM and its baseline, one SVM
// per tag.

// Paper003 is the citation of paper 003.
const Paper003 = "H. Xiong, S. Szedmak, J. Piater: Joint SVM for Accurate and Fast Image Tagging (ESANN 2014)"

// Output kernels and prediction searches of the joint SVM (package joint
// uses the same names).
const (
	OutLinear         = "linear"
	OutGaussian       = "gaussian"
	OutPoly           = "poly"
	PredictTrainSets  = "trainsets"
	PredictExhaustive = "exhaustive"
)

// OutputKernelParams returns the output-kernel parameters of the joint SVM.
func OutputKernelParams() []Param {
	show := func(kinds ...string) map[string][]string { return map[string][]string{"okernel": kinds} }
	return []Param{
		{Name: "okernel", Label: "Output kernel", Kind: Choice, Default: OutGaussian,
			Choices: []string{OutGaussian, OutPoly, OutLinear},
			Help:    "Kernel on tag vectors y ∈ {−1,+1}^T: Gaussian with the tags' full covariance (eq 12), polynomial (⟨y,y'⟩/T + coef0)^degree, or linear ⟨y,y'⟩ (tags decouple)."},
		{Name: "osigma2", Label: "Output σ²", Kind: Float, Default: "2", Min: 1e-2, Max: 1e3, Log: true,
			Help: "Scale of the output Gaussian: mean variance of Σ = σ²((1−λ)C/mean var + λI), C the training tags' covariance.", ShowIf: show(OutGaussian)},
		{Name: "oreg", Advanced: true, Label: "Output λ", Kind: Float, Default: "0.1", Min: 0, Max: 1,
			Help: "Shrinkage of the tag covariance towards the identity (0: bare scaled covariance, 1: isotropic).", ShowIf: show(OutGaussian)},
		{Name: "odegree", Label: "Output degree", Kind: Int, Default: "3", Min: 1, Max: 6,
			Help: "Degree of the polynomial output kernel (the paper uses 3).", ShowIf: show(OutPoly)},
		{Name: "ocoef0", Label: "Output coef0", Kind: Float, Default: "1", Min: 0, Max: 100,
			Help: "Constant term of the polynomial output kernel.", ShowIf: show(OutPoly)},
	}
}

func init() {
	register(&Spec{
		ID: "jointsvm", Objective: "Dual objective",
		Name:      "Joint SVM (MMR)",
		Paper:     Paper003,
		Equations: "Xiong et al. 2014, dual (10) without the bias constraint (section 2.3), prediction (12)/(13)",
		About: "One SVM for all tags: a kernel on tag vectors (Gaussian with the tags' covariance, or polynomial) " +
			"couples the tags, and a single box-constrained dual — the cost of one SVM — is solved for all of them. " +
			"Predicts the training tag set that best matches W φ(x) (Maximum Margin Regression).",
		Task:   MultiLabel,
		Family: FamilyTags,
		Params: concat(
			[]Param{{Name: "C", Label: "C", Kind: Float, Default: "1", Min: 1e-3, Max: 1e4, Log: true,
				Help: "Upper bound on every multiplier αᵢ (misfit penalty)."}},
			KernelParams("", "Input kernel", KernelRBF),
			OutputKernelParams(),
			[]Param{{Name: "predict", Advanced: true, Label: "Prediction", Kind: Choice, Default: PredictTrainSets,
				Choices: []string{PredictTrainSets, PredictExhaustive},
				Help:    "Search the distinct training tag sets (eq 13) or every tag vector (eq 12, at most 12 tags)."}},
		),
		Support: "support vectors",
		Outputs: []Output{
			count("tags", "Tags", "Number of tags the model predicts."),
			count("label_sets", "Distinct tag sets", "Distinct tag sets in the training data: the candidates prediction (13) searches."),
			solverCount("gamma_rows", "Prediction table rows", "Rows of the table of output-kernel values kept for prediction."),
			Output{Key: "gamma_table_bytes", Label: "Prediction table size", Unit: "bytes", Solver: true, Integer: true,
				Help: "Memory of the output-kernel table kept for prediction."},
			perSample("alpha", "Dual coefficient α", "The sample's multiplier in the joint dual (10): > 0 for support vectors."),
		},
	})
	register(&Spec{
		ID: "indepsvm", Objective: "Sum of the tags' dual objectives",
		Name:      "Independent SVMs",
		Paper:     Paper003 + " (baseline)",
		Equations: "Xiong et al. 2014, eqs (4)-(6) once per tag",
		About: "One C-SVM (with bias) per tag, trained independently on the same kernel: the baseline of Xiong et al. 2014. " +
			"It ignores how tags co-occur and costs T SVM trainings.",
		Task:   MultiLabel,
		Family: FamilyTags,
		Params: concat([]Param{{Name: "C", Label: "C", Kind: Float, Default: "1", Min: 1e-3, Max: 1e4, Log: true,
			Help: "Cost of margin violations, the same for every tag's SVM."}}, KernelParams("", "Kernel", KernelRBF)),
		Support: "support vectors (any tag)",
		Outputs: append([]Output{count("tags", "Tags", "Number of tags, one SVM each.")}, svmOutputs()...),
	})
}
