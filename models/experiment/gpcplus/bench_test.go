package gpcplus

import (
	"context"
	"fmt"
	"testing"

	"lupilab/models/data"
	"lupilab/models/gp"
	"lupilab/models/model"
)

// BenchmarkWDBCSearch times GPC's and GPC+'s type-II ML on the first repeats
// of the experiment's wdbc task (its splits, standardisation and starting
// length-scales, -seed 1) and reports the search's evidence evaluations,
// EP sweeps, the evidence reached and the length-scales and g mean chosen
// (models/gp/RESULTS.md explains their time ratio there with them):
//
//	go test -run '^$' -bench WDBCSearch -benchtime 1x ./models/experiment/gpcplus
func BenchmarkWDBCSearch(b *testing.B) {
	ds, err := data.LoadShipped("../../../web/datasets", "wdbc")
	if err != nil {
		b.Fatal(err)
	}
	N := ds.Rows()
	ntr, nva := min(200, N/3), min(200, N/3)
	for r := 0; r < 5; r++ {
		// the experiment's repeat r of its first task, with -seed 1
		train, _, _, err := RepeatSplit(ds, ntr, nva, 1+int64(r)*7919)
		if err != nil {
			b.Fatal(err)
		}
		mx, mz := gp.MedianDistance(train.X), gp.MedianDistance(train.Z)
		for _, id := range []string{"gpc", "gpcplus"} {
			spec, _ := model.Lookup(id)
			set := model.Values{"lengthscale": fmtF(mx), "restarts": "0"}
			if id == "gpcplus" {
				set["glengthscale"] = fmtF(mz)
			}
			v, err := spec.Resolve(set)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("repeat=%d/%s", r+1, id), func(b *testing.B) {
				var ex map[string]float64
				for b.Loop() {
					f, err := spec.Fit(context.Background(), train, v, model.Options{})
					if err != nil {
						b.Fatal(err)
					}
					ex = f.Report().Extras
				}
				for _, k := range []string{"evidence_evaluations", "ep_sweeps_total", "log_marginal_likelihood", "lengthscale", "glengthscale", "gmean"} {
					if x, ok := ex[k]; ok {
						b.ReportMetric(x, k)
					}
				}
			})
		}
	}
}
