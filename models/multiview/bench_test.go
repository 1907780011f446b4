package multiview

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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
		tb.Skipf("shipped data unavailable: %v", err)
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

func benchPerClass() []int {
	if s := os.Getenv("MV_BENCH_PER_CLASS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 1 {
			return []int{n}
		}
	}
	return []int{25, 50, 100}
}

// BenchmarkFit times one fit (both QPs / all convex–concave steps) of each
// model per task size.
func BenchmarkFit(b *testing.B) {
	for _, task := range benchTasks {
		for _, pc := range benchPerClass() {
			ds := benchTask(b, task.dataset, task.neg, task.pos, pc)
			v := benchValues(ds)
			for _, id := range ids {
				spec, _ := model.Lookup(id)
				b.Run(fmt.Sprintf("%s/%s_%s-vs-%s/n=%d", id, task.dataset, task.neg, task.pos, 2*pc), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if _, err := spec.Fit(context.Background(), ds, v, model.Options{}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestExportBenchTask writes the benchmark tasks (scaled views, labels,
// gamma, and SVM-2K's dual objective from our fit) for the side-by-side
// reference in scripts/bench-multiview.sh. It runs only when
// MV_BENCH_EXPORT names an output directory.
func TestExportBenchTask(t *testing.T) {
	dir := os.Getenv("MV_BENCH_EXPORT")
	if dir == "" {
		t.Skip("set MV_BENCH_EXPORT=DIR to export the benchmark tasks")
	}
	for _, task := range benchTasks {
		for _, pc := range benchPerClass() {
			ds := benchTask(t, task.dataset, task.neg, task.pos, pc)
			v := benchValues(ds)
			spec, _ := model.Lookup("svm2k")
			f, err := spec.Fit(context.Background(), ds, v, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s_%s-vs-%s_n=%d", task.dataset, task.neg, task.pos, 2*pc)
			out, err := os.Create(filepath.Join(dir, name+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			// Header line: gamma and our SVM-2K dual objective (C = C_B = D = 1, ε = 0).
			fmt.Fprintf(out, "# gamma=%s obj=%.12g\n", v["gamma"], f.Report().Objective)
			if err := data.WriteCSV(out, ds); err != nil {
				t.Fatal(err)
			}
			out.Close()
		}
	}
}
