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
	"strconv"
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
		{[]string{"experiment", "jointsvm", "-j", "0"}, 2, "-j must be"},
		{[]string{"experiment", "jointsvm", "-set", "nope=1"}, 1, `no setting "nope"`},
		{[]string{"tune", "-train", "x.csv", "-grid", "C=1"}, 2, "-model is required"},
		{[]string{"tune", "-model", "svm", "-grid", "C=1"}, 2, "-train is required"},
		{[]string{"tune", "-model", "svm", "-train", "x.csv"}, 2, "-grid"},
		{[]string{"tune", "-model", "svm", "-train", "x.csv", "-grid", "C"}, 2, "want name=v1"},
		{[]string{"tune", "-model", "svm", "-train", "x.csv", "-grid", "C=1", "-folds", "1"}, 2, "-folds must be"},
		{[]string{"tune", "-model", "svm", "-train", "x.csv", "-grid", "C=1", "-scale", "log"}, 2, "-scale"},
		{[]string{"tune", "-model", "nope", "-train", "x.csv", "-grid", "C=1"}, 1, "nope"},
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
	experiment.Register(&experiment.Experiment{Name: "cli-test", Title: "CLI test", Paper: "none", Repeats: [2]int{2, 1},
		Settings: []experiment.Setting{{Name: "k", Kind: experiment.Text}},
		Plan: func(env *experiment.Env, done []experiment.Done) (experiment.Stage, error) {
			got = env.Config
			if len(done) > 0 {
				return experiment.Stage{}, nil
			}
			t, err := experiment.NewTask("only", 1, nil)
			return experiment.Stage{Tasks: []experiment.Task{t}}, err
		},
		RunTask: func(context.Context, *experiment.TaskContext) (any, error) { return 1, nil },
		Aggregate: func(*experiment.Env, []experiment.Done) (*experiment.Result, error) {
			return &experiment.Result{Name: "cli-test", Paper: "none", Tables: []experiment.Table{{Title: "T", Columns: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}}}, nil
		}})
	out, errs, code := lupi(t, "experiment", "list")
	if code != 0 || !strings.Contains(out, `"cli-test"`) {
		t.Fatalf("list: exit %d, %s %s", code, out, errs)
	}
	dir := t.TempDir()
	js, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
	out, errs, code = lupi(t, "experiment", "cli-test", "-quick", "-seed", "7", "-repeats", "3", "-data", "DD", "-set", "k=v", "-j", "3", "-timing=false", "-json", js, "-md", md)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !got.Quick || got.Seed != 7 || got.Repeats != 3 || got.DataDir != "DD" || got.Args["k"] != "v" || got.Jobs != 3 || !got.NoTiming {
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
	// -project replays the task times of a -tasks file: one task on any
	// number of workers takes its own time; a file without times is refused
	tasks := filepath.Join(dir, "tasks.json")
	if _, errs, code = lupi(t, "experiment", "cli-test", "-tasks", tasks); code != 0 {
		t.Fatalf("-tasks: exit %d: %s", code, errs)
	}
	out, errs, code = lupi(t, "experiment", "cli-test", "-j", "4", "-project", tasks)
	var p struct {
		Workers, Tasks   int
		Seconds, Speedup float64
		TaskSeconds      float64 `json:"task_seconds"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Workers != 4 || p.Tasks != 1 || p.Seconds <= 0 || p.Seconds != p.TaskSeconds {
		t.Errorf("-project: exit %d, %s %s", code, out, errs)
	}
	if _, errs, code = lupi(t, "experiment", "cli-test", "-timing=false", "-tasks", tasks); code != 0 {
		t.Fatalf("-tasks: exit %d: %s", code, errs)
	}
	if _, errs, code = lupi(t, "experiment", "cli-test", "-project", tasks); code == 0 || !strings.Contains(errs, "no recorded time") {
		t.Errorf("-project of a run without times: exit %d, %s", code, errs)
	}
}

// writeLUPICSV writes n rows of a noisy 2-D problem with classes "n" / "p"
// and, when priv is set, two privileged columns z_1, z_2 (how hard the row
// is, and the noiseless score): the LUPI layout of paper 000 and 002.
func writeLUPICSV(t *testing.T, dir, name string, n int, seed uint64, priv bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	var b strings.Builder
	if priv {
		b.WriteString("x_1,x_2,z_1,z_2,y\n")
	} else {
		b.WriteString("x_1,x_2,y\n")
	}
	for i := 0; i < n; i++ {
		x1, x2, hard := rng.NormFloat64(), rng.NormFloat64(), rng.Float64()
		lab := "n"
		if x1+0.5*x2+hard*rng.NormFloat64() > 0 {
			lab = "p"
		}
		if priv {
			fmt.Fprintf(&b, "%v,%v,%v,%v,%s\n", x1, x2, hard, x1+0.5*x2, lab)
		} else {
			fmt.Fprintf(&b, "%v,%v,%s\n", x1, x2, lab)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fitJSON runs lupi fit and decodes its output.
func fitJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, code := lupi(t, append([]string{"fit"}, args...)...)
	if code != 0 {
		t.Fatalf("fit %v: exit %d: %s", args, code, errs)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLUPIModels: the privileged-information models of papers 000 and 002
// are in the registry and train from a CSV with z_ columns through the CLI,
// and their models predict from x alone (a test file without z). GPC and
// GPC+ report the EP log marginal likelihood; with optimize=false the
// hyper-parameters given by -set are used as they are; a sweep limit is
// reported as converged = false with a warning; type-II ML raises the
// evidence above that of its starting point.
func TestLUPIModels(t *testing.T) {
	out, errs, code := lupi(t, "models")
	if code != 0 {
		t.Fatalf("models: exit %d: %s", code, errs)
	}
	for _, id := range []string{"svm2plus", "svm1plus", "gpc", "gpcplus", "svm2k", "twsvm", "wltsvm", "mpwtsvm", "mvtsvm", "psvm2v", "mcpk", "jointsvm", "indepsvm"} {
		if !strings.Contains(out, `"id": "`+id+`"`) {
			t.Errorf("lupi models lacks %s", id)
		}
	}
	dir := t.TempDir()
	train := writeLUPICSV(t, dir, "train.csv", 80, 1, true)
	test := writeLUPICSV(t, dir, "test.csv", 40, 2, false)
	for _, c := range []struct {
		id  string
		set []string
	}{
		{"svm2plus", []string{"C=1", "lambda=1", "kernel=linear", "zkernel=rbf"}},
		{"svm1plus", []string{"C=1", "lambda=1", "kernel=linear", "zkernel=rbf"}},
		{"gpc", nil},
		{"gpcplus", nil},
	} {
		mf := filepath.Join(dir, c.id+".json")
		args := []string{"-model", c.id, "-train", train, "-test", test, "-o", mf}
		for _, s := range c.set {
			args = append(args, "-set", s)
		}
		r := fitJSON(t, args...)
		if r["converged"] != true || r["n_train"].(float64) != 80 || r["n_test"].(float64) != 40 {
			t.Errorf("%s: fit output %v", c.id, r)
		}
		if acc := r["test_metrics"].(map[string]any)["accuracy"].(float64); acc < 0.75 {
			t.Errorf("%s: test accuracy %g", c.id, acc)
		}
		if strings.HasPrefix(c.id, "gpc") {
			tm := r["train_metrics"].(map[string]any)
			lml, ok := tm["log_marginal_likelihood"].(float64)
			if !ok || !(lml < 0) || r["objective"].(float64) != -lml {
				t.Errorf("%s: log_marginal_likelihood %v, objective %v", c.id, tm["log_marginal_likelihood"], r["objective"])
			}
			// Fixed hyper-parameters: the evidence at the start is below
			// what type-II ML reached, and the values are kept.
			fixed := fitJSON(t, "-model", c.id, "-train", train, "-set", "optimize=false", "-set", "lengthscale=0.3")
			fm := fixed["train_metrics"].(map[string]any)
			if fm["lengthscale"] != 0.3 || fm["evidence_evaluations"] != 0.0 || !(fm["log_marginal_likelihood"].(float64) < lml) {
				t.Errorf("%s optimize=false: lengthscale %v, evaluations %v, log Z %v (optimised %v)", c.id, fm["lengthscale"], fm["evidence_evaluations"], fm["log_marginal_likelihood"], lml)
			}
			capped := fitJSON(t, "-model", c.id, "-train", train, "-set", "optimize=false", "-set", "max_sweeps=1")
			if capped["converged"] != false || !strings.Contains(fmt.Sprint(capped["warnings"]), "max_sweeps") {
				t.Errorf("%s max_sweeps=1: converged %v, warnings %v", c.id, capped["converged"], capped["warnings"])
			}
		}
		out, errs, code := lupi(t, "predict", "-model-file", mf, "-data", test)
		if code != 0 {
			t.Fatalf("%s predict: exit %d: %s", c.id, code, errs)
		}
		var p struct {
			N       int                `json:"n"`
			Metrics map[string]float64 `json:"metrics"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if acc := r["test_metrics"].(map[string]any)["accuracy"].(float64); p.N != 40 || p.Metrics["accuracy"] != acc {
			t.Errorf("%s predict: n %d, accuracy %v (fit said %v)", c.id, p.N, p.Metrics["accuracy"], acc)
		}
	}
}

// TestPaperExperimentsOnShippedData runs the two LUPI experiments, quick
// and with one repeat, on the shipped datasets (web/datasets) through the
// CLI: paper 000's Tables 2–4 analogue on wdbc and digits-lowhigh, and
// paper 002's Table 1 protocol on wdbc and digit pairs. Every method has a
// row with a finite accuracy or error on every dataset, the paper's own
// tables are printed beside ours, and the JSON carries the same result.
func TestPaperExperimentsOnShippedData(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two experiments (about 4 s)")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		methods []string
		want    []string
	}{
		{"svm2plus", []string{"SVM", "SVM-2K", "SVM1+", "SVM2+"},
			[]string{"## wdbc (n = 569", "## digits-lowhigh (n = 1797", "Training time ratios (ours", "The SVM2+ paper, Table 2", "The SVM2+ paper, Table 3", "The SVM2+ paper, Table 4"}},
		{"gpcplus", []string{"wdbc", "digits-lowhigh 3 v. 5", "digits-lowhigh 3 v. 8"},
			[]string{"| task | GPC (EP) | GPC+ (privileged noise) | SVM | SVM2+ | SVM1+ |", "average ranking", "GPC+ / GPC", "The GPC+ paper, Table 1"}},
	} {
		js := filepath.Join(dir, c.name+".json")
		out, errs, code := lupi(t, "experiment", c.name, "-quick", "-repeats", "1", "-seed", "3", "-data", "../../web/datasets", "-json", js)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q", c.name, w)
			}
		}
		// The accuracy (svm2plus: once per dataset) and error (gpcplus:
		// once per task) rows: "mean" (one repeat: no spread to show) or
		// "mean ± sd" in % in their second cell.
		for _, m := range c.methods {
			rows := 0
			ours := false // inside one of our accuracy or error tables
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "## ") {
					ours = false
				}
				if strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "## Paper") && strings.Contains(line, "error") {
					ours = true // gpcplus: "## Test error in % …"
				}
				if strings.HasPrefix(line, "| method | test accuracy") {
					ours = true // svm2plus: one table per dataset
				}
				cells := strings.Split(line, "|")
				if !ours || len(cells) < 4 || strings.TrimSpace(cells[1]) != m {
					continue
				}
				mean, _, _ := strings.Cut(strings.TrimSpace(cells[2]), "±")
				v, err := strconv.ParseFloat(strings.Trim(strings.TrimSpace(mean), "*"), 64)
				if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
					t.Errorf("%s: row %q: %q is not a percentage", c.name, m, cells[2])
				}
				rows++
			}
			if want := map[string]int{"svm2plus": 2, "gpcplus": 1}[c.name]; rows != want {
				t.Errorf("%s: %d rows for %q", c.name, rows, m)
			}
		}
		var r map[string]any
		if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &r) != nil || r["name"] != c.name {
			t.Errorf("%s: -json file: %v", c.name, err)
		}
	}
}

// TestExperimentSameForEveryJ runs each paper's experiment (quick, one
// repeat, one or two tasks) on the shipped data with -j 1 and -j 2 and no
// clock (-timing=false): the markdown, the JSON result and the finished
// tasks are identical byte for byte.
func TestExperimentSameForEveryJ(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four experiments twice (about 30 s)")
	}
	dir := t.TempDir()
	for _, c := range [][]string{
		{"jointsvm"},
		{"gpcplus", "-repeats", "1"},
		{"svm2plus", "-repeats", "1"},
		{"mpwtsvm", "-repeats", "1", "-set", "tasks=1"},
	} {
		var outs [2][3]string
		for k, j := range []string{"1", "2"} {
			js, tasks := filepath.Join(dir, c[0]+j+".json"), filepath.Join(dir, c[0]+j+".tasks.json")
			args := append([]string{"experiment"}, c...)
			args = append(args, "-quick", "-timing=false", "-j", j, "-data", "../../web/datasets", "-json", js, "-tasks", tasks)
			out, errs, code := lupi(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			b1, err1 := os.ReadFile(js)
			b2, err2 := os.ReadFile(tasks)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			outs[k] = [3]string{out, string(b1), string(b2)}
		}
		for i, what := range []string{"markdown", "JSON result", "tasks"} {
			if outs[0][i] != outs[1][i] {
				t.Errorf("%s: the %s differs between -j 1 and -j 2", c[0], what)
			}
		}
		if strings.Contains(outs[0][2], `"timing"`) {
			t.Errorf("%s: timings recorded under -timing=false", c[0])
		}
		// Every task says its plan stage: from 0, in plan order, and every
		// experiment has more than one (a search, then the final fits).
		var tasks []struct {
			ID    string `json:"id"`
			Stage int    `json:"stage"`
		}
		if err := json.Unmarshal([]byte(outs[0][2]), &tasks); err != nil || len(tasks) == 0 {
			t.Fatalf("%s: tasks file: %v", c[0], err)
		}
		prev := 0
		for _, x := range tasks {
			if x.Stage < prev || x.Stage > prev+1 {
				t.Errorf("%s: task %s in stage %d after stage %d", c[0], x.ID, x.Stage, prev)
			}
			prev = x.Stage
		}
		if tasks[0].Stage != 0 || prev == 0 {
			t.Errorf("%s: stages %d … %d", c[0], tasks[0].Stage, prev)
		}
	}
}

// TestTune cross-validates an RBF SVM over a 3 × 2 grid of C and γ: every
// cell has a mean and sd of its fold scores (5 folds), the best cell is the
// one with the highest mean (the first on ties), the output is the same for
// -j 1 and -j 2, and a cell that cannot be fitted reports its error.
func TestTune(t *testing.T) {
	dir := t.TempDir()
	train := writeLUPICSV(t, dir, "train.csv", 80, 5, false)
	args := []string{"tune", "-model", "svm", "-train", train, "-grid", "C=0.1,1,10", "-grid", "gamma=0.1,1", "-set", "kernel=rbf", "-folds", "5", "-scale", "standard"}
	out1, errs, code := lupi(t, append(args, "-j", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out2, errs, code := lupi(t, append(args, "-j", "2")...)
	if code != 0 || out1 != out2 {
		t.Fatalf("-j 2: exit %d (%s), output differs from -j 1:\n%s\n%s", code, errs, out1, out2)
	}
	var r struct {
		Metric string
		Cells  []struct {
			Params   map[string]string
			Mean, SD *float64
			Scores   []float64
		}
		Best struct {
			Params map[string]string
			Mean   *float64
		}
	}
	if err := json.Unmarshal([]byte(out1), &r); err != nil {
		t.Fatal(err)
	}
	if r.Metric != "accuracy" || len(r.Cells) != 6 {
		t.Fatalf("metric %q, %d cells", r.Metric, len(r.Cells))
	}
	best := -1
	for i, c := range r.Cells {
		if c.Mean == nil || len(c.Scores) != 5 || c.Params["kernel"] != "rbf" {
			t.Fatalf("cell %d: %+v", i, c)
		}
		m, sd := 0.0, 0.0
		for _, s := range c.Scores {
			m += s / 5
		}
		for _, s := range c.Scores {
			sd += (s - m) * (s - m) / 4
		}
		if math.Abs(m-*c.Mean) > 1e-12 || math.Abs(math.Sqrt(sd)-*c.SD) > 1e-12 {
			t.Errorf("cell %d: mean ± sd %v ± %v, the scores %v give %v ± %v", i, *c.Mean, *c.SD, c.Scores, m, math.Sqrt(sd))
		}
		if best < 0 || *c.Mean > *r.Cells[best].Mean {
			best = i
		}
	}
	if r.Cells[0].Params["C"] != "0.1" || r.Cells[1].Params["gamma"] != "1" || r.Cells[2].Params["C"] != "1" {
		t.Errorf("cell order (C slowest): %v %v %v", r.Cells[0].Params, r.Cells[1].Params, r.Cells[2].Params)
	}
	if r.Best.Mean == nil || *r.Best.Mean != *r.Cells[best].Mean || r.Best.Params["C"] != r.Cells[best].Params["C"] || r.Best.Params["gamma"] != r.Cells[best].Params["gamma"] {
		t.Errorf("best %+v, want cell %d %+v", r.Best, best, r.Cells[best])
	}
	// a value outside the parameter's range fails its cell, not the search
	out, errs, code := lupi(t, "tune", "-model", "svm", "-train", train, "-grid", "C=-1,1", "-folds", "3")
	if code != 0 || !strings.Contains(out, `"error"`) || !strings.Contains(out, `"mean": null`) {
		t.Errorf("exit %d (%s): %s", code, errs, out)
	}
	if _, errs, code := lupi(t, "tune", "-model", "svm", "-train", train, "-grid", "nope=1,2"); code != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("unknown parameter: exit %d, %s", code, errs)
	}
}
