package model

import (
	"lupilab/models/data"
)

// Fitted is a trained model.
type Fitted interface {
	// Predict scores the rows of ds. It reads ds.X, and ds.Z for models whose
	// spec says Z: ZView. Labels / tags of ds are ignored.
	Predict(ds *data.Dataset) (*Prediction, error)
	// Report describes the fit: objective, iterations, support, diagnostics.
	Report() *Report
}

// Prediction holds a model's outputs for a set of rows.
type Prediction struct {
	// Labels is the predicted class index per row (classification).
	Labels []int `json:"labels,omitempty"`
	// Decision is, for binary tasks, the real-valued decision per row (> 0 ⇒
	// Classes[1]); for multi-class tasks the winning class's score.
	Decision []float64 `json:"decision,omitempty"`
	// Scores holds one score per class (multi-class) or per tag (multi-label)
	// per row, when the model has them.
	Scores [][]float64 `json:"scores,omitempty"`
	// Prob holds class probabilities per row (columns follow Classes) for
	// models with probability outputs; nil otherwise.
	Prob [][]float64 `json:"prob,omitempty"`
	// Tags holds the predicted tag set per row (multi-label).
	Tags [][]bool `json:"tags,omitempty"`
	// Views holds per-view binary decision values for two-view models, keyed
	// "A" and "B" (the combined rule is Decision).
	Views map[string][]float64 `json:"views,omitempty"`
}

// Report describes a fit. Fields a model does not have stay at zero values.
type Report struct {
	Model        string  `json:"model"`
	Params       Values  `json:"params"`
	NTrain       int     `json:"n_train"`
	TrainSeconds float64 `json:"train_seconds"`
	Converged    bool    `json:"converged"`
	Iterations   int     `json:"iterations"`
	// Objective is the dual objective in minimisation form (as LIBSVM's obj),
	// summed over binary sub-problems for multi-class wrappers; for GP models
	// the negative log marginal likelihood.
	Objective float64 `json:"objective"`
	NSupport  int     `json:"n_support"`
	// Rho is LIBSVM's rho (decision = Σ αᵢyᵢK(xᵢ,x) − rho) where defined;
	// Bias = −Rho.
	Rho *float64 `json:"rho,omitempty"`
	// Support lists the training-row indices of the support vectors.
	Support []int `json:"support,omitempty"`
	// Extras holds model-specific scalars, e.g. "log_marginal_likelihood".
	Extras map[string]float64 `json:"extras,omitempty"`
	// Diagnostics holds per-training-sample vectors for the UI, e.g. "alpha",
	// "slack" (SVM+ correcting function), "exp_g" (GPC+ noise), "dropped"
	// (twin SVM constraints removed), each of length NTrain.
	Diagnostics map[string][]float64 `json:"diagnostics,omitempty"`
	// Warnings are non-fatal problems (e.g. "did not converge in 10000
	// iterations"); the UI shows them.
	Warnings []string `json:"warnings,omitempty"`
	// Sub holds the reports of binary sub-problems (multi-class wrappers).
	Sub []*Report `json:"sub,omitempty"`
}

// SetRho stores rho.
func (r *Report) SetRho(rho float64) { r.Rho = &rho }
