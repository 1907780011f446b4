package gp

import (
	"math"
	"testing"

	"lupilab/models/data"
	"lupilab/models/internal/fixture"
)

// GPC+'s predictive probabilities against MCMC ground truth
// (testdata/ref_gpcplus_mcmc.py): the exact posterior (8) sampled by
// elliptical slice sampling over (f, g) jointly (256 chains), the predictive
// probability (9) Rao-Blackwellised per sample, with its Monte-Carlo
// standard error from the spread of the chain means. EP approximates that
// posterior, so the tolerance is 4 MC standard errors plus gpcPlusEPGap.

// gpcPlusEPGap is the allowance for EP's own approximation error in the
// predictive probabilities: EP's predictive probabilities for probit GPC are
// within ~1e-2 of MCMC's (Kuss & Rasmussen, JMLR 2005; Nickisch & Rasmussen,
// JMLR 2008), doubled because GPC+'s EP also drops the posterior dependence
// between f and g (eq 11). It was fixed before the final MCMC runs (a short
// trial run, MC se up to 0.012, had shown gaps up to 0.018). Measured on the
// final runs (MC se ≤ 0.002): max |EP − MCMC| 0.0049 (n = 40), 0.0086
// (n = 60), 0.0155 (n = 30, θ_g = 4) — up to 113 standard errors, i.e. EP's
// bias is resolved, not noise.
const gpcPlusEPGap = 0.02

type refGPCPlusMCMC struct {
	Chains, Iters int
	Cases         []struct {
		Name         string
		TestProbMCMC []float64 `json:"test_prob_mcmc"`
		TestProbSE   []float64 `json:"test_prob_se"`
		TestProbEP   []float64 `json:"test_prob_ep_ref"`
		Rhat         []float64
	}
}

// TestGPCPlusAgainstMCMC compares our EP's predictive probabilities with
// the MCMC ground truth: |p_EP − p_MCMC| ≤ 4 se + gpcPlusEPGap per test
// point, and logs the measured gap.
func TestGPCPlusAgainstMCMC(t *testing.T) {
	var ref refGPCPlusEP
	fixture.ReadJSON(t, "testdata/ref_gpcplus_ep.json", &ref)
	var mc refGPCPlusMCMC
	fixture.ReadJSON(t, "testdata/ref_gpcplus_mcmc.json", &mc)
	if len(mc.Cases) == 0 {
		t.Fatal("no MCMC cases")
	}
	for _, m := range mc.Cases {
		found := false
		for _, c := range ref.Cases {
			if c.Name != m.Name {
				continue
			}
			found = true
			g := fitRefPlus(t, c.X, c.Z, c.Y, c.Amplitude, c.Lengthscale, c.Gamplitude, c.Glengthscale, c.Gmean)
			p, err := g.Probability(&data.Dataset{X: fixture.Dense(c.XTest)})
			if err != nil {
				t.Fatal(err)
			}
			var gmax, gsum, zmax, semax, rmax float64
			for i := range p {
				gap := p[i] - m.TestProbMCMC[i]
				se := m.TestProbSE[i]
				if math.Abs(gap) > 4*se+gpcPlusEPGap {
					t.Errorf("%s: x*[%d] EP %.4f, MCMC %.4f ± %.4f (gap %.4f > 4 se + %.2g)", m.Name, i, p[i], m.TestProbMCMC[i], se, gap, gpcPlusEPGap)
				}
				gmax = math.Max(gmax, math.Abs(gap))
				gsum += math.Abs(gap)
				zmax = math.Max(zmax, math.Abs(gap)/se)
				semax = math.Max(semax, se)
				rmax = math.Max(rmax, m.Rhat[i])
			}
			t.Logf("%-12s |EP − MCMC| max %.4f, mean %.4f, max/se %.1f; MC se ≤ %.4f, R-hat ≤ %.4f", m.Name, gmax, gsum/float64(len(p)), zmax, semax, rmax)
		}
		if !found {
			t.Errorf("MCMC case %s has no EP case", m.Name)
		}
	}
}
