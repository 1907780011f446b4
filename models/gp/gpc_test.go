package gp

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/internal/fixture"
	"lupilab/models/model"
	"lupilab/models/solver/ep"
)

type gpcRef struct {
	Amplitude, Lengthscale float64
	X                      [][]float64
	Y                      []float64
	Xtest                  [][]float64
	LogZ                   float64   `json:"log_z"`
	PostMean               []float64 `json:"post_mean"`
	PostVar                []float64 `json:"post_var"`
	TestMean               []float64 `json:"test_mean"`
	TestVar                []float64 `json:"test_var"`
	TestProb               []float64 `json:"test_prob"`
}

func loadRef(t *testing.T, file string) *gpcRef {
	var r gpcRef
	fixture.ReadJSON(t, "testdata/"+file, &r)
	return &r
}

func binaryDataset(X *mat.Dense, y []float64) *data.Dataset {
	ds := &data.Dataset{Name: "t", X: X, Y: make([]int, len(y)), Classes: []string{"neg", "pos"}}
	for i, v := range y {
		if v > 0 {
			ds.Y[i] = 1
		}
	}
	return ds
}

func gpcValues(t *testing.T, set map[string]string) model.Values {
	spec, err := model.Lookup("gpc")
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Resolve(model.Values(set))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// GPC with fixed hyper-parameters against the independent numpy
// implementation of R&W algorithms 3.5/3.6 (testdata/gpc_ep_reference.py),
// n = 24 and n = 150 (several tiles of the engine's blocked steps).
func TestGPCAgainstNumpyReference(t *testing.T) {
	for _, f := range []string{"gpc_ep_reference.json", "gpc_ep_reference_n150.json"} {
		t.Run(f, func(t *testing.T) { gpcAgainstNumpy(t, f) })
	}
}

func gpcAgainstNumpy(t *testing.T, file string) {
	ref := loadRef(t, file)
	X := fixture.Dense(ref.X)
	v := gpcValues(t, map[string]string{"optimize": "false", "amplitude": ftoa(ref.Amplitude), "lengthscale": ftoa(ref.Lengthscale)})
	bm, err := fitGPC(context.Background(), binaryDataset(X, ref.Y), ref.Y, v, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := bm.(*GPC)
	r := g.Report()
	if !r.Converged {
		t.Fatal("EP did not converge")
	}
	if e := math.Abs(r.Extras["log_marginal_likelihood"] - ref.LogZ); e > 1e-8 {
		t.Errorf("log Z = %.12g, numpy %.12g", r.Extras["log_marginal_likelihood"], ref.LogZ)
	}
	if math.Abs(r.Objective+ref.LogZ) > 1e-8 {
		t.Errorf("objective %g is not −log Z", r.Objective)
	}
	for i, m := range r.Diagnostics["f_mean"] {
		if math.Abs(m-ref.PostMean[i]) > 1e-7 {
			t.Errorf("posterior mean %d: %g vs numpy %g", i, m, ref.PostMean[i])
		}
		sd := r.Diagnostics["f_sd"][i]
		if math.Abs(sd*sd-ref.PostVar[i]) > 1e-7 {
			t.Errorf("posterior var %d: %g vs numpy %g", i, sd*sd, ref.PostVar[i])
		}
	}
	test := binaryDataset(fixture.Dense(ref.Xtest), make([]float64, len(ref.Xtest)))
	p, err := g.Probability(test)
	if err != nil {
		t.Fatal(err)
	}
	m, vr, _ := g.latent(test.X)
	for j := range p {
		if math.Abs(p[j]-ref.TestProb[j]) > 1e-7 || math.Abs(m[j]-ref.TestMean[j]) > 1e-7 || math.Abs(vr[j]-ref.TestVar[j]) > 1e-7 {
			t.Errorf("test %d: p %g m %g v %g vs numpy p %g m %g v %g", j, p[j], m[j], vr[j], ref.TestProb[j], ref.TestMean[j], ref.TestVar[j])
		}
	}
}

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// The analytic evidence gradient (R&W eq 3.74) against central finite
// differences of the converged EP evidence, isotropic and ARD.
func TestGPCGradient(t *testing.T) {
	ref := loadRef(t, "gpc_ep_reference.json")
	X := fixture.Dense(ref.X)
	for _, theta := range [][]float64{{math.Log(2.5), math.Log(0.9)}, {0.3, -0.5, 0.4}} {
		st := &gpcState{ctx: context.Background(), X: X, y: ref.Y, maxSweeps: 500, tol: 1e-13}
		_, g, err := st.evidence(theta)
		if err != nil {
			t.Fatal(err)
		}
		for k := range theta {
			const h = 1e-5
			tp := append([]float64(nil), theta...)
			tm := append([]float64(nil), theta...)
			tp[k] += h
			tm[k] -= h
			st.warm = nil
			fp, _, _ := st.evidence(tp)
			st.warm = nil
			fm, _, _ := st.evidence(tm)
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[k]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("θ=%v ∂/∂θ%d: analytic %.10g, finite difference %.10g", theta, k, g[k], fd)
			}
		}
	}
}

// Type-II ML must not decrease the evidence of its starting point and must
// reach a point where the gradient vanishes.
func TestGPCTypeII(t *testing.T) {
	ref := loadRef(t, "gpc_ep_reference.json")
	X := fixture.Dense(ref.X)
	v := gpcValues(t, map[string]string{"restarts": "1"})
	bm, err := fitGPC(context.Background(), binaryDataset(X, ref.Y), ref.Y, v, model.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := bm.Report()
	if r.Extras["log_marginal_likelihood"] < ref.LogZ-1e-9 {
		t.Errorf("type-II ML evidence %g below the reference point's %g", r.Extras["log_marginal_likelihood"], ref.LogZ)
	}
	st := &gpcState{ctx: context.Background(), X: X, y: ref.Y, maxSweeps: 500, tol: 1e-12}
	k := bm.(*GPC).Kernel
	_, g, err := st.evidence(append([]float64{k.LogAmp}, k.LogLen...))
	if err != nil {
		t.Fatal(err)
	}
	if infNorm(g) > 1e-3 {
		t.Errorf("gradient at the optimum %v", g)
	}
}

// The fit reports the EP tolerances it uses (ep_tol_search during type-II
// ML, ep_tol_final for the final fit) for GPC and GPC+, and the final fit
// really runs at ep_tol_final: without type-II ML the fit is the final EP
// alone, so EP re-run from zero sites at that tolerance must reproduce its
// sweeps and log Z exactly, while a 10× looser tolerance stops earlier.
func TestEPTolerancesReported(t *testing.T) {
	ds, y := lupiData(30, 14)
	for _, id := range []string{"gpc", "gpcplus"} {
		fit, err := fitSpec(t, id, ds, map[string]string{"optimize": "false"})
		if err != nil {
			t.Fatal(err)
		}
		r := fit.Report()
		ex := r.Extras
		if ex["ep_tol_search"] != 1e-6 || ex["ep_tol_final"] != 1e-10 {
			t.Errorf("%s: ep_tol_search %v, ep_tol_final %v (want 1e-6, 1e-10)", id, ex["ep_tol_search"], ex["ep_tol_final"])
		}
		run := func(tol float64) *ep.Result {
			var res *ep.Result
			var err error
			if id == "gpc" {
				st := &gpcState{ctx: context.Background(), X: ds.X, y: y, maxSweeps: 100, tol: tol}
				res, _, _, err = st.run([]float64{0, 0})
			} else {
				ps := plusState(ds, y, tol)
				ps.maxSweeps, ps.accel = 100, new(ep.Accel)
				res, _, _, err = ps.run([]float64{0, 0, 0, 0, 0})
			}
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		res := run(ex["ep_tol_final"])
		if res.Sweeps != r.Iterations || res.LogZ != ex["log_marginal_likelihood"] {
			t.Errorf("%s: EP at ep_tol_final: %d sweeps, log Z %.15g; the fit: %d sweeps, %.15g", id, res.Sweeps, res.LogZ, r.Iterations, ex["log_marginal_likelihood"])
		}
		if loose := run(10 * ex["ep_tol_final"]); loose.Sweeps >= res.Sweeps {
			t.Errorf("%s: a 10× looser tolerance takes %d sweeps, ep_tol_final %d: the check does not discriminate", id, loose.Sweeps, res.Sweeps)
		}
	}
}

// TestTypeIIRangeEndSaid: on separable classes the evidence grows without
// limit with the amplitude, and type-II ML stops at its range's end (10⁴):
// the fit says so rather than showing a round 10000 as if it were an
// optimum; on overlapping classes (an interior optimum) it says nothing.
func TestTypeIIRangeEndSaid(t *testing.T) {
	fit := func(name string, noise float64) []string {
		ds, err := data.GenerateByName(name, 120, noise, 2)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, len(ds.Y))
		for i, c := range ds.Y {
			y[i] = float64(2*c - 1)
		}
		bm, err := fitGPC(context.Background(), ds, y, gpcValues(t, map[string]string{"restarts": "0"}), model.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return bm.Report().Warnings
	}
	said := func(w []string) bool {
		for _, s := range w {
			if strings.Contains(s, "amplitude θ at the upper end of its search range") {
				return true
			}
		}
		return false
	}
	if w := fit("moons", 0.02); !said(w) {
		t.Errorf("separable moons: warnings %q, want the amplitude's range end said", w)
	}
	if w := fit("moons", 0.6); said(w) {
		t.Errorf("overlapping moons: warnings %q, want no range end", w)
	}
}
