// Package progressbench measures how often a fit reports progress: the
// browser yields to the page only in a fit's progress callback, so the
// largest gap between two callbacks is how long the tab freezes. The twin
// and multi-view benchmarks share it.
package progressbench

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

// Data is the browser's default task: twoview2d (noise 0.2, seed 1) with n
// rows, standardised.
func Data(tb testing.TB, n int) *data.Dataset {
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

// Run times one fit of model id with default parameters on Data(n) per
// size (sub-benchmarks n=…) and reports the largest gap between two
// progress callbacks in wall time (maxgap-ms) and, on Linux, in thread CPU
// time (maxgap-cpu-ms), the objective and steps (for before/after
// comparisons: they must not change) and the extras named in extras that
// the fit reports. It logs where the largest gaps were.
func Run(b *testing.B, id string, sizes []int, extras ...string) {
	spec, err := model.Lookup(id)
	if err != nil {
		b.Fatal(err)
	}
	v, err := spec.Resolve(model.Values{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		ds := Data(b, n)
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
				if f, err = spec.Fit(context.Background(), ds, v, opt); err != nil {
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
			for _, k := range extras {
				if v, ok := r.Extras[k]; ok {
					b.ReportMetric(v, k)
				}
			}
			b.Logf("objective %.10g converged %v %q; largest progress gap %v: %s; in thread CPU time %.1f ms: %s", r.Objective, r.Converged, r.Warnings, gap, where, cpuGap*1e3, cpuWhere)
		})
	}
}
