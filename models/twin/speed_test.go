package twin

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"lupilab/models/cputime"
	"lupilab/models/data"
	"lupilab/models/model"
)

// speedData is the browser's default task: twoview2d (noise 0.2, seed 1)
// with n rows, standardised.
func speedData(tb testing.TB, n int) *data.Dataset {
	tb.Helper()
	ds, err := data.GenerateByName("twoview2d", n, 0.2, 1)
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := data.FitScaler(ds, "standard")
	if err != nil {
		tb.Fatal(err)
	}
	return sc.Apply(ds)
}

// BenchmarkMPWTSVMSpeed times one MPWTSVM fit with default parameters
// (RBF, C = 1) on twoview2d, and reports the largest gap between two
// progress callbacks (the browser yields only there) as maxgap-ms, and the
// objective (for before/after comparisons: it must not change).
func BenchmarkMPWTSVMSpeed(b *testing.B) {
	for _, n := range []int{70, 400} {
		ds := speedData(b, n)
		spec, err := model.Lookup("mpwtsvm")
		if err != nil {
			b.Fatal(err)
		}
		v, err := spec.Resolve(model.Values{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var gap time.Duration
			var f model.Fitted
			var where string
			var cpuGap float64 // the same in thread CPU time (Linux)
			var cpuWhere string
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := 0; i < b.N; i++ {
				last := time.Now()
				lastCPU, _ := cputime.Thread()
				prev := "start"
				opt := model.Options{Progress: func(p model.Progress) {
					if d := time.Since(last); d > gap {
						gap, where = d, prev+" → "+p.Stage+" "+p.Message
					}
					if c, ok := cputime.Thread(); ok {
						if c-lastCPU > cpuGap {
							cpuGap, cpuWhere = c-lastCPU, prev+" → "+p.Stage+" "+p.Message
						}
						lastCPU = c
					}
					last, prev = time.Now(), p.Stage+" "+p.Message
				}}
				f, err = spec.Fit(context.Background(), ds, v, opt)
				if err != nil {
					b.Fatal(err)
				}
			}
			r := f.Report()
			b.ReportMetric(float64(gap.Microseconds())/1e3, "maxgap-ms")
			if cpuGap > 0 {
				b.ReportMetric(cpuGap*1e3, "maxgap-cpu-ms")
			}
			b.ReportMetric(r.Objective, "objective")
			b.ReportMetric(float64(r.Iterations), "steps")
			for _, k := range []string{"ccp_steps", "steps_in_6n", "rounds_10", "rounds_11"} {
				if v, ok := r.Extras[k]; ok {
					b.ReportMetric(v, k)
				}
			}
			b.Logf("objective %.10g converged %v %q; largest progress gap %v: %s; in thread CPU time %.1f ms: %s", r.Objective, r.Converged, r.Warnings, gap, where, cpuGap*1e3, cpuWhere)
		})
	}
}
