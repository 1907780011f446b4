package twin

// Benchmarks behind scripts/bench-twin.sh: fit times at the paper's size and
// test accuracy on the shipped two-view data (go test -bench 'Timing|Accuracy'
// ./models/twin; they take minutes). Timings and accuracies are reported,
// never asserted.

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	_ "lupilab/models/svm" // the per-view SVM baseline
)

// benchPairs is the number of class pairs per dataset of BenchmarkAccuracy
// (go test -bench Accuracy ./models/twin -args -twin.pairs=8).
var benchPairs = flag.Int("twin.pairs", 4, "BenchmarkAccuracy: class pairs per dataset")

// benchSpec resolves id's values for a benchmark.
func benchSpec(b *testing.B, id string, v model.Values) (*model.Spec, model.Values) {
	b.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		b.Fatal(err)
	}
	rv, err := spec.Resolve(v)
	if err != nil {
		b.Fatal(err)
	}
	return spec, rv
}

// BenchmarkTiming: one fit at n = 400 (200 per class, the paper's size) on
// twoview2d, per kernel and model (twsvm, wltsvm with k = 5 and 11, mpwtsvm
// with coupling c = 0 and 1). Reported besides the time: the share of
// constraints the k-NN pruning drops and, for MPWTSVM, the majorisation
// steps and KKT residuals of both planes and the shares dropped per view.
func BenchmarkTiming(b *testing.B) {
	ds, err := data.TwoView2D(400, 0.1, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, kn := range []string{"linear", "rbf"} {
		for _, tc := range []struct {
			id string
			kv []string
		}{
			{"twsvm", nil},
			{"wltsvm", []string{"k", "5"}},
			{"wltsvm", []string{"k", "11"}},
			{"mpwtsvm", []string{"c", "0", "k", "5"}},
			{"mpwtsvm", []string{"c", "1", "k", "5"}},
			{"mpwtsvm", []string{"c", "1", "k", "11"}},
		} {
			v := model.Values{"kernel": kn}
			name := []string{kn, tc.id}
			for i := 0; i+1 < len(tc.kv); i += 2 {
				v[tc.kv[i]] = tc.kv[i+1]
				name = append(name, tc.kv[i]+"="+tc.kv[i+1])
			}
			spec, rv := benchSpec(b, tc.id, v)
			b.Run(strings.Join(name, "/"), func(b *testing.B) {
				var f model.Fitted
				for i := 0; i < b.N; i++ {
					if f, err = spec.Fit(context.Background(), ds, rv, model.Options{}); err != nil {
						b.Fatalf("%s: %v", tc.id, err)
					}
				}
				r := f.Report()
				b.ReportMetric(r.Extras["dropped_fraction"], "dropped")
				if tc.id == "mpwtsvm" {
					b.ReportMetric(r.Extras["rounds_10"], "steps10")
					b.ReportMetric(r.Extras["rounds_11"], "steps11")
					b.ReportMetric(r.Extras["kkt_residual_10"], "kkt10")
					b.ReportMetric(r.Extras["kkt_residual_11"], "kkt11")
					b.ReportMetric(r.Extras["dropped_fraction_A"], "droppedA")
					b.ReportMetric(r.Extras["dropped_fraction_B"], "droppedB")
				}
				if !r.Converged {
					b.Logf("%s %v: not converged", tc.id, v)
				}
			})
		}
	}
}

// pairTasks returns, for each of up to maxPairs class pairs (a, b), a
// training set with nTrain rows per class and a test set with the rest, both
// scaled to [0, 1] with the training set's ranges (the paper's protocol).
func pairTasks(t testing.TB, ds *data.Dataset, nTrain, maxPairs int, seed int64) [][2]*data.Dataset {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	k := len(ds.Classes)
	var pairs [][2]int
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			pairs = append(pairs, [2]int{a, b})
		}
	}
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if len(pairs) > maxPairs {
		pairs = pairs[:maxPairs]
	}
	var out [][2]*data.Dataset
	for _, p := range pairs {
		var tr, te []int
		for c := 0; c < 2; c++ {
			var rows []int
			for i, y := range ds.Y {
				if y == p[c] {
					rows = append(rows, i)
				}
			}
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			n := nTrain
			if n > len(rows)*2/3 {
				n = len(rows) * 2 / 3
			}
			tr, te = append(tr, rows[:n]...), append(te, rows[n:]...)
		}
		mk := func(rows []int) *data.Dataset {
			s := model.Subset(ds, rows)
			for i, y := range s.Y {
				if y == p[1] {
					s.Y[i] = 1
				} else {
					s.Y[i] = 0
				}
			}
			s.Classes = []string{ds.Classes[p[0]], ds.Classes[p[1]]}
			return s
		}
		train, test := mk(tr), mk(te)
		sc, err := data.FitScaler(train, "minmax")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]*data.Dataset{sc.Apply(train), sc.Apply(test)})
	}
	return out
}

func accuracy(labels, y []int) float64 {
	c := 0
	for i := range y {
		if labels[i] == y[i] {
			c++
		}
	}
	return float64(c) / float64(len(y))
}

// BenchmarkAccuracy: one-vs-one tasks of the shipped two-view datasets,
// MPWTSVM (rules A, B, both) against plain per-view SVMs and per-view
// TWSVM / WLTSVM. Fixed hyper-parameters (no CV, to keep the run short):
// C = C_A = C_B = 1, RBF γ = 1/d per view for the single-view models and
// γ = 2/(d_A + d_B) shared by MPWTSVM's views (one width, as in the paper),
// k = 5, coupling C = 1, γ_B = 1. One operation fits every task; reported:
// mean test accuracy (acc; for mpwtsvm also accA and accB, the rules of one
// view) and mean seconds per fit (s/fit).
func BenchmarkAccuracy(b *testing.B) {
	dir := filepath.Join("..", "..", "web", "datasets")
	viewB := func(s *data.Dataset) *data.Dataset {
		c := *s
		c.X, c.XNames, c.Z, c.ZNames = s.Z, s.ZNames, nil, nil
		return &c
	}
	for _, name := range []string{"segment-twoview", "digits-twoview"} {
		ds, err := data.LoadShipped(dir, name)
		if err != nil {
			b.Fatal(err)
		}
		tasks := pairTasks(b, ds, 200, *benchPairs, 1)
		dA, dB := ds.Dim(), ds.ZDim()
		gA, gB, gAB := fmt.Sprint(1/float64(dA)), fmt.Sprint(1/float64(dB)), fmt.Sprint(2/float64(dA+dB))
		for _, c := range []struct {
			col, id string
			viewB   bool
			v       model.Values
		}{
			{"svm-A", "svm", false, model.Values{"kernel": "rbf", "gamma": gA}},
			{"svm-B", "svm", true, model.Values{"kernel": "rbf", "gamma": gB}},
			{"twsvm-A", "twsvm", false, model.Values{"kernel": "rbf", "gamma": gA}},
			{"wltsvm-A", "wltsvm", false, model.Values{"kernel": "rbf", "gamma": gA}},
			{"wltsvm-B", "wltsvm", true, model.Values{"kernel": "rbf", "gamma": gB}},
			{"mpwtsvm", "mpwtsvm", false, model.Values{"gamma": gAB}},
			{"mpwtsvm-c=0", "mpwtsvm", false, model.Values{"gamma": gAB, "c": "0"}},
		} {
			spec, rv := benchSpec(b, c.id, c.v)
			b.Run(name+"/"+c.col, func(b *testing.B) {
				var acc, accA, accB float64
				for i := 0; i < b.N; i++ {
					acc, accA, accB = 0, 0, 0
					for _, tk := range tasks {
						train, test := tk[0], tk[1]
						if c.viewB {
							train, test = viewB(train), viewB(test)
						}
						f, err := spec.Fit(context.Background(), train, rv, model.Options{})
						if err != nil {
							b.Fatalf("%s %s: %v", name, c.id, err)
						}
						if !f.Report().Converged {
							b.Logf("%s %s %v: not converged", name, c.id, c.v)
						}
						p, err := f.Predict(test)
						if err != nil {
							b.Fatal(err)
						}
						acc += accuracy(p.Labels, test.Y)
						if p.Views != nil {
							accA += accuracy(signLabels(p.Views["A"]), test.Y)
							accB += accuracy(signLabels(p.Views["B"]), test.Y)
						}
					}
				}
				nt := float64(len(tasks))
				b.ReportMetric(acc/nt, "acc")
				if c.id == "mpwtsvm" {
					b.ReportMetric(accA/nt, "accA")
					b.ReportMetric(accB/nt, "accB")
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/nt, "s/fit")
			})
		}
	}
}

// signLabels are the class indices (0 or 1) of decision values.
func signLabels(d []float64) []int {
	out := make([]int, len(d))
	for i, v := range d {
		if v > 0 {
			out[i] = 1
		}
	}
	return out
}
