package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

// mpRefCase is one case of testdata/ref_mpwtsvm.json (ref_mpwtsvm.py): "pos"
// is problem (10) (planes of the +1 class), "neg" problem (11).
type mpRefCase struct {
	Params struct {
		CA         float64 `json:"ca"`
		CB         float64 `json:"cb"`
		C          float64 `json:"c"`
		GammaB     float64 `json:"gamma_b"`
		K          int     `json:"k"`
		Eps        float64 `json:"eps"`
		Gamma      float64 `json:"gamma"`
		Correcting bool    `json:"correcting"`
	} `json:"params"`
	F    map[string][]float64 // f_pos_A, …: the between-class indicators (8)-(9)
	Raw  map[string]json.RawMessage
	Test map[string][]float64 // test_pos_A, …: K(x, C)w + b on the reference's test rows
	Norm map[string]float64   // norm_pos_A, …: ‖ω‖
}

// mpRefTol is the agreement required of the convex (C = 0) cases, relative
// to max(1, |x|): the reference's optimum is certified by an exact
// active-set solve (and equals minus (31)'s optimum by cvxopt).
const mpRefTol = 1e-6

// MPWTSVM (kernel version, paper 001 eqs (7)-(11), (36)-(39)) against an
// independent reference written from the paper (testdata/ref_mpwtsvm.py,
// regenerated with /usr/bin/python3): the graphs, and
//   - C = 0 (convex): the primal optima of (10) and (11), and the planes'
//     values on the reference's test rows, to 1e-6;
//   - C > 0 (non-convex): our objective of (10)/(11), evaluated at our planes
//     with the smallest feasible slacks (so at a feasible point), must not
//     lie above the lowest feasible objective the reference's multi-start
//     SLSQP found (40+ starts on (10), plus the planes of (31)'s best points)
//     by more than 1e-6 relative. Both are local solutions computed to
//     about 1e-8 (the cases that agree do so to ≤ 5e-8 relative); 1e-6
//     leaves room for that and for nothing more — the failures this test
//     was written for were 17 % and 50 % above.
//
// The parameters are passed under their canonical names and, as a second
// fit, under the old aliases (ca, cb, c, gamma_b), which must give the same
// model (the two failing cases were the only ones with C_A ≠ C_B and a view
// weight ≠ 1).
func TestMPWTSVMAgainstIndependentReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/ref_mpwtsvm.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		XA    [][]float64                  `json:"x_a"`
		XB    [][]float64                  `json:"x_b"`
		Y     []float64                    `json:"y"`
		TA    [][]float64                  `json:"t_a"`
		TB    [][]float64                  `json:"t_b"`
		Cases []map[string]json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 6 {
		t.Fatalf("fixture has %d cases, want 6", len(ref.Cases))
	}
	ds := binaryDS(denseOf(ref.XA), ref.Y)
	ds.Z = denseOf(ref.XB)
	test := &data.Dataset{X: denseOf(ref.TA), Z: denseOf(ref.TB)}
	for ci, rc := range ref.Cases {
		checkMPRefCase(t, ci, rc, ds, ref.Y, test)
	}
}

// checkMPRefCase fits the reference's case ci on ds and compares the
// graphs, the objectives of (10) and (11) and, for the convex cases, the
// planes on the test rows (see TestMPWTSVMAgainstIndependentReference).
func checkMPRefCase(t *testing.T, ci int, rc map[string]json.RawMessage, ds *data.Dataset, y []float64, test *data.Dataset) {
	t.Helper()
	c := decodeRefCase(t, rc)
	p := c.Params
	name := fmt.Sprintf("case %d (C_A %v, C_B %v, C %v, view weight %v, k %d, eps %v, γ %v, correcting %v)",
		ci, p.CA, p.CB, p.C, p.GammaB, p.K, p.Eps, p.Gamma, p.Correcting)
	cfg := mpRefConfig(t, name, c)
	var tight [2]float64 // (10)/(11) at our planes with the smallest feasible slacks
	m, err := fitMPWith(context.Background(), ds, y, cfg, model.Options{}, func(s1, s2 *mpSolved) {
		for k, s := range []*mpSolved{s1, s2} {
			xa, xb := s.pb.slacks(s.uA, s.uB)
			tight[k] = s.pb.primal(s.uA, s.uB, xa, xb)
		}
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	su, err := prepareMP(context.Background(), ds, y, cfg, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, side := range []string{"pos", "neg"} {
		for v, view := range []string{"A", "B"} {
			closeVec(t, fmt.Sprintf("%s: f_%s_%s", name, side, view), su.f[k][v], c.F["f_"+side+"_"+view], 0)
		}
	}
	t.Logf("%s: ours (10) %.10g (11) %.10g", name, tight[0], tight[1])
	checkMPRefObjectives(t, name, c, m, tight)
	if !m.Rep.Converged {
		t.Errorf("%s: not converged: %v", name, m.Rep.Warnings)
	}
	if p.C == 0 {
		checkMPRefPlanes(t, name, c, m, test)
	}
}

// mpRefConfig is the configuration of a reference case, from its
// parameters under their canonical names; under the old aliases (ca, cb,
// c, gamma_b) they must give the same.
func mpRefConfig(t *testing.T, name string, c mpRefCase) mpConfig {
	t.Helper()
	p := c.Params
	common := []string{"k", fmt.Sprint(p.K), "eps", fmt.Sprint(p.Eps), "gamma", fmt.Sprint(p.Gamma),
		"correcting", fmt.Sprint(p.Correcting), "kernel", "rbf"}
	canon := values(t, "mpwtsvm", append([]string{"C_A", fmt.Sprint(p.CA), "C_B", fmt.Sprint(p.CB),
		"coupling", fmt.Sprint(p.C), "view_weight", fmt.Sprint(p.GammaB)}, common...)...)
	alias := values(t, "mpwtsvm", append([]string{"ca", fmt.Sprint(p.CA), "cb", fmt.Sprint(p.CB),
		"c", fmt.Sprint(p.C), "gamma_b", fmt.Sprint(p.GammaB)}, common...)...)
	cfg, err := mpConfigOf(canon)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CA != p.CA || cfg.CB != p.CB || cfg.C != p.C || cfg.GammaB != p.GammaB {
		t.Fatalf("%s: configuration %+v", name, cfg)
	}
	if acfg, err := mpConfigOf(alias); err != nil || acfg.CA != cfg.CA || acfg.CB != cfg.CB || acfg.C != cfg.C || acfg.GammaB != cfg.GammaB {
		t.Fatalf("%s: the aliases give %+v (%v), the canonical names %+v", name, acfg, err, cfg)
	}
	return cfg
}

// checkMPRefObjectives compares the objectives of (10) and (11) at our
// planes (tight) with what the fit reports and with the reference's: its
// certified optimum for C = 0, else its lowest feasible point.
func checkMPRefObjectives(t *testing.T, name string, c mpRefCase, m *mpModel, tight [2]float64) {
	t.Helper()
	reported := [2]float64{m.Rep.Extras["primal_objective_10"], m.Rep.Extras["primal_objective_11"]}
	for k, side := range []string{"pos", "neg"} {
		eq := []string{"(10)", "(11)"}[k]
		if math.Abs(reported[k]-tight[k]) > 1e-6*math.Max(1, math.Abs(tight[k])) {
			t.Errorf("%s: %s reported %.10g, at the smallest feasible slacks %.10g", name, eq, reported[k], tight[k])
		}
		if c.Params.C == 0 {
			want := refFloat(t, c.Raw, "primal_"+side)
			if math.Abs(tight[k]-want) > mpRefTol*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %s optimum %.10g, reference (certified) %.10g", name, eq, tight[k], want)
			}
			continue
		}
		best := refFloat(t, c.Raw, "primal_best_"+side)
		t.Logf("%s: %s reference's best %.10g", name, eq, best)
		if tight[k] > best+mpRefTol*math.Max(1, math.Abs(best)) {
			t.Errorf("%s: %s objective %.10g, but the reference found a feasible point at %.10g", name, eq, tight[k], best)
		}
	}
}

// checkMPRefPlanes compares the decisions on the reference's test rows:
// each plane's normalised value (w·x̃ + b)/‖ω‖, the quantity rules
// (33)-(35) compare, and the norms ‖ω‖.
func checkMPRefPlanes(t *testing.T, name string, c mpRefCase, m *mpModel, test *data.Dataset) {
	t.Helper()
	pv, err := m.PlaneValues(test)
	if err != nil {
		t.Fatal(err)
	}
	for key, pk := range map[string]string{"pos_A": "A+", "neg_A": "A-", "pos_B": "B+", "neg_B": "B-"} {
		want := make([]float64, len(c.Test["test_"+key]))
		for i, v := range c.Test["test_"+key] {
			want[i] = v / c.Norm["norm_"+key]
		}
		closeVec(t, fmt.Sprintf("%s: normalised plane %s on the test rows", name, pk), pv[pk], want, mpRefTol)
	}
	for key, nk := range map[string]string{"pos_A": "norm_A+", "neg_A": "norm_A-", "pos_B": "norm_B+", "neg_B": "norm_B-"} {
		closeVec(t, fmt.Sprintf("%s: ‖ω‖ %s", name, key), []float64{m.Rep.Extras[nk]}, []float64{c.Norm["norm_"+key]}, mpRefTol)
	}
}

func denseOf(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

func refFloat(t *testing.T, rc map[string]json.RawMessage, key string) float64 {
	t.Helper()
	var v float64
	if err := json.Unmarshal(rc[key], &v); err != nil {
		t.Fatalf("fixture key %s: %v", key, err)
	}
	return v
}

func decodeRefCase(t *testing.T, rc map[string]json.RawMessage) mpRefCase {
	t.Helper()
	c := mpRefCase{F: map[string][]float64{}, Test: map[string][]float64{}, Norm: map[string]float64{}, Raw: rc}
	if err := json.Unmarshal(rc["params"], &c.Params); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"pos", "neg"} {
		for _, view := range []string{"A", "B"} {
			key := side + "_" + view
			var f, tv []float64
			if err := json.Unmarshal(rc["f_"+key], &f); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(rc["test_"+key], &tv); err != nil {
				t.Fatal(err)
			}
			c.F["f_"+key], c.Test["test_"+key] = f, tv
			c.Norm["norm_"+key] = refFloat(t, rc, "norm_"+key)
		}
	}
	return c
}
