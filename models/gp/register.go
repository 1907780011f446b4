package gp

import (
	"encoding/json"
	"fmt"

	"lupilab/models/model"
)

const paper002 = "D. Hernández-Lobato, V. Sharmanska, K. Kersting, C. H. Lampert, N. Quadrianto: Mind the Nuisance: Gaussian Process Classification using Privileged Noise. NIPS 2014"

func commonParams(prefix, what string) []model.Param {
	return []model.Param{
		{Name: prefix + "amplitude", Label: what + " amplitude θ", Kind: model.Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true,
			Help: "Prior variance of the latent " + what + " (squared-exponential kernel θ exp(−‖x−x'‖²/(2ℓ²)))."},
		{Name: prefix + "lengthscale", Label: what + " length-scale ℓ", Kind: model.Float, Default: "1", Min: 1e-3, Max: 1e4, Log: true,
			Help: "Length-scale of the " + what + " kernel (with ARD: the starting value of every dimension's)."},
	}
}

func runParams() []model.Param {
	return []model.Param{
		{Name: "ard", Label: "ARD", Kind: model.Bool, Default: "false", Help: "One length-scale per input dimension (automatic relevance determination)."},
		{Name: "optimize", Label: "Optimise hyper-parameters", Kind: model.Bool, Default: "true",
			Help: "Type-II maximum likelihood (EP evidence, L-BFGS); when off, the values given are used as they are."},
		{Name: "restarts", Label: "Random restarts", Kind: model.Int, Default: "1", Min: 0, Max: 20,
			Help: "Extra L-BFGS runs from random perturbations of the starting hyper-parameters (seeded)."},
		{Name: "max_sweeps", Label: "EP sweep limit", Kind: model.Int, Default: "100", Min: 1, Max: 10000,
			Help: "Maximum EP sweeps per evidence evaluation; non-convergence is reported."},
	}
}

func init() {
	gpcParams := append(commonParams("", "f"), runParams()...)
	gpcParams = append(gpcParams, model.StrategyParam())
	fit, load := model.WrapBinary("gpc", fitGPC, func(raw json.RawMessage) (model.BinaryModel, error) {
		var g GPC
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("gpc: %w", err)
		}
		if err := g.prepare(); err != nil {
			return nil, err
		}
		return &g, nil
	})
	model.Register(&model.Spec{
		ID: "gpc", Name: "GPC (EP)", Paper: "C. E. Rasmussen, C. K. I. Williams: Gaussian Processes for Machine Learning, MIT Press 2006, ch. 3 (baseline of " + paper002 + ")",
		Equations: "R&W algorithms 3.5–3.7, eqs 3.58, 3.65, 3.74, 3.80; paper 002 eq 2",
		About: "Gaussian-process classifier with a probit likelihood, fitted by expectation propagation; kernel amplitude and " +
			"length-scale(s) by maximising the EP evidence. Outputs calibrated probabilities Φ(m*/√(1+v*)).",
		Task: model.Binary, Family: model.FamilyGP, Z: model.ZNone, Params: gpcParams,
		MultiClass: []string{"ovr", "ovo"}, Fit: fit, Load: load,
	})

	pp := commonParams("", "f")
	pp = append(pp, commonParams("g", "g")...)
	pp = append(pp,
		model.Param{Name: "gmean", Label: "g prior mean", Kind: model.Float, Default: "0", Min: -20, Max: 20,
			Help: "Constant prior mean of g (log noise variance); 0 is the paper's zero-mean GP. Optimised with the others."},
		model.Param{Name: "optimize_gamplitude", Label: "Optimise g amplitude", Kind: model.Bool, Default: "false",
			Help: "Also learn θ_g by type-II ML (the paper fixes it; the length-scales and the g mean are always learnt)."},
		model.Param{Name: "damping", Label: "EP damping", Kind: model.Float, Default: "1", Min: 0.05, Max: 1,
			Help: "Fraction of each proposed site update that is applied (1 = undamped sequential EP)."},
		model.Param{Name: "quad_nodes", Label: "Quadrature nodes", Kind: model.Int, Default: "32", Min: 4, Max: 128,
			Help: "Gauss–Hermite nodes for the integral over g (paper 002 eq 12); where they would be inaccurate (a far tail, a wide g) a mode-centred rule takes over."},
	)
	pp[0].Help = "Prior variance of f. Held at this value by type-II ML: scaling it is the same as shifting the g mean, which is learnt."
	pp[2].Help = "Prior variance of g, the log noise variance on the privileged space (held unless optimize_gamplitude)."
	pp = append(pp, runParams()...)
	pp = append(pp, model.StrategyParam())
	fitP, loadP := model.WrapBinary("gpcplus", fitGPCPlus, func(raw json.RawMessage) (model.BinaryModel, error) {
		var g GPCPlus
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("gpcplus: %w", err)
		}
		if err := g.prepare(); err != nil {
			return nil, err
		}
		return &g, nil
	})
	model.Register(&model.Spec{
		ID: "gpcplus", Name: "GPC+ (privileged noise)", Paper: paper002,
		Equations: "paper 002 eqs 3–12 (EP with factorised sites eq 10, quadrature eq 12, prediction eq 9)",
		About: "GPC whose latent noise variance exp(g(z)) is a second Gaussian process on the privileged features z: " +
			"samples that are easy by their privileged features get a steep likelihood, hard ones a flat one. " +
			"z is needed only for training; predictions use x alone.",
		Task: model.Binary, Family: model.FamilyGP, Z: model.ZPrivileged, Params: pp,
		MultiClass: []string{"ovr", "ovo"}, Fit: fitP, Load: loadP,
	})
}
