package multiview

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
)

// benchTasks are one-vs-one tasks of the shipped two-view data, the first
// perClass rows of each class, scaled to [0, 1].
var benchTasks = []struct{ dataset, neg, pos string }{
	{"segment-twoview", "path", "grass"},
	{"digits-twoview", "3", "8"},
}

func benchTask(tb testing.TB, dataset, neg, pos string, perClass int) *data.Dataset {
	tb.Helper()
	ds, err := data.LoadShipped(filepath.Join("..", "..", "web", "datasets"), dataset)
	if err != nil {
		tb.Fatalf("shipped data unavailable: %v", err)
	}
	t, err := data.OneVsOne(ds, neg, pos)
	if err != nil {
		tb.Fatal(err)
	}
	count := map[int]int{}
	var rows []int
	for i, c := range t.Y {
		if count[c] < perClass {
			count[c]++
			rows = append(rows, i)
		}
	}
	sub := data.Subset(t, rows)
	sc, err := data.FitScaler(sub, data.ScaleMinMax)
	if err != nil {
		tb.Fatal(err)
	}
	return sc.Apply(sub)
}

// benchValues are fixed parameters: penalties 1, RBF with σ = √(d/6) for
// both views (d of the larger view, as the experiment's reduced grid).
func benchValues(ds *data.Dataset) model.Values {
	d := math.Max(float64(ds.Dim()), float64(ds.ZDim()))
	g := strconv.FormatFloat(6/d, 'g', -1, 64)
	return model.Values{"kernel": "rbf", "zkernel": "rbf", "gamma": g, "zgamma": g}
}

// Test flags of the benchmarks (go test -bench Fit ./models/multiview -args
// -mv.perclass=100 -mv.export=DIR), passed by scripts/bench-multiview.sh.
var (
	benchPerClassFlag = flag.Int("mv.perclass", 0, "BenchmarkFit: rows per class of each task (default 25, 50 and 100)")
	benchExport       = flag.String("mv.export", "", "BenchmarkFit writes each SVM-2K task it times, with its objective, to this directory")
)

func benchPerClass() []int {
	if n := *benchPerClassFlag; n > 1 {
		return []int{n}
	}
	return []int{25, 50, 100}
}

// BenchmarkFit times one fit (both QPs / all convex–concave steps) of each
// model per task size. With -mv.export=DIR it writes each task SVM-2K
// solved (scaled views, labels) with gamma and its dual objective as
// DIR/<task>.csv, for the side-by-side cvxopt reference in
// scripts/bench-multiview.sh.
func BenchmarkFit(b *testing.B) {
	for _, task := range benchTasks {
		for _, pc := range benchPerClass() {
			ds := benchTask(b, task.dataset, task.neg, task.pos, pc)
			v := benchValues(ds)
			name := fmt.Sprintf("%s_%s-vs-%s/n=%d", task.dataset, task.neg, task.pos, 2*pc)
			for _, id := range ids {
				spec, _ := model.Lookup(id)
				b.Run(id+"/"+name, func(b *testing.B) {
					var f model.Fitted
					for i := 0; i < b.N; i++ {
						var err error
						if f, err = spec.Fit(context.Background(), ds, v, model.Options{}); err != nil {
							b.Fatal(err)
						}
					}
					if id == "svm2k" && *benchExport != "" {
						exportTask(b, filepath.Join(*benchExport, strings.Replace(name, "/", "_", 1)+".csv"), ds, v, f)
					}
				})
			}
		}
	}
}

// exportTask writes a task as CSV after a header line with gamma and our
// SVM-2K dual objective (C = C_B = D = 1, ε = 0).
func exportTask(b *testing.B, path string, ds *data.Dataset, v model.Values, f model.Fitted) {
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(out, "# gamma=%s obj=%.12g\n", v["gamma"], f.Report().Objective)
	if err := data.WriteCSV(out, ds); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
