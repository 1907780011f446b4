package gp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"lupilab/models/model"
)

// A fitted GPC+ whose f sites include negative precisions saves them as
// they are (site_tau, signed) and no sqrt_tau (which used to hold 0 for
// them); a file in the older form — sqrt_tau with those zeros, plus
// site_tau — and a GPC file with sqrt_tau alone still load and predict
// exactly as the model they were saved from.
func TestSavedSitesSayWhatTheyAre(t *testing.T) {
	ds, y, theta := stallPoint(t)
	gp, _ := fitPlusFixed(t, ds, y, theta)
	raw, err := json.Marshal(gp)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["sqrt_tau"]; ok {
		t.Error("saved model still writes sqrt_tau")
	}
	var saved []float64
	if err := json.Unmarshal(fields["site_tau"], &saved); err != nil || len(saved) != ds.Rows() {
		t.Fatalf("site_tau: %v (%d values)", err, len(saved))
	}
	neg := 0
	for i, v := range saved {
		if v != gp.SiteTau[i] {
			t.Fatalf("site %d: saved τ̃ %g, the model's %g", i, v, gp.SiteTau[i])
		}
		if v < 0 {
			neg++
		}
	}
	if neg == 0 {
		t.Fatal("no negative f-site precision: the case does not exercise them")
	}
	test, _ := lupiData(40, 11)
	want, err := gp.Probability(test)
	if err != nil {
		t.Fatal(err)
	}
	// the older form: sqrt_tau = √max(τ̃, 0) and the signed site_tau
	old := map[string]any{}
	for k, v := range fields {
		old[k] = v
	}
	sq := make([]float64, len(saved))
	for i, v := range saved {
		sq[i] = math.Sqrt(math.Max(v, 0))
	}
	old["sqrt_tau"] = sq
	oldRaw, _ := json.Marshal(old)
	var back GPCPlus
	if err := json.Unmarshal(oldRaw, &back); err != nil {
		t.Fatal(err)
	}
	got, err := back.Probability(test)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("older file, test point %d: P %.17g, model %.17g", i, got[i], want[i])
		}
	}

	// GPC: the older file holds sqrt_tau only.
	f, err := fitSpec(t, "gpc", test, map[string]string{"optimize": "false"})
	if err != nil {
		t.Fatal(err)
	}
	g := f.(*model.Classifier).Models[0].(*GPC)
	raw, _ = json.Marshal(g)
	if strings.Contains(string(raw), "sqrt_tau") || !strings.Contains(string(raw), "site_tau") {
		t.Fatalf("GPC saved form: %.200s", raw)
	}
	sq = make([]float64, len(g.SiteTau))
	for i, v := range g.SiteTau {
		sq[i] = math.Sqrt(v)
	}
	var gold GPC
	if err := json.Unmarshal(raw, &gold); err != nil {
		t.Fatal(err)
	}
	gold.SiteTau, gold.SqrtTau = nil, sq
	pw, _ := g.Probability(ds)
	pg, err := gold.Probability(ds)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pw {
		if pw[i] != pg[i] {
			t.Fatalf("older GPC file, point %d: P %.17g, model %.17g", i, pg[i], pw[i])
		}
	}
}

// The fit reports the test-time noise variance e^{g*}, g* ~ N(m_g, θ_g) —
// the distribution Probability integrates over (eq 9) — by its mean and
// median; the mean against quadrature of that distribution.
func TestTestNoiseVarianceExtras(t *testing.T) {
	ds, y := lupiData(40, 11)
	theta := []float64{0, math.Log(1.2), math.Log(1.5), math.Log(0.8), -0.4}
	g, _ := fitPlusFixed(t, ds, y, theta)
	ex := g.Rep.Extras
	mean := expectN(t, math.Exp, theta[4], 1.5, theta[4]+1.5)
	if math.Abs(ex["test_noise_variance_mean"]-mean) > 1e-12*mean || ex["test_noise_variance_median"] != math.Exp(theta[4]) {
		t.Errorf("test noise variance: mean %.15g (quadrature %.15g), median %.15g (e^{m_g} %.15g)", ex["test_noise_variance_mean"], mean, ex["test_noise_variance_median"], math.Exp(theta[4]))
	}
	if _, ok := ex["test_noise_exp_g_mean"]; ok {
		t.Error("the old, misleading key is still reported")
	}
}
