package gp

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/cputime"
	"lupilab/models/data"
	"lupilab/models/model"
)

// benchData is the lupi2d generator (X: noisy 2-D, Z: privileged) with n rows.
func benchData(b *testing.B, n int) *data.Dataset {
	ds, err := data.GenerateByName("lupi2d", n, 0.3, 1)
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func benchFit(b *testing.B, id string, n int, set map[string]string) {
	ds := benchData(b, n)
	spec, _ := model.Lookup(id)
	v, err := spec.Resolve(model.Values(set))
	if err != nil {
		b.Fatal(err)
	}
	var sweeps float64
	c0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		f, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		sweeps += f.Report().Extras["ep_sweeps_total"]
	}
	b.ReportMetric(sweeps/float64(b.N), "sweeps/op")
	b.ReportMetric(1e3*(cpuSeconds()-c0)/float64(b.N), "cpu-ms/op")
}

// BenchmarkFit: full training (type-II ML, no restarts) of GPC and GPC+.
func BenchmarkFit(b *testing.B) {
	for _, n := range []int{100, 200, 400, 800} {
		for _, id := range []string{"gpc", "gpcplus"} {
			b.Run(fmt.Sprintf("%s/n=%d", id, n), func(b *testing.B) { benchFit(b, id, n, map[string]string{"restarts": "0"}) })
		}
	}
}

// BenchmarkGPCPlusSkipGradient: GPC+ type-II ML (no restarts) at n = 200,
// 400, 800 (at 400 and 800 EP skips site updates), with the fixed-point gradient formula alone
// ("analytic", the behaviour before the finite-difference fallback) and
// with finite-difference gradients at the skipping points ("fd"). Run
// with -benchtime=1x: it reports the evidence reached, the evidence
// evaluations and the finite-difference gradients.
func BenchmarkGPCPlusSkipGradient(b *testing.B) {
	for _, n := range []int{200, 400, 800} {
		for _, fd := range []bool{false, true} {
			name := "analytic"
			if fd {
				name = "fd"
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				ds := benchData(b, n)
				y, err := ds.BinaryY()
				if err != nil {
					b.Fatal(err)
				}
				spec, _ := model.Lookup("gpcplus")
				v, err := spec.Resolve(model.Values{"restarts": "0"})
				if err != nil {
					b.Fatal(err)
				}
				c0 := cpuSeconds()
				var ex map[string]float64
				var warns []string
				for i := 0; i < b.N; i++ {
					f, err := fitGPCPlusWith(context.Background(), ds, y, v, model.Options{Seed: 1}, plusSettings{fdGradients: fd})
					if err != nil {
						b.Fatal(err)
					}
					ex, warns = f.Report().Extras, f.Report().Warnings
				}
				b.ReportMetric(1e3*(cpuSeconds()-c0)/float64(b.N), "cpu-ms/op")
				for _, k := range []string{"log_marginal_likelihood", "evidence_evaluations", "fd_gradients", "ep_sweeps_total", "fd_gradient_sweeps"} {
					b.ReportMetric(ex[k], k)
				}
				b.Logf("log Z %.6f ℓ_f %.4f ℓ_g %.4f m_g %.4f warnings %q", ex["log_marginal_likelihood"], ex["lengthscale"], ex["glengthscale"], ex["gmean"], warns)
			})
		}
	}
}

// BenchmarkEP: one EP run at fixed hyper-parameters (optimize=false).
func BenchmarkEP(b *testing.B) {
	for _, n := range []int{100, 200, 400, 800} {
		for _, id := range []string{"gpc", "gpcplus"} {
			b.Run(fmt.Sprintf("%s/n=%d", id, n), func(b *testing.B) {
				benchFit(b, id, n, epSet(id))
			})
		}
	}
}

func epSet(id string) map[string]string {
	if id == "gpc" {
		return map[string]string{"optimize": "false", "lengthscale": "1"}
	}
	return map[string]string{"optimize": "false", "lengthscale": "1", "glengthscale": "1"}
}

// BenchmarkPredictGrid: probabilities of a fitted GPC / GPC+ (n training
// points, fixed hyper-parameters) on a 200×200 grid (40 000 points), as the
// UI's decision-surface plot does.
func BenchmarkPredictGrid(b *testing.B) {
	for _, n := range []int{70, 400} {
		for _, id := range []string{"gpc", "gpcplus"} {
			b.Run(fmt.Sprintf("%s/n=%d", id, n), func(b *testing.B) {
				ds := benchData(b, n)
				spec, _ := model.Lookup(id)
				v, err := spec.Resolve(model.Values(epSet(id)))
				if err != nil {
					b.Fatal(err)
				}
				f, err := spec.Fit(context.Background(), ds, v, model.Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				const side = 200
				grid := mat.NewDense(side*side, 2, nil)
				for i := 0; i < side; i++ {
					for j := 0; j < side; j++ {
						grid.Set(i*side+j, 0, -3+6*float64(i)/(side-1))
						grid.Set(i*side+j, 1, -3+6*float64(j)/(side-1))
					}
				}
				in := &data.Dataset{X: grid, Classes: ds.Classes}
				b.ReportAllocs()
				b.ResetTimer()
				c0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					if _, err := f.Predict(in); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(1e3*(cpuSeconds()-c0)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// cpuSeconds is the process's user + system CPU time: on a shared machine it
// is a steadier measure than wall time (0 where the platform has none).
func cpuSeconds() float64 {
	c, _ := cputime.Process()
	return c
}
