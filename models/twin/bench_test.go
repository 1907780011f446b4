package twin

// Benchmarks and the accuracy report behind scripts/bench-twin.sh. They run
// only when TWIN_BENCH is set (they take minutes); timings are printed, never
// asserted.

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"lupilab/models/data"
	"lupilab/models/model"
	_ "lupilab/models/svm" // the per-view SVM baseline
)

func benchOnly(t *testing.T) {
	if os.Getenv("TWIN_BENCH") == "" {
		t.Skip("set TWIN_BENCH=1 (scripts/bench-twin.sh) to run")
	}
}

// fitTime fits id on ds with v three times and returns the smallest wall
// time (the least disturbed by other jobs on a shared machine) and the last fit.
func fitTime(t *testing.T, id string, ds *data.Dataset, v model.Values) (time.Duration, model.Fitted) {
	t.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := spec.Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	var ts []time.Duration
	var f model.Fitted
	for r := 0; r < 3; r++ {
		runtime.GC()
		start := time.Now()
		f, err = spec.Fit(context.Background(), ds, rv, model.Options{})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		ts = append(ts, time.Since(start))
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	return ts[0], f
}

// TestBenchTiming: n = 400 (200 per class, the paper's size) on twoview2d.
func TestBenchTiming(t *testing.T) {
	benchOnly(t)
	ds, err := data.TwoView2D(400, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\n== fit time at n = 400 (200 per class), twoview2d, best of 3 (wall clock; the machine is shared) ==\n")
	fmt.Printf("%-8s %-7s %-28s %9s %8s %9s %s\n", "model", "kernel", "params", "seconds", "dropped", "conv", "notes")
	for _, kn := range []string{"linear", "rbf"} {
		var tTW time.Duration
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
			for i := 0; i+1 < len(tc.kv); i += 2 {
				v[tc.kv[i]] = tc.kv[i+1]
			}
			d, f := fitTime(t, tc.id, ds, v)
			r := f.Report()
			note := ""
			if tc.id == "twsvm" {
				tTW = d
			} else if tc.id == "wltsvm" {
				note = fmt.Sprintf("time / TWSVM = %.2f", d.Seconds()/tTW.Seconds())
			} else {
				note = fmt.Sprintf("MM steps %v/%v, KKT %.1e/%.1e", r.Extras["rounds_10"], r.Extras["rounds_11"], r.Extras["kkt_residual_10"], r.Extras["kkt_residual_11"])
			}
			drop := r.Extras["dropped_fraction"]
			if tc.id == "mpwtsvm" {
				note += fmt.Sprintf(", dropped A %.2f B %.2f", r.Extras["dropped_fraction_A"], r.Extras["dropped_fraction_B"])
			}
			fmt.Printf("%-8s %-7s %-28s %9.3f %8.2f %9v %s\n", tc.id, kn, fmt.Sprint(tc.kv), d.Seconds(), drop, r.Converged, note)
		}
	}
}

// pairTasks returns, for each of up to maxPairs class pairs (a, b), a
// training set with nTrain rows per class and a test set with the rest, both
// scaled to [0, 1] with the training set's ranges (the paper's protocol).
func pairTasks(t *testing.T, ds *data.Dataset, nTrain, maxPairs int, seed int64) [][2]*data.Dataset {
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

// benchPairs is the number of class pairs per dataset (TWIN_BENCH_PAIRS, default 4).
func benchPairs() int {
	n := 4
	fmt.Sscan(os.Getenv("TWIN_BENCH_PAIRS"), &n)
	return n
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

// TestBenchAccuracy: one-vs-one tasks of the shipped two-view datasets,
// MPWTSVM (rules A, B, both) against plain per-view SVMs and per-view
// TWSVM / WLTSVM. Fixed hyper-parameters (no CV, to keep the run short):
// C = C_A = C_B = 1, RBF γ = 1/d per view for the single-view models and
// γ = 2/(d_A + d_B) shared by MPWTSVM's views (one width, as in the paper),
// k = 5, coupling C = 1, γ_B = 1.
func TestBenchAccuracy(t *testing.T) {
	benchOnly(t)
	dir := filepath.Join("..", "..", "web", "datasets")
	for _, name := range []string{"segment-twoview", "digits-twoview"} {
		ds, err := data.LoadShipped(dir, name)
		if err != nil {
			t.Logf("skip %s: %v", name, err)
			continue
		}
		tasks := pairTasks(t, ds, 200, benchPairs(), 1)
		dA, dB := ds.Dim(), ds.ZDim()
		cols := []string{"svm A", "svm B", "twsvm A", "wltsvm A", "wltsvm B", "mpw A", "mpw B", "mpw both", "mpw C=0 both"}
		sum := make([]float64, len(cols))
		secs := make([]float64, len(cols))
		for _, tk := range tasks {
			train, test := tk[0], tk[1]
			viewB := func(s *data.Dataset) *data.Dataset {
				c := *s
				c.X, c.XNames, c.Z, c.ZNames = s.Z, s.ZNames, nil, nil
				return &c
			}
			fit := func(col int, id string, tr, te *data.Dataset, v model.Values) *model.Prediction {
				spec, _ := model.Lookup(id)
				rv, err := spec.Resolve(v)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				f, err := spec.Fit(context.Background(), tr, rv, model.Options{})
				if err != nil {
					t.Fatalf("%s %s: %v", name, id, err)
				}
				secs[col] += time.Since(start).Seconds()
				if os.Getenv("TWIN_BENCH_VERBOSE") != "" {
					fmt.Printf("  %s %s %v: %.2fs converged %v\n", name, id, v, time.Since(start).Seconds(), f.Report().Converged)
				}
				p, err := f.Predict(te)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			gA, gB, gAB := fmt.Sprint(1/float64(dA)), fmt.Sprint(1/float64(dB)), fmt.Sprint(2/float64(dA+dB))
			sum[0] += accuracy(fit(0, "svm", train, test, model.Values{"kernel": "rbf", "gamma": gA}).Labels, test.Y)
			sum[1] += accuracy(fit(1, "svm", viewB(train), viewB(test), model.Values{"kernel": "rbf", "gamma": gB}).Labels, test.Y)
			sum[2] += accuracy(fit(2, "twsvm", train, test, model.Values{"kernel": "rbf", "gamma": gA}).Labels, test.Y)
			sum[3] += accuracy(fit(3, "wltsvm", train, test, model.Values{"kernel": "rbf", "gamma": gA}).Labels, test.Y)
			sum[4] += accuracy(fit(4, "wltsvm", viewB(train), viewB(test), model.Values{"kernel": "rbf", "gamma": gB}).Labels, test.Y)
			p := fit(5, "mpwtsvm", train, test, model.Values{"gamma": gAB})
			lab := func(d []float64) []int {
				out := make([]int, len(d))
				for i, v := range d {
					if v > 0 {
						out[i] = 1
					}
				}
				return out
			}
			sum[5] += accuracy(lab(p.Views["A"]), test.Y)
			sum[6] += accuracy(lab(p.Views["B"]), test.Y)
			sum[7] += accuracy(p.Labels, test.Y)
			secs[6], secs[7] = secs[5], secs[5]
			sum[8] += accuracy(fit(8, "mpwtsvm", train, test, model.Values{"gamma": gAB, "c": "0"}).Labels, test.Y)
		}
		fmt.Printf("\n== %s: %d one-vs-one tasks, ≤200 training rows per class, rest for testing, minmax-scaled (views %d + %d columns) ==\n", name, len(tasks), dA, dB)
		for i, c := range cols {
			fmt.Printf("%-14s mean test accuracy %.4f   mean fit %.3f s\n", c, sum[i]/float64(len(tasks)), secs[i]/float64(len(tasks)))
		}
	}
}
