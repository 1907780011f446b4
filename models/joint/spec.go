package joint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
)

// Paper is the citation of paper 003.
const Paper = "H. Xiong, S. Szedmak, J. Piater: Joint SVM for Accurate and Fast Image Tagging (ESANN 2014)"

// OutputParamsSpec returns the output-kernel parameter specs of the joint SVM.
func OutputParamsSpec() []model.Param {
	show := func(kinds ...string) map[string][]string { return map[string][]string{"okernel": kinds} }
	return []model.Param{
		{Name: "okernel", Label: "Output kernel", Kind: model.Choice, Default: OutGaussian,
			Choices: []string{OutGaussian, OutPoly, OutLinear},
			Help:    "Kernel on tag vectors y ∈ {−1,+1}^T: Gaussian with the tags' full covariance (eq 12), polynomial (⟨y,y'⟩/T + coef0)^degree, or linear ⟨y,y'⟩ (tags decouple)."},
		{Name: "osigma2", Label: "Output σ²", Kind: model.Float, Default: "2", Min: 1e-2, Max: 1e3, Log: true,
			Help: "Scale of the output Gaussian: mean variance of Σ = σ²((1−λ)C/mean var + λI), C the training tags' covariance.", ShowIf: show(OutGaussian)},
		{Name: "oreg", Label: "Output λ", Kind: model.Float, Default: "0.1", Min: 0, Max: 1,
			Help: "Shrinkage of the tag covariance towards the identity (0: bare scaled covariance, 1: isotropic).", ShowIf: show(OutGaussian)},
		{Name: "odegree", Label: "Output degree", Kind: model.Int, Default: "3", Min: 1, Max: 6,
			Help: "Degree of the polynomial output kernel (the paper uses 3).", ShowIf: show(OutPoly)},
		{Name: "ocoef0", Label: "Output coef0", Kind: model.Float, Default: "1", Min: 0, Max: 100,
			Help: "Constant term of the polynomial output kernel.", ShowIf: show(OutPoly)},
	}
}

func jointParams() []model.Param {
	ps := []model.Param{{Name: "C", Label: "C", Kind: model.Float, Default: "1", Min: 1e-3, Max: 1e4, Log: true,
		Help: "Upper bound on every multiplier αᵢ (misfit penalty)."}}
	ps = append(ps, kernel.Params("", "Input kernel", kernel.RBF)...)
	ps = append(ps, OutputParamsSpec()...)
	ps = append(ps, model.Param{Name: "predict", Label: "Prediction", Kind: model.Choice, Default: PredictTrainSets,
		Choices: []string{PredictTrainSets, PredictExhaustive},
		Help:    "Search the distinct training tag sets (eq 13) or every tag vector (eq 12, at most 12 tags)."})
	return ps
}

// ParamsFromValues reads the joint SVM's settings from resolved values.
func ParamsFromValues(v model.Values) (Params, error) {
	k, err := kernel.FromValues(v, "")
	if err != nil {
		return Params{}, err
	}
	p := Params{Kernel: k, C: v.Float("C"), Predict: v.String("predict"),
		Output: OutputParams{Kind: v.String("okernel"), Sigma2: v.Float("osigma2"), Reg: v.Float("oreg"),
			Degree: v.Int("odegree"), Coef0: v.Float("ocoef0")}}
	return p, p.Output.Validate()
}

var jointSpec = &model.Spec{
	ID:        "jointsvm",
	Name:      "Joint SVM (MMR)",
	Paper:     Paper,
	Equations: "paper 003, dual (10) without the bias constraint (section 2.3), prediction (12)/(13)",
	About: "One SVM for all tags: a kernel on tag vectors (Gaussian with the tags' covariance, or polynomial) " +
		"couples the tags, and a single box-constrained dual — the cost of one SVM — is solved for all of them. " +
		"Predicts the training tag set that best matches W φ(x) (Maximum Margin Regression).",
	Task:   model.MultiLabel,
	Family: model.FamilyTags,
	Params: jointParams(),
}

func init() {
	jointSpec.Fit = fitJoint
	jointSpec.Load = loadJoint
	model.Register(jointSpec)
}

func fitJoint(ctx context.Context, train *data.Dataset, v model.Values, opt model.Options) (model.Fitted, error) {
	if train == nil {
		return nil, data.ErrNoData
	}
	v, err := jointSpec.Resolve(v)
	if err != nil {
		return nil, err
	}
	p, err := ParamsFromValues(v)
	if err != nil {
		return nil, err
	}
	if train.Tags == nil {
		return nil, errors.New("joint: the dataset has no tags: the joint SVM needs a multi-label dataset")
	}
	m, err := Train(ctx, train.X, train.Tags, train.TagNames, p, opt)
	if err != nil {
		return nil, err
	}
	m.report.Params = v.Clone()
	return m, nil
}

// saved is the JSON form of a fitted joint SVM.
type saved struct {
	Kernel  kernel.Kernel `json:"kernel"`
	Output  *OutputKernel `json:"output"`
	Tags    []string      `json:"tag_names,omitempty"`
	Predict string        `json:"predict"`
	Sets    [][]float64   `json:"label_sets"`
	SVX     *model.Matrix `json:"sv_x"`
	Alpha   []float64     `json:"alpha"`
	SVSet   []int         `json:"sv_set"`
	Report  *model.Report `json:"report"`
}

// MarshalJSON saves the model (see model.Save); the γ table is rebuilt on load.
func (m *Model) MarshalJSON() ([]byte, error) {
	return json.Marshal(saved{Kernel: m.kern, Output: m.out, Tags: m.tags, Predict: m.predict,
		Sets: m.sets, SVX: model.MatrixOf(m.svX), Alpha: m.alpha, SVSet: m.svSet, Report: m.report})
}

func loadJoint(raw json.RawMessage) (model.Fitted, error) {
	var s saved
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	if err := s.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	if err := s.Output.Validate(); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	X, err := s.SVX.Dense()
	if err != nil || X == nil {
		return nil, fmt.Errorf("jointsvm: support vectors: %v", err)
	}
	nsv, _ := X.Dims()
	if len(s.Alpha) != nsv || len(s.SVSet) != nsv || len(s.Sets) == 0 {
		return nil, errors.New("jointsvm: malformed saved model (support vectors, multipliers and label sets disagree)")
	}
	for _, y := range s.Sets {
		if len(y) != s.Output.T {
			return nil, errors.New("jointsvm: malformed saved label set")
		}
		for _, v := range y {
			if v != 1 && v != -1 {
				return nil, errors.New("jointsvm: saved label sets must hold ±1")
			}
		}
	}
	for i, k := range s.SVSet {
		if k < 0 || k >= len(s.Sets) || !(s.Alpha[i] >= 0) {
			return nil, errors.New("jointsvm: malformed saved support vector")
		}
	}
	if s.Predict == PredictExhaustive && s.Output.T > MaxExhaustiveTags {
		return nil, errors.New("jointsvm: exhaustive prediction with too many tags")
	}
	if s.Report == nil {
		s.Report = &model.Report{Model: "jointsvm"}
	}
	m := &Model{kern: s.Kernel, out: s.Output, tags: s.Tags, predict: s.Predict, sets: s.Sets,
		svX: X, alpha: s.Alpha, svSet: s.SVSet, report: s.Report}
	m.buildGamma(nil)
	return m, nil
}
