package twin

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

func closeVec(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	scale := 1.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(w))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol*scale {
			t.Errorf("%s[%d] = %v, want %v (scale %v)", name, i, got[i], want[i], scale)
			return
		}
	}
}

func planeVec(p plane) []float64 { return append(append([]float64{}, p.W...), p.B) }

// ALGORITHMS.md: with k ≥ class size the within-class graph is complete
// (dⱼ = l − 1 for every sample) and every fⱼ = 1, so WLTSVM(C) is TWSVM with
// C/(l − 1) — the objective is (l−1)·[½‖Hu‖² + (C/(l−1))Σξ] and the ridge is
// relative, so it scales too.
func TestWLTSVMCompleteGraphIsTWSVM(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	x, y := gaussTwo(rng, 40, 3, 0.6) // 20 per class
	ds := binaryDS(x, y)
	for _, kn := range []string{"linear", "rbf"} {
		wl, err := fitTwin(context.Background(), ds, y, values(t, "wltsvm", "k", "20", "C", "2", "kernel", kn, "gamma", "0.3"), model.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range wl.Rep.Diagnostics["weight"] {
			if d != 19 {
				t.Fatalf("weight %v, want 19 (complete graph)", d)
			}
		}
		for _, d := range wl.Rep.Diagnostics["dropped"] {
			if d != 0 {
				t.Fatal("a constraint was dropped with k ≥ class size")
			}
		}
		tw, err := fitTwin(context.Background(), ds, y, values(t, "twsvm", "C", "0.10526315789473684", "kernel", kn, "gamma", "0.3"), model.Options{}, false)
		if err != nil {
			t.Fatal(err)
		}
		closeVec(t, kn+" pos plane", planeVec(wl.Pos), planeVec(tw.Pos), 1e-6)
		closeVec(t, kn+" neg plane", planeVec(wl.Neg), planeVec(tw.Neg), 1e-6)
	}
}

func twoViewDS(t *testing.T, n int, seed int64) (*data.Dataset, []float64) {
	t.Helper()
	ds, err := data.TwoView2D(n, 0.1, seed)
	if err != nil {
		t.Fatal(err)
	}
	y, err := ds.BinaryY()
	if err != nil {
		t.Fatal(err)
	}
	return ds, y
}

func mpCfg(t *testing.T, kv ...string) mpConfig {
	t.Helper()
	cfg, err := mpConfigOf(values(t, "mpwtsvm", kv...))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// ALGORITHMS.md correction: with C = 0 and the correcting constraints
// dropped, MPWTSVM is two independent WLTSVMs, view A with C_A and view B
// with C_B/γ (γ scales view B's proximity term; the ridge is relative).
func TestMPWTSVMDecomposesIntoWLTSVMs(t *testing.T) {
	ds, y := twoViewDS(t, 80, 3)
	for _, kn := range []string{"linear", "rbf"} {
		mp, err := fitMP(context.Background(), ds, y, mpCfg(t, "c", "0", "correcting", "false", "ca", "1.5", "cb", "3", "gamma_b", "2", "k", "4", "kernel", kn, "gamma", "0.7"), model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := fitTwin(context.Background(), ds, y, values(t, "wltsvm", "C", "1.5", "k", "4", "kernel", kn, "gamma", "0.7"), model.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		dsB := &data.Dataset{X: ds.Z, Y: ds.Y, Classes: ds.Classes}
		b, err := fitTwin(context.Background(), dsB, y, values(t, "wltsvm", "C", "1.5", "k", "4", "kernel", kn, "gamma", "0.7"), model.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		closeVec(t, kn+" A+", planeVec(mp.APos), planeVec(a.Pos), 1e-5)
		closeVec(t, kn+" A−", planeVec(mp.ANeg), planeVec(a.Neg), 1e-5)
		closeVec(t, kn+" B+", planeVec(mp.BPos), planeVec(b.Pos), 1e-5)
		closeVec(t, kn+" B−", planeVec(mp.BNeg), planeVec(b.Neg), 1e-5)
		// and the per-view rules are the WLTSVM decisions
		vd, err := mp.ViewDecisions(ds)
		if err != nil {
			t.Fatal(err)
		}
		da, _ := a.Decision(ds)
		db, _ := b.Decision(dsB)
		closeVec(t, kn+" rule A", vd["A"], da, 1e-5)
		closeVec(t, kn+" rule B", vd["B"], db, 1e-5)
	}
}

// The KKT conditions of (10)/(11), checked from the outside: plane values
// from PlaneValues (the prediction path), multipliers and slacks from the
// report's diagnostics. For a row j of the other class (margin
// mⱼ = −σ(ω·x̃ⱼ + b), σ = −1 for the +1 planes):
// primal feasibility ξᴬ ≥ fᴬ(1 − mᴬ), ξᴬ ≥ fᴮmᴮ (and for ξᴮ), ξ ≥ 0; dual
// feasibility βᴬ = C_A + Cξᴮ − αᴬ − λᴬ ≥ 0; complementarity of every pair.
func TestMPWTSVMKKT(t *testing.T) {
	ds, y := twoViewDS(t, 60, 5)
	for _, tc := range []struct{ kn, c string }{{"linear", "1"}, {"rbf", "1"}, {"rbf", "0"}, {"linear", "5"}} {
		cfg := mpCfg(t, "c", tc.c, "k", "5", "kernel", tc.kn, "gamma", "1")
		var hist [2][]float64
		m, err := fitMPWith(context.Background(), ds, y, cfg, model.Options{}, func(p1, p2 *mpSolved) {
			hist[0], hist[1] = p1.history, p2.history
		})
		if err != nil {
			t.Fatal(err)
		}
		if !m.Rep.Converged {
			t.Fatalf("%v: not converged: %v", tc, m.Rep.Warnings)
		}
		for _, h := range hist { // majorisation–minimisation never increases (10)
			for i := 1; i < len(h); i++ {
				if h[i] > h[i-1]+1e-7*math.Abs(h[i-1]) {
					t.Errorf("%v: objective went up: %v → %v", tc, h[i-1], h[i])
				}
			}
		}
		pv, err := m.PlaneValues(ds)
		if err != nil {
			t.Fatal(err)
		}
		d := m.Rep.Diagnostics
		norm := map[string]float64{"A+": m.APos.norm(), "A-": m.ANeg.norm(), "B+": m.BPos.norm(), "B-": m.BNeg.norm()}
		worst := 0.0
		for i := range y {
			sigma, pa, pb := -1.0, "A+", "B+" // row i is a constraint of the +1 problem when it is negative
			if y[i] > 0 {
				sigma, pa, pb = 1, "A-", "B-"
			}
			mA := sigma * pv[pa][i] * norm[pa]
			mB := sigma * pv[pb][i] * norm[pb]
			fA, fB := 1-d["dropped_A"][i], 1-d["dropped_B"][i]
			xiA, xiB := d["xi_A"][i], d["xi_B"][i]
			c := cfg.C
			pairs := [][2]float64{
				{d["alpha_A"][i], xiA - fA*(1-mA)},
				{d["alpha_B"][i], xiB - fB*(1-mB)},
				{d["lambda_A"][i], xiA - fB*mB},
				{d["lambda_B"][i], xiB - fA*mA},
				{cfg.CA + c*xiB - d["alpha_A"][i] - d["lambda_A"][i], xiA},
				{cfg.CB + c*xiA - d["alpha_B"][i] - d["lambda_B"][i], xiB},
			}
			for _, p := range pairs {
				worst = math.Max(worst, math.Max(0, -p[0]))
				worst = math.Max(worst, math.Max(0, -p[1]))
				worst = math.Max(worst, math.Abs(p[0]*p[1]))
			}
		}
		if worst > 1e-4 {
			t.Errorf("%v: KKT violation %g", tc, worst)
		}
		t.Logf("%v: KKT violation %.2g, steps %v/%v", tc, worst, m.Rep.Extras["rounds_10"], m.Rep.Extras["rounds_11"])
	}
}

// (31) is unbounded below for C > 0 when H₁ is singular (linear kernel, more
// kept rows than features + 1): the feasible ray described in mpwtsvm.go.
func TestDual31Unbounded(t *testing.T) {
	ds, y := twoViewDS(t, 60, 7)
	cfg := mpCfg(t, "c", "1", "kernel", "linear", "k", "10")
	augA, _ := newFeatures(cfg.Kernel, ds.X).augment(ds.X)
	augB, _ := newFeatures(cfg.Kernel, ds.Z).augment(ds.Z)
	pos, neg := model.SplitClasses(y)
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	pb, err := newMP(augA, augB, pos, ones(len(pos)), ones(len(pos)), neg, ones(len(neg)), ones(len(neg)), -1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var eig mat.EigenSym
	if !eig.Factorize(pb.sysA.H, true) {
		t.Fatal("eigen")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	v := mat.Col(nil, 0, &vecs) // smallest eigenvalue: 0 (rank ≤ 3)
	if ev := eig.Values(nil)[0]; math.Abs(ev) > 1e-8*eig.Values(nil)[len(v)-1] {
		t.Fatalf("H₁ not singular: smallest eigenvalue %v", ev)
	}
	phi := func(tt float64) (obj, infeas float64) {
		m := pb.m
		aA, lB, xA, xB := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
		for a, j := range pb.op.keptA {
			if v[a] > 0 {
				aA[j], xB[j] = tt*v[a], tt*v[a]/cfg.C
			} else {
				lB[j], xA[j] = -tt*v[a], -tt*v[a]/cfg.C
			}
		}
		u := make([]float64, len(v))
		for a, j := range pb.op.keptA {
			u[a] = aA[j] - lB[j]
		}
		hu := mat.NewVecDense(len(u), nil)
		hu.MulVec(pb.sysA.H, mat.NewVecDense(len(u), u))
		obj = 0.5 * mat.Dot(hu, mat.NewVecDense(len(u), u))
		for j := 0; j < m; j++ {
			obj += -pb.fA[j]*aA[j] + cfg.C*xA[j]*xB[j]
			infeas = math.Max(infeas, aA[j]-cfg.C*xB[j]-cfg.CA) // αᴬ + λᴬ − Cξᴮ ≤ C_A (λᴬ = 0)
			infeas = math.Max(infeas, lB[j]-cfg.C*xA[j]-cfg.CB) // αᴮ + λᴮ − Cξᴬ ≤ C_B (αᴮ = 0)
		}
		return obj, infeas
	}
	if s := 0.0; true {
		for _, x := range v {
			s += math.Max(0, x)
		}
		if s == 0 {
			v = mat.Col(nil, 0, &vecs)
			for i := range v {
				v[i] = -v[i]
			}
		}
	}
	o1, f1 := phi(1e3)
	o2, f2 := phi(1e6)
	if f1 > 1e-9 || f2 > 1e-6 {
		t.Fatalf("ray infeasible: %v %v", f1, f2)
	}
	if !(o2 < 100*o1 && o1 < -10) {
		t.Errorf("(31) along the ray: %v at t=1e3, %v at t=1e6; expected → −∞", o1, o2)
	}
}

func TestDegenerateInputs(t *testing.T) {
	ds, y := twoViewDS(t, 20, 1) // 10 per class
	ctx := context.Background()
	if _, err := fitTwin(ctx, ds, y, values(t, "wltsvm", "k", "11"), model.Options{}, true); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("k > class size: %v", err)
	}
	if _, err := fitMP(ctx, ds, y, mpCfg(t, "k", "11"), model.Options{}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("mpwtsvm k > class size: %v", err)
	}
	one := make([]float64, len(y))
	for i := range one {
		one[i] = 1
	}
	if _, err := fitTwin(ctx, ds, one, values(t, "twsvm"), model.Options{}, false); err == nil || !strings.Contains(err.Error(), "one class") {
		t.Errorf("one class: %v", err)
	}
	spec, _ := model.Lookup("mpwtsvm")
	oneDS := *ds
	oneDS.Y = make([]int, len(y))
	if _, err := spec.Fit(ctx, &oneDS, spec.Defaults(), model.Options{}); err == nil {
		t.Error("one class through the registry: no error")
	}
	constZ := *ds
	constZ.Z = mat.NewDense(20, 2, nil)
	if _, err := fitMP(ctx, &constZ, y, mpCfg(t, "k", "3"), model.Options{}); err == nil || !strings.Contains(err.Error(), "constant") {
		t.Errorf("constant view: %v", err)
	}
	oneCol := *ds
	oneCol.Z = mat.DenseCopyOf(ds.Z)
	for i := 0; i < 20; i++ {
		oneCol.Z.Set(i, 1, 3)
	}
	m, err := fitMP(ctx, &oneCol, y, mpCfg(t, "k", "3", "kernel", "linear"), model.Options{})
	if err != nil {
		t.Fatalf("one constant column should only warn: %v", err)
	}
	if len(m.Rep.Warnings) == 0 || !strings.Contains(strings.Join(m.Rep.Warnings, ";"), "constant") {
		t.Errorf("no warning for a constant column: %v", m.Rep.Warnings)
	}
	noZ := *ds
	noZ.Z = nil
	if _, err := fitMP(ctx, &noZ, y, mpCfg(t), model.Options{}); err == nil {
		t.Error("missing view B accepted")
	}
	if _, err := m.Decision(&noZ); err == nil {
		t.Error("prediction without view B accepted")
	}
	if _, err := fitTwin(ctx, ds, y, values(t, "twsvm", "C", "0.001"), model.Options{}, false); err != nil {
		t.Errorf("small C: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := fitMP(cctx, ds, y, mpCfg(t, "k", "3"), model.Options{}); err == nil {
		t.Error("cancelled fit returned no error")
	}
}

// Registry path: multi-class one-vs-rest / one-vs-one, save and load.
func TestRegistrySaveLoad(t *testing.T) {
	ds, err := data.GenerateByName("blobs", 90, 0.3, 4)
	if err != nil {
		t.Fatal(err)
	}
	tv, _ := twoViewDS(t, 60, 9)
	for _, tc := range []struct {
		id string
		ds *data.Dataset
		kv []string
	}{
		{"twsvm", ds, []string{"kernel", "rbf", "multiclass", "ovo"}},
		{"wltsvm", ds, []string{"k", "3"}},
		{"mpwtsvm", tv, []string{"k", "3", "rule", "A"}},
	} {
		spec, err := model.Lookup(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		v := values(t, tc.id, tc.kv...)
		f, err := spec.Fit(context.Background(), tc.ds, v, model.Options{Progress: func(model.Progress) {}})
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		p1, err := f.Predict(tc.ds)
		if err != nil {
			t.Fatal(err)
		}
		acc := 0
		for i, l := range p1.Labels {
			if l == tc.ds.Y[i] {
				acc++
			}
		}
		if float64(acc) < 0.8*float64(len(p1.Labels)) {
			t.Errorf("%s: training accuracy %d/%d", tc.id, acc, len(p1.Labels))
		}
		raw, err := model.Save(tc.id, f)
		if err != nil {
			t.Fatal(err)
		}
		_, g, err := model.Load(raw)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := g.Predict(tc.ds)
		if err != nil {
			t.Fatal(err)
		}
		closeVec(t, tc.id+" reloaded decision", p2.Decision, p1.Decision, 1e-12)
		if tc.id == "mpwtsvm" {
			if p1.Views == nil || len(p1.Views["A"]) != tc.ds.Rows() {
				t.Error("mpwtsvm: no per-view decisions")
			}
			closeVec(t, "rule A is view A", p1.Decision, p1.Views["A"], 0)
			if len(f.Report().Diagnostics["dropped"]) != tc.ds.Rows() {
				t.Error("mpwtsvm: no dropped diagnostics")
			}
		}
	}
}

// nearest (buffered selection) against a plain stable sort, with ties.
func TestNearestMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	n := 60
	dist := make([][]float64, n)
	for i := range dist {
		dist[i] = make([]float64, n)
		for j := range dist[i] {
			dist[i][j] = float64(rng.Intn(8)) // many ties
		}
	}
	cand := rng.Perm(n)[:45]
	for _, k := range []int{1, 3, 7, 32, 33, 44, 45, 80} {
		for i := 0; i < n; i++ {
			got := nearest(dist, i, cand, k)
			var ref []int
			for _, j := range cand {
				if j != i {
					ref = append(ref, j)
				}
			}
			sort.SliceStable(ref, func(a, b int) bool {
				if dist[i][ref[a]] != dist[i][ref[b]] {
					return dist[i][ref[a]] < dist[i][ref[b]]
				}
				return ref[a] < ref[b]
			})
			if k < len(ref) {
				ref = ref[:k]
			}
			if fmt.Sprint(got) != fmt.Sprint(ref) {
				t.Fatalf("k=%d row %d: %v, want %v", k, i, got, ref)
			}
		}
	}
}
