package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lupilab/models/experiment"
)

func lupi(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), code
}

// writeCSV writes n rows of a noisy 2-D problem with classes "a" / "b".
func writeCSV(t *testing.T, dir, name string, n int, seed uint64, mutate func(i int, row []string) []string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("x1,x2,y\n")
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		lab := "a"
		if x1+0.5*x2+0.3*rng.NormFloat64() > 0 {
			lab = "b"
		}
		row := []string{fmt.Sprint(x1), fmt.Sprint(x2), lab}
		if mutate != nil {
			row = mutate(i, row)
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModels(t *testing.T) {
	out, errs, code := lupi(t, "models")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var specs []map[string]any
	if err := json.Unmarshal([]byte(out), &specs); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, s := range specs {
		found[s["id"].(string)] = true
		if s["params"] == nil || s["paper"] == "" {
			t.Errorf("spec %v lacks params or paper", s["id"])
		}
	}
	if !found["svm"] || !found["l2svm"] {
		t.Fatalf("svm / l2svm missing from %v", found)
	}
}

func TestFitPredict(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, "train.csv", 120, 1, nil)
	test := writeCSV(t, dir, "test.csv", 60, 2, nil)
	mf := filepath.Join(dir, "m.json")
	out, errs, code := lupi(t, "fit", "-model", "svm", "-train", train, "-test", test, "-set", "C=3", "-set", "kernel=linear", "-set", "probability=true", "-seed", "4", "-o", mf)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "params", "n_train", "train_seconds", "converged", "iterations", "objective", "n_support", "rho", "bias", "train_metrics", "test_metrics"} {
		if _, ok := r[k]; !ok {
			t.Errorf("fit output lacks %q", k)
		}
	}
	if r["n_train"].(float64) != 120 || r["params"].(map[string]any)["C"] != "3" || r["converged"] != true {
		t.Errorf("fit output %v", r)
	}
	acc := r["test_metrics"].(map[string]any)["accuracy"].(float64)
	if acc < 0.8 {
		t.Errorf("test accuracy %g", acc)
	}
	if o := r["objective"].(float64); !(o < 0) {
		t.Errorf("objective %g should be negative (LIBSVM's minimisation form)", o)
	}
	out, errs, code = lupi(t, "predict", "-model-file", mf, "-data", test)
	if code != 0 {
		t.Fatalf("predict exit %d: %s", code, errs)
	}
	var p struct {
		N        int         `json:"n"`
		Decision []float64   `json:"decision"`
		Labels   []string    `json:"labels"`
		Classes  []string    `json:"classes"`
		Prob     [][]float64 `json:"prob"`
		Metrics  map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.N != 60 || len(p.Decision) != 60 || len(p.Labels) != 60 || len(p.Prob) != 60 {
		t.Fatalf("predict output sizes: %+v", p)
	}
	for i, d := range p.Decision {
		want := p.Classes[0]
		if d > 0 {
			want = p.Classes[1]
		}
		if p.Labels[i] != want || math.Abs(p.Prob[i][0]+p.Prob[i][1]-1) > 1e-12 {
			t.Fatalf("row %d: decision %g, label %s, prob %v", i, d, p.Labels[i], p.Prob[i])
		}
	}
	if math.Abs(p.Metrics["accuracy"]-acc) > 1e-12 {
		t.Errorf("predict accuracy %g, fit said %g", p.Metrics["accuracy"], acc)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, "train.csv", 40, 3, nil)
	oneClass := writeCSV(t, dir, "one.csv", 20, 4, func(_ int, r []string) []string { r[2] = "a"; return r })
	nan := writeCSV(t, dir, "nan.csv", 20, 5, func(i int, r []string) []string {
		if i == 7 {
			r[0] = "NaN"
		}
		return r
	})
	single := writeCSV(t, dir, "single.csv", 1, 6, nil)
	garbage := filepath.Join(dir, "bad.csv")
	os.WriteFile(garbage, []byte("x1,x2,y\n1,2\n3,4,a,5\n"), 0o644)
	wide := filepath.Join(dir, "wide.csv")
	os.WriteFile(wide, []byte("x1,x2,x3,y\n1,2,3,a\n3,4,5,b\n"), 0o644)
	notModel := filepath.Join(dir, "notmodel.json")
	os.WriteFile(notModel, []byte(`{"hello": 1}`), 0o644)
	mf := filepath.Join(dir, "m.json")
	if _, e, c := lupi(t, "fit", "-model", "svm", "-train", train, "-o", mf); c != 0 {
		t.Fatal(e)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "no command"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"models", "x"}, 2, "no arguments"},
		{[]string{"fit", "-train", train}, 2, "-model is required"},
		{[]string{"fit", "-model", "svm"}, 2, "-train is required"},
		{[]string{"fit", "-model", "nope", "-train", train}, 1, "unknown model"},
		{[]string{"fit", "-model", "svm", "-train", train, "-bogus"}, 2, "bogus"},
		{[]string{"fit", "-model", "svm", "-train", train, "-set", "C"}, 2, "name=value"},
		{[]string{"fit", "-model", "svm", "-train", train, "-set", "C=0"}, 1, "outside"},
		{[]string{"fit", "-model", "svm", "-train", train, "-set", "gamma=-1"}, 1, "gamma"},
		{[]string{"fit", "-model", "svm", "-train", train, "-set", "zap=1"}, 1, "no parameter"},
		{[]string{"fit", "-model", "svm", "-train", filepath.Join(dir, "missing.csv")}, 1, "missing.csv"},
		{[]string{"fit", "-model", "svm", "-train", oneClass}, 1, "class"},
		{[]string{"fit", "-model", "svm", "-train", nan}, 1, "finite"},
		{[]string{"fit", "-model", "svm", "-train", single}, 1, ""},
		{[]string{"fit", "-model", "svm", "-train", garbage}, 1, "bad.csv"},
		{[]string{"fit", "-model", "svm", "-train", train, "-test", wide}, 1, "columns"},
		{[]string{"predict", "-model-file", mf}, 2, "required"},
		{[]string{"predict", "-model-file", notModel, "-data", train}, 1, "model file"},
		{[]string{"predict", "-model-file", mf, "-data", wide}, 1, "features"},
		{[]string{"experiment"}, 2, "name required"},
		{[]string{"experiment", "no-such-experiment"}, 1, "unknown experiment"},
		{[]string{"experiment", "-quick"}, 2, "name comes first"},
	}
	for _, c := range cases {
		out, errs, code := lupi(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errs)
		}
		if out != "" {
			t.Errorf("%v: printed %q on stdout on error", c.args, out)
		}
		if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "lupi: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%v: stderr %q, want one line mentioning %q", c.args, errs, c.want)
		}
	}
}

func TestExperiment(t *testing.T) {
	var got experiment.Config
	experiment.Register(&experiment.Experiment{Name: "cli-test", Title: "CLI test", Paper: "none",
		Run: func(_ context.Context, cfg experiment.Config) (*experiment.Result, error) {
			got = cfg
			return &experiment.Result{Name: "cli-test", Paper: "none", Tables: []experiment.Table{{Title: "T", Columns: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}}}, nil
		}})
	out, errs, code := lupi(t, "experiment", "list")
	if code != 0 || !strings.Contains(out, `"cli-test"`) {
		t.Fatalf("list: exit %d, %s %s", code, out, errs)
	}
	dir := t.TempDir()
	js, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	out, errs, code = lupi(t, "experiment", "cli-test", "-quick", "-seed", "7", "-repeats", "3", "-data", "DD", "-set", "k=v", "-json", js, "-md", md)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !got.Quick || got.Seed != 7 || got.Repeats != 3 || got.DataDir != "DD" || got.Args["k"] != "v" {
		t.Errorf("config %+v", got)
	}
	if !strings.Contains(out, "| 1 | 2 |") {
		t.Errorf("markdown %q", out)
	}
	if b, _ := os.ReadFile(md); string(b) != out {
		t.Errorf("-md file differs from stdout")
	}
	var r map[string]any
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &r) != nil || r["name"] != "cli-test" {
		t.Errorf("-json file: %v %v", err, r)
	}
}
