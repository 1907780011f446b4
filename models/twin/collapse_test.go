package twin

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/multiview"
	"lupilab/models/solver/ncqp"
)

// digitsTask is the setting of issue 28's MPWTSVM view collapse: the
// shipped digits-twoview data (view A 8×8 pixels, view B the descriptors),
// one pair of digits, a stratified 60/40 split (seed 1) and each view
// scaled to [0, 1] on the training rows.
func digitsTask(t testing.TB, a, b string) (train, test *data.Dataset) {
	t.Helper()
	ds, err := data.LoadShipped("../../web/datasets", "digits-twoview")
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = data.OneVsOne(ds, a, b); err != nil {
		t.Fatal(err)
	}
	tr, te, err := data.StratifiedSplit(ds, 0.6, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := data.FitScaler(tr, data.ScaleMinMax)
	if err != nil {
		t.Fatal(err)
	}
	if tr, err = sc.Transform(tr); err != nil {
		t.Fatal(err)
	}
	if te, err = sc.Transform(te); err != nil {
		t.Fatal(err)
	}
	return tr, te
}

// collapseSet is the setting: C_A = C_B = C = 1, RBF γ = 0.05.
var collapseSet = []string{"ca", "1", "cb", "1", "c", "1", "kernel", "rbf", "gamma", "0.05"}

// startFrom is a state of pb with planes (uA, uB) and the smallest
// feasible slacks, from which majorise descends on (10).
func startFrom(pb *mpProblem, uA, uB []float64) *mpSolved {
	s := &mpSolved{pb: pb, conv: true, x: make([]float64, pb.op.dim), uA: uA, uB: uB}
	s.xiA, s.xiB = pb.slacks(uA, uB)
	s.history = []float64{pb.primal(uA, uB, s.xiA, s.xiB)}
	return s
}

// withC is pb with the coupling C (the matrices do not depend on it).
func (pb *mpProblem) withC(c float64) *mpProblem {
	q, op := *pb, *pb.op
	op.c, q.op, q.cfg.C, q.cache = c, &op, c, &ncqp.SoftCache{}
	return &q
}

func wNorm(u []float64) float64 { return plane{W: u[:len(u)-1]}.norm() }

// The MPWTSVM view collapse (issue 28; models/twin/RESULTS.md), pinned on
// digits 3 v. 5: at C = 1 the fitted model's view-B planes collapse
// (‖ω‖ ≈ 1e-10) and view B's own rule falls to 0.75 on the test rows
// (0.99 at C = 0) while view A's and the combined rule stay at 0.99. It is
// the formulation's doing, not the solver's:
//   - the non-collapsed stationary point that majorisation reaches from the
//     uncoupled solution (C = 0 and no correcting constraints: two
//     WLTSVMs) has a higher objective (10) and (11) than the collapsed one;
//   - without the correcting constraints the same C keeps view B.
//
// The fit says so in its warnings and reports per-view training accuracy;
// multiview.PerViewAccuracy gives the test accuracy per view.
func TestMPWTSVMViewCollapse(t *testing.T) {
	train, test := digitsTask(t, "3", "5")
	spec, err := model.Lookup("mpwtsvm")
	if err != nil {
		t.Fatal(err)
	}
	fitWith := func(kv ...string) (model.Fitted, *model.Report, multiview.ViewAccuracy) {
		t.Helper()
		f, err := spec.Fit(context.Background(), train, values(t, "mpwtsvm", kv...), model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		va, err := multiview.PerViewAccuracy(f, test)
		if err != nil {
			t.Fatal(err)
		}
		return f, f.Report(), va
	}
	_, rep, va := fitWith(collapseSet...)
	ex := rep.Extras
	t.Logf("C = 1: test accuracy per view %+v; training A %.3f B %.3f (C = 0: %.3f, %.3f); shrink A %.2g B %.2g; warnings %q",
		va, ex["train_accuracy_A"], ex["train_accuracy_B"], ex["train_accuracy_A_c0"], ex["train_accuracy_B_c0"], ex["plane_shrink_A"], ex["plane_shrink_B"], rep.Warnings)
	if !(ex["plane_shrink_B"] < collapseShrink) || !(ex["plane_shrink_A"] > 0.5) || !(ex["train_accuracy_B_c0"]-ex["train_accuracy_B"] >= degradedDrop) {
		t.Errorf("view B should collapse and view A stay: shrink A %g B %g, training accuracy B %g (C = 0: %g)", ex["plane_shrink_A"], ex["plane_shrink_B"], ex["train_accuracy_B"], ex["train_accuracy_B_c0"])
	}
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "view B gives way to the coupling") || !strings.Contains(w, "collapses its planes") || strings.Contains(w, "view A gives way") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if !(va.A > 0.95 && va.B < 0.8) {
		t.Errorf("test accuracy per view %+v: want view A above 0.95 and view B below 0.8", va)
	}

	// C = 0 keeps both views and warns of nothing; so does C = 1 without
	// the correcting constraints.
	for _, kv := range [][]string{{"c", "0"}, {"correcting", "false"}} {
		_, rep, va := fitWith(append(append([]string(nil), collapseSet...), kv...)...)
		if strings.Contains(strings.Join(rep.Warnings, "\n"), "gives way") || !(va.A > 0.95 && va.B > 0.95) {
			t.Errorf("%v: test accuracy per view %+v, warnings %q", kv, va, rep.Warnings)
		}
	}

	// The collapsed solution has the lower objective: majorisation from the
	// uncoupled planes stops at a stationary point that keeps view B, with
	// (10) and (11) higher than at the fitted, collapsed, point.
	ctx := context.Background()
	y, _ := train.BinaryY()
	cfg := mpCfg(t, collapseSet...)
	su, err := prepareMP(ctx, train, y, cfg, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unc := cfg
	unc.C, unc.Correcting = 0, false
	for k := 0; k < 2; k++ {
		pb, err := su.problem(k, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		def, err := solveMP(ctx, pb, model.Options{}, "")
		if err != nil {
			t.Fatal(err)
		}
		pu, _ := su.problem(k, unc, nil)
		s0, err := solveMP(ctx, pu, model.Options{}, "")
		if err != nil {
			t.Fatal(err)
		}
		alt := startFrom(pb, s0.uA, s0.uB)
		if err := majorise(ctx, alt, model.Options{}, ""); err != nil {
			t.Fatal(err)
		}
		jd, ja := def.history[len(def.history)-1], alt.history[len(alt.history)-1]
		t.Logf("problem (%d): fitted %.5f (‖ωᴮ‖ %.2g, KKT %.1g), from the uncoupled planes %.5f (‖ωᴮ‖ %.3g, KKT %.1g)", 10+k, jd, wNorm(def.uB), def.kkt, ja, wNorm(alt.uB), alt.kkt)
		if alt.kkt > 1e-4 || def.kkt > 1e-4 || !(wNorm(alt.uB) > 1) {
			t.Errorf("problem (%d): the alternative is not a stationary point keeping view B (KKT %g, ‖ωᴮ‖ %g)", 10+k, alt.kkt, wNorm(alt.uB))
		}
		if !(jd < ja) {
			t.Errorf("problem (%d): the collapsed objective %.6f is not below the non-collapsed stationary point's %.6f", 10+k, jd, ja)
		}
	}
}

// BenchmarkMPWTSVMCollapseStarts is the investigation of the view collapse
// (models/twin/RESULTS.md): for digits 3 v. 5, 4 v. 9 and 1 v. 7 at the
// issue's setting, problems (10) and (11) solved from several starts —
// the default (the C = 0 solution), the uncoupled planes, a continuation in
// C from 10⁻³ to 1, view A's planes zeroed, and four random perturbations
// of the uncoupled planes — with each end point's objectives, view-B plane
// norms, KKT residuals and test accuracy per view. Run it once:
//
//	go test -run '^$' -bench MPWTSVMCollapseStarts -benchtime=1x ./models/twin
func BenchmarkMPWTSVMCollapseStarts(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		for _, pr := range [][2]string{{"3", "5"}, {"4", "9"}, {"1", "7"}} {
			train, test := digitsTask(b, pr[0], pr[1])
			y, _ := train.BinaryY()
			cfg, err := mpConfigOf(values(b, "mpwtsvm", collapseSet...))
			if err != nil {
				b.Fatal(err)
			}
			su, err := prepareMP(ctx, train, y, cfg, model.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, st := range collapseStarts(b, su, cfg) {
				m, err := su.model(cfg, st.s[0], st.s[1])
				acc := "no model: " + fmt.Sprint(err)
				if err == nil {
					c := &model.Classifier{ID: "mpwtsvm", Classes: train.Classes, Strategy: "binary", Pos: []int{1}, Neg: []int{0}, Models: []model.BinaryModel{m}}
					va, err := multiview.PerViewAccuracy(c, test)
					if err != nil {
						b.Fatal(err)
					}
					p, _ := c.Predict(test)
					right := 0
					for j, l := range p.Labels {
						if l == test.Y[j] {
							right++
						}
					}
					acc = fmt.Sprintf("test accuracy both %.3f, A %.3f, B %.3f", float64(right)/float64(len(p.Labels)), va.A, va.B)
				}
				s1, s2 := st.s[0], st.s[1]
				b.Logf("%s v. %s, %-34s (10) = %s", pr[0], pr[1], st.name, objectiveParts(s1))
				b.Logf("%s v. %s, %-34s (10) %.5f (KKT %.0e) (11) %.5f (KKT %.0e); ‖ωᴬ±‖ %.3g %.3g ‖ωᴮ±‖ %.3g %.3g; %s", pr[0], pr[1], st.name,
					s1.history[len(s1.history)-1], s1.kkt, s2.history[len(s2.history)-1], s2.kkt, wNorm(s1.uA), wNorm(s2.uA), wNorm(s1.uB), wNorm(s2.uB), acc)
			}
		}
	}
}

// objectiveParts writes (10) (or (11)) at s as its five terms.
func objectiveParts(s *mpSolved) string {
	pb := s.pb
	var sa, sb, sab float64
	for i := range s.xiA {
		sa += s.xiA[i]
		sb += s.xiB[i]
		sab += s.xiA[i] * s.xiB[i]
	}
	return fmt.Sprintf("%.4f proximity A + %.4f proximity B + %.4f C_AΣξᴬ + %.4f C_BΣξᴮ + %.4f CΣξᴬξᴮ",
		pb.sysA.quad(s.uA), pb.sysB.quad(s.uB), pb.cfg.CA*sa, pb.cfg.CB*sb, pb.cfg.C*sab)
}

// BenchmarkMPWTSVMCollapseC: the per-view test accuracy and the view-B
// plane shrink of the fitted model (the default solver) along C, for the
// three digit pairs of BenchmarkMPWTSVMCollapseStarts, and at C = 1
// without the correcting constraints. Run it once:
//
//	go test -run '^$' -bench MPWTSVMCollapseC -benchtime=1x -v ./models/twin
func BenchmarkMPWTSVMCollapseC(b *testing.B) {
	s, err := model.Lookup("mpwtsvm")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		for _, pr := range [][2]string{{"3", "5"}, {"4", "9"}, {"1", "7"}} {
			train, test := digitsTask(b, pr[0], pr[1])
			for _, c := range []string{"0", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "1", "10", "1 (no correcting)"} {
				kv := append([]string(nil), collapseSet...)
				kv = append(kv, "c", strings.Fields(c)[0])
				if strings.Contains(c, "no correcting") {
					kv = append(kv, "correcting", "false")
				}
				f, err := s.Fit(context.Background(), train, values(b, "mpwtsvm", kv...), model.Options{})
				if err != nil {
					b.Fatal(err)
				}
				va, err := multiview.PerViewAccuracy(f, test)
				if err != nil {
					b.Fatal(err)
				}
				ex := f.Report().Extras
				b.Logf("%s v. %s, C = %-18s test accuracy A %.3f B %.3f; training B %.3f (C = 0: %.3f); view-B shrink %.2g", pr[0], pr[1], c, va.A, va.B, ex["train_accuracy_B"], ex["train_accuracy_B_c0"], ex["plane_shrink_B"])
			}
		}
	}
}

type collapseStart struct {
	name string
	s    [2]*mpSolved
}

// collapseStarts solves (10) and (11) from the starts listed at
// BenchmarkMPWTSVMCollapseStarts.
func collapseStarts(b *testing.B, su *mpSetup, cfg mpConfig) []collapseStart {
	ctx := context.Background()
	unc, c0 := cfg, cfg
	unc.C, unc.Correcting = 0, false
	c0.C = 0
	var out []collapseStart
	add := func(name string, solve func(k int, pb *mpProblem, u *mpSolved) *mpSolved) {
		var s [2]*mpSolved
		for k := 0; k < 2; k++ {
			pb, err := su.problem(k, cfg, nil)
			if err != nil {
				b.Fatal(err)
			}
			pu, _ := su.problem(k, unc, nil)
			u, err := solveMP(ctx, pu, model.Options{}, "")
			if err != nil {
				b.Fatal(err)
			}
			s[k] = solve(k, pb, u)
		}
		out = append(out, collapseStart{name, s})
	}
	descend := func(s *mpSolved) *mpSolved {
		if err := majorise(ctx, s, model.Options{}, ""); err != nil {
			b.Fatal(err)
		}
		return s
	}
	add("default (from the C = 0 solution)", func(k int, pb *mpProblem, _ *mpSolved) *mpSolved {
		s, err := solveMP(ctx, pb, model.Options{}, "")
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
	add("from the uncoupled planes", func(k int, pb *mpProblem, u *mpSolved) *mpSolved { return descend(startFrom(pb, u.uA, u.uB)) })
	add("continuation C = 1e-3 … 1", func(k int, pb *mpProblem, _ *mpSolved) *mpSolved {
		p0, _ := su.problem(k, c0, nil)
		s, err := solveMP(ctx, p0, model.Options{}, "")
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []float64{1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1} {
			next := startFrom(pb.withC(c), s.uA, s.uB)
			next.x = s.x
			s = descend(next)
		}
		return s
	})
	add("view A zeroed, uncoupled view B", func(k int, pb *mpProblem, u *mpSolved) *mpSolved {
		return descend(startFrom(pb, make([]float64, len(u.uA)), u.uB))
	})
	rng := data.NewRand(7)
	for r := 0; r < 4; r++ {
		fa, fb := 2*rng.Float64(), 2*rng.Float64()
		noise := make([][2][]float64, 2)
		add(fmt.Sprintf("random %d (A×%.2f, B×%.2f, noise)", r, fa, fb), func(k int, pb *mpProblem, u *mpSolved) *mpSolved {
			for v, src := range [][]float64{u.uA, u.uB} {
				f := []float64{fa, fb}[v]
				sd := 0.1 * wNorm(src) / math.Sqrt(float64(len(src)))
				noise[k][v] = make([]float64, len(src))
				for j, x := range src {
					noise[k][v][j] = f*x + sd*rng.NormFloat64()
				}
			}
			return descend(startFrom(pb, noise[k][0], noise[k][1]))
		})
	}
	return out
}
