package spec

// The Gaussian-process family: GPC (the baseline) and paper 002's GPC+.

// Paper002 is the citation of paper 002 (GPC+).
const Paper002 = "D. Hernández-Lobato, V. Sharmanska, K. Kersting, C. H. Lampert, N. Quadrianto: Mind the Nuisance: Gaussian Process Classification using Privileged Noise. NIPS 2014"

func gpKernelParams(prefix, what string) []Param {
	return []Param{
		{Name: prefix + "amplitude", Label: what + " amplitude θ", Kind: Float, Default: "1", Min: 1e-4, Max: 1e4, Log: true,
			Help: "Prior variance of the latent " + what + " (squared-exponential kernel θ exp(−‖x−x'‖²/(2ℓ²)))."},
		{Name: prefix + "lengthscale", Label: what + " length-scale ℓ", Kind: Float, Default: "1", Min: 1e-3, Max: 1e4, Log: true,
			Help: "Length-scale of the " + what + " kernel (with ARD: the starting value of every dimension's)."},
	}
}

func gpRunParams() []Param {
	return []Param{
		{Name: "ard", Advanced: true, Label: "ARD", Kind: Bool, Default: "false", Help: "One length-scale per input dimension (automatic relevance determination)."},
		{Name: "optimize", Label: "Optimise hyper-parameters", Kind: Bool, Default: "true",
			Help: "Type-II maximum likelihood (EP evidence, L-BFGS); when off, the values given are used as they are."},
		{Name: "restarts", Advanced: true, Label: "Random restarts", Kind: Int, Default: "1", Min: 0, Max: 20,
			Help: "Extra L-BFGS runs from random perturbations of the starting hyper-parameters (seeded)."},
		{Name: "max_sweeps", Advanced: true, Label: "EP sweep limit", Kind: Int, Default: "100", Min: 1, Max: 10000,
			Help: "Maximum EP sweeps per evidence evaluation; non-convergence is reported."},
	}
}

func gpOutputs() []Output {
	return []Output{
		Output{Key: "log_marginal_likelihood", Label: "Log evidence", Unit: "nats",
			Help: "The EP approximation of log p(y | X, θ) at the chosen hyper-parameters: higher means the data are better explained."},
		scalar("amplitude", "f amplitude θ", "The prior variance of the latent function after type-II maximum likelihood."),
		scalar("lengthscale", "f length-scale ℓ", "The kernel length-scale after type-II maximum likelihood (with ARD: the geometric mean)."),
		solverCount("ep_sweeps", "EP sweeps (final)", "EP sweeps over the sites in the final evidence evaluation."),
		solverCount("ep_sweeps_total", "EP sweeps (all)", "EP sweeps over all evidence evaluations of the hyper-parameter search."),
		solverCount("ep_skipped_updates", "Skipped EP updates", "Site updates EP skipped because the cavity or the update was improper."),
		solver("ep_tol_search", "EP tolerance (search)", "EP's convergence tolerance during the hyper-parameter search."),
		solver("ep_tol_final", "EP tolerance (final)", "EP's convergence tolerance in the final fit."),
		solverCount("evidence_evaluations", "Evidence evaluations", "How many times the hyper-parameter search ran EP."),
		solverCount("rejected_evaluations", "Rejected evidence evaluations", "Evidence evaluations of the hyper-parameter search where EP did not converge or failed: the search backed off from them and never used their value."),
		solver("ep_damping", "EP damping (final)", "The damping of the final EP run: the damping parameter, or a smaller one when EP stalled or failed and was rerun with more damping."),
		solverCount("ep_retries", "EP damped reruns", "EP runs over the whole fit that stalled or failed and were rerun with the damping halved."),
		perSample("f_mean", "Posterior mean of f", "The EP posterior mean of the latent function at the sample."),
		perSample("f_sd", "Posterior sd of f", "The EP posterior standard deviation of the latent function at the sample."),
	}
}

func init() {
	register(&Spec{
		ID: "gpc", Objective: "Negative log evidence", Name: "GPC (EP)", Paper: "C. E. Rasmussen, C. K. I. Williams: Gaussian Processes for Machine Learning, MIT Press 2006, ch. 3 (baseline of " + Paper002 + ")",
		Equations: "R&W algorithms 3.5–3.7, eqs 3.58, 3.65, 3.74, 3.80; Hernández-Lobato et al. 2014 eq 2",
		About: "Gaussian-process classifier with a probit likelihood, fitted by expectation propagation; kernel amplitude and " +
			"length-scale(s) by maximising the EP evidence. Outputs calibrated probabilities Φ(m*/√(1+v*)).",
		Task: Binary, Family: FamilyGP, Z: ZNone,
		Params:     concat(gpKernelParams("", "f"), gpRunParams(), []Param{StrategyParam()}),
		MultiClass: strategies,
		Outputs: append(gpOutputs(),
			perSample("site_precision", "EP site precision", "The precision of the sample's EP site: how strongly its label pulls the posterior.")),
	})

	pp := gpKernelParams("", "f")
	pp = append(pp, gpKernelParams("g", "g")...)
	pp = append(pp,
		Param{Name: "gmean", Label: "g prior mean", Kind: Float, Default: "0", Min: -20, Max: 20,
			Help: "Constant prior mean of g (log noise variance); 0 is the paper's zero-mean GP. Optimised with the others."},
		Param{Name: "optimize_gamplitude", Advanced: true, Label: "Optimise g amplitude", Kind: Bool, Default: "false",
			Help: "Also learn θ_g by type-II ML (the paper fixes it; the length-scales and the g mean are always learnt)."},
		Param{Name: "damping", Advanced: true, Label: "EP damping", Kind: Float, Default: "1", Min: 0.05, Max: 1,
			Help: "Fraction of each proposed site update that is applied (1 = undamped sequential EP)."},
		Param{Name: "quad_nodes", Advanced: true, Label: "Quadrature nodes", Kind: Int, Default: "32", Min: 4, Max: 128,
			Help: "Gauss–Hermite nodes for the integral over g (Hernández-Lobato et al. 2014 eq 12); where they would be inaccurate (a far tail, a wide g) a mode-centred rule takes over."},
	)
	pp[0].Help = "Prior variance of f. Held at this value by type-II ML: scaling it is the same as shifting the g mean, which is learnt."
	pp[2].Help = "Prior variance of g, the log noise variance on the privileged space (held unless optimize_gamplitude)."
	pp = append(pp, gpRunParams()...)
	pp = append(pp, StrategyParam())
	register(&Spec{
		ID: "gpcplus", Objective: "Negative log evidence", Name: "GPC+ (privileged noise)", Paper: Paper002,
		Equations: "Hernández-Lobato et al. 2014 eqs 3–12 (EP with factorised sites eq 10, quadrature eq 12, prediction eq 9)",
		About: "GPC whose latent noise variance exp(g(z)) is a second Gaussian process on the privileged features z: " +
			"samples that are easy by their privileged features get a steep likelihood, hard ones a flat one. " +
			"z is needed only for training; predictions use x alone.",
		Task: Binary, Family: FamilyGP, Z: ZPrivileged, Params: pp,
		MultiClass: strategies,
		Outputs: append(gpOutputs(),
			scalar("gamplitude", "g amplitude θ_g", "The prior variance of g, the log noise variance over the privileged space."),
			scalar("glengthscale", "g length-scale ℓ_g", "The length-scale of g's kernel on the privileged features, after type-II maximum likelihood."),
			scalar("gmean", "g prior mean", "The constant prior mean of g after type-II maximum likelihood."),
			scalar("test_noise_variance_mean", "Test noise variance, mean", "The mean of a new sample's noise variance exp(g*), g* ~ N(g mean, g amplitude): prediction integrates over this distribution (eq 9) rather than using the mean."),
			scalar("test_noise_variance_median", "Test noise variance, median", "The median of a new sample's noise variance exp(g*), i.e. exp(g mean)."),
			scalar("exp_g_q10", "exp(g), 10th percentile", "Noise of an easy training sample: the 10th percentile of the posterior mean of exp(g)."),
			scalar("exp_g_median", "exp(g), median", "Noise of a typical training sample: the median posterior mean of exp(g)."),
			scalar("exp_g_q90", "exp(g), 90th percentile", "Noise of a hard training sample: the 90th percentile of the posterior mean of exp(g)."),
			solverCount("f_negative_sites", "Negative f-site precisions", "EP sites of f with a negative precision (allowed by GPC+'s EP; the posterior stays proper)."),
			solverCount("fd_gradients", "Finite-difference gradients", "Evidence gradients taken by finite differences where the analytic one was unavailable."),
			solverCount("fd_gradient_sweeps", "EP sweeps in finite differences", "EP sweeps spent on finite-difference gradients."),
			perSample("g_mean", "Posterior mean of g", "The posterior mean of the log noise variance at the sample."),
			perSample("g_sd", "Posterior sd of g", "The posterior standard deviation of g at the sample."),
			perSample("exp_g_mean", "Noise exp(g)", "The posterior mean of the sample's noise variance exp(g): large for samples the privileged features call hard."),
			perSample("exp_g_sd", "Noise sd", "The posterior standard deviation of exp(g) at the sample."),
			perSample("slope", "Likelihood slope", "The posterior mean of exp(−g/2), the slope of the sample's likelihood Φ(y·f·exp(−g/2)): steep for easy samples, flat for hard ones."),
		),
	})
}
