package svmplus

import (
	"context"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/solver/gsmo"
)

func init() {
	fit, load := model.WrapBinary("svm1plus", fitSVM1Plus, loadBinary)
	model.Register("svm1plus", fit, load)
}

// trainSVM1 solves dual (2) with gsmo for the given blocks and kernels.
func trainSVM1(ctx context.Context, X, Z *mat.Dense, y []float64, kx, kz kernel.Kernel, C, lambda float64, opt model.Options, eps float64, maxIter int) (*binModel, *gsmo.Result, error) {
	n, _ := X.Dims()
	if _, err := checkKernelPSD(ctx, Z, kz, privilegedNotPSD("SVM1+", kz)); err != nil {
		return nil, nil, err
	}
	K, err := kernel.NewQIn(opt.Workspace, kx, X, nil, 0)
	if err != nil {
		return nil, nil, err
	}
	KT, err := kernel.NewQIn(opt.Workspace, kz, Z, nil, 0) // no added constant: ρ is a free offset (eq 1)
	if err != nil {
		return nil, nil, err
	}
	last := time.Now()
	res, err := gsmo.Solve(ctx, &gsmo.Problem{K: K, KT: KT, Y: y, C: C, Lambda: lambda}, gsmo.Options{
		Eps: eps, MaxIter: maxIter, Polish: true,
		Progress: func(iter int, viol float64) {
			if time.Since(last) > 5*time.Millisecond {
				opt.Report(model.Progress{Fraction: -1, Iter: iter, Stage: "generalised SMO", Message: fmt.Sprintf("violation %.3g", viol)})
				last = time.Now()
			}
		},
	})
	if err != nil {
		return nil, nil, err
	}
	rep := &model.Report{Model: "svm1plus", NTrain: n, Converged: res.Converged, Iterations: res.Iter, Objective: res.Obj}
	rep.Extras = map[string]float64{"C": C, "lambda": lambda, "rho_correcting": res.Rho, "violation": res.Violation, "polishes": float64(res.Polishes)}
	rep.SetRho(-res.B)
	if !res.Converged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("generalised SMO did not converge in %d iterations (violation %.3g)", res.Iter, res.Violation))
	}
	// ‖w‖² = (α∘y)ᵀK(α∘y) = Σ αᵢGᵢ. The dual objective is bounded below by
	// −Σαᵢ ≥ −nC; it reaches −nC (so w = 0 and f is a constant) whenever some
	// α ≥ 0 with Σα = nC, yᵀα = 0, Σαᵢyᵢφ(xᵢ) = 0 and K̃(α − C1) = 0 exists,
	// which a low-dimensional linear privileged kernel often allows.
	var w2, sa float64
	for i, a := range res.Alpha {
		w2 += a * (res.GradAlpha[i] - res.GradBeta[i] + 1) // Gᵢ = ∇αᵢ − ∇βᵢ + 1
		sa += a
	}
	if w2 <= 1e-6*sa && res.Obj <= -float64(n)*C*(1-1e-4) {
		rep.Warnings = append(rep.Warnings, "SVM1+ found the degenerate solution w = 0 (the correcting function absorbs every slack): the decision is a constant; try a richer privileged kernel (e.g. RBF) or SVM2+")
	}
	rep.Extras["w_norm2"] = w2
	rep.Diagnostics = map[string][]float64{
		"alpha": append([]float64(nil), res.Alpha...),
		"beta":  append([]float64(nil), res.Beta...),
		"slack": append([]float64(nil), res.Slack...),
	}
	return newBinModel(kx, X, y, res.Alpha, res.B, rep), res, nil
}

func fitSVM1Plus(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	start := time.Now()
	C, lambda, kx, kz, err := commonParams(train, y, v, "SVM1+")
	if err != nil {
		return nil, err
	}
	eps, maxIter := solverSettings(v)
	m, _, err := trainSVM1(ctx, train.X, train.Z, y, kx, kz, C, lambda, opt, eps, maxIter)
	if err != nil {
		return nil, err
	}
	m.Rep.Params = v.Clone()
	m.Rep.TrainSeconds = time.Since(start).Seconds()
	return m, nil
}
