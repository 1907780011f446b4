package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// Tests of issue 29 (resource guards, model files, the panic boundary,
// the smaller findings) and of issue 28's CLI for real datasets, through
// the CLI as a user runs it.

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func decode(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return m
}

// oneLine checks an error exit: the status, nothing on stdout, one line on
// stderr that says all of want.
func oneLine(t *testing.T, args []string, code int, want ...string) string {
	t.Helper()
	out, errs, c := lupi(t, args...)
	if c != code || out != "" {
		t.Errorf("%v: exit %d (want %d), stdout %q", args, c, code, out)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	for _, w := range want {
		if !strings.Contains(last, w) {
			t.Errorf("%v: %q does not say %q", args, last, w)
		}
	}
	return last
}

// TestPanicBoundary: a panic inside a command (a bug) ends it with status 3
// and one line saying what was being done — in fit, and in predict while
// loading a model file.
func TestPanicBoundary(t *testing.T) {
	meta := &spec.Spec{ID: "panicky-test", Name: "Panicky", Paper: "none (a test of the panic boundary)", Task: spec.Binary, Family: spec.FamilySVM,
		Params: []spec.Param{{Name: "C", Kind: spec.Float, Default: "1"}}}
	model.Bind(meta, func(context.Context, *data.Dataset, model.Values, model.Options) (model.Fitted, error) {
		_ = at(nil, 3) // a runtime panic: index out of range
		return nil, nil
	}, func(json.RawMessage) (model.Fitted, error) {
		panic("the loader broke")
	})
	dir := t.TempDir()
	train := writeCSV(t, dir, "train.csv", 20, 1, nil)
	msg := oneLine(t, []string{"fit", "-model", "panicky-test", "-train", train}, exitInternal,
		"internal error while fitting panicky-test on "+train, "index out of range [3] with length 0")
	if !strings.HasPrefix(msg, "lupi: ") {
		t.Errorf("message %q", msg)
	}
	mf := writeFile(t, dir, "m.json", `{"format":"lupilab-model","version":1,"model":"panicky-test","fitted":{}}`)
	oneLine(t, []string{"predict", "-model-file", mf, "-data", train}, exitInternal,
		"internal error while loading a saved panicky-test model", "the loader broke")
	// bad usage and failed commands keep their own statuses
	oneLine(t, []string{"fit", "-model", "svm"}, exitUsage, "-train is required")
	oneLine(t, []string{"fit", "-model", "svm", "-train", filepath.Join(dir, "none.csv")}, exitFailed, "none.csv")
}

func at(s []int, i int) int { return s[i] }

// bigCSV writes n rows of two features.
func bigCSV(t *testing.T, dir string, n int) string {
	var b strings.Builder
	b.WriteString("x1,x2,y\n")
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%.4f,%.4f,%d\n", r.Float64(), r.Float64(), i%2)
	}
	return writeFile(t, dir, "big.csv", b.String())
}

// TestMemoryGuard: issue 29's out-of-memory crash: GPC on 40 000 rows is
// refused at once with one line saying what, how much and how to
// proceed, under the machine's default limit and under -max-memory; the
// SVM, whose cache is bounded, is not refused.
func TestMemoryGuard(t *testing.T) {
	dir := t.TempDir()
	big := bigCSV(t, dir, 40000)
	for _, id := range []string{"gpc", "gpcplus", "mcpk", "mvtsvm", "psvm2v", "svm2k", "twsvm", "mpwtsvm", "svm2plus", "jointsvm"} {
		s, _ := model.Lookup(id)
		if s.Z != model.ZNone || s.Task == model.MultiLabel {
			continue // needs other columns; the model-level test covers them
		}
		start := time.Now()
		oneLine(t, []string{"fit", "-model", id, "-train", big, "-max-memory", "1G"}, exitFailed,
			s.Name+" on 40000 rows would need about", "more than the 1.0 GB allowed", "sub-sample", "raise -max-memory (the limit is 1.0 GB: -max-memory)")
		if d := time.Since(start); d > 60*time.Second {
			t.Errorf("%s: refused after %v", id, d) // generous: reading 40 000 rows and one estimate
		}
	}
	// under the default limit (the machine's free memory): MCPK's KKT
	// systems on 40 000 rows need terabytes, more than any machine has
	var b strings.Builder
	b.WriteString("x1,x2,z_1,y\n")
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", i%7, i%11, i%13, i%2)
	}
	views := writeFile(t, dir, "views.csv", b.String())
	oneLine(t, []string{"fit", "-model", "mcpk", "-train", views}, exitFailed, "MCPK on 40000 rows", "TB of memory", "raise -max-memory (the limit is")
	oneLine(t, []string{"fit", "-model", "gpc", "-train", big, "-max-memory", "lots"}, exitUsage, "-max-memory")
	for in, want := range map[string]float64{"4G": 4 << 30, "512M": 512 << 20, "1.5GiB": 1.5 * (1 << 30), "2gb": 2 << 30, "100k": 100 << 10, "123": 123, "0": 0} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if avail, from := availableMemory(); avail <= 0 || from == "" {
		t.Errorf("availableMemory = %v (%q): this machine's memory is unknown", avail, from)
	}
}

// TestProgressAndEstimate: -progress reports on stderr; the result holds
// the fit's estimate.
func TestProgressAndEstimate(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, "train.csv", 120, 1, nil)
	out, errs, code := lupi(t, "fit", "-model", "gpc", "-train", train, "-progress")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "lupi: fit gpc on 120 rows: estimated about") || !strings.Contains(errs, "lupi: fit gpc: done in") {
		t.Errorf("-progress printed %q", errs)
	}
	est := decode(t, out)["estimate"].(map[string]any)
	if !(est["seconds"].(float64) > 0) || !(est["bytes"].(float64) > 0) {
		t.Errorf("estimate %v", est)
	}
}

// TestModelFiles: issue 29's corrupted and hostile model files through
// predict — /dev/zero stops at once, a relabelled file and a widened view
// are refused with one clear line, never a panic.
func TestModelFiles(t *testing.T) {
	dir := t.TempDir()
	train := writeCSV(t, dir, "train.csv", 60, 1, nil)
	if _, err := os.Stat("/dev/zero"); err == nil {
		start := time.Now()
		oneLine(t, []string{"predict", "-model-file", "/dev/zero", "-data", train}, exitFailed, "/dev/zero", "not a LUPI Lab model file")
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("/dev/zero took %v", d)
		}
	}
	gpcFile := filepath.Join(dir, "gpc.json")
	if _, e, c := lupi(t, "fit", "-model", "gpc", "-train", train, "-set", "optimize=false", "-o", gpcFile); c != 0 {
		t.Fatal(e)
	}
	b, _ := os.ReadFile(gpcFile)
	relabelled := writeFile(t, dir, "relabelled.json", strings.Replace(string(b), `"model": "gpc"`, `"model": "svm"`, 1))
	oneLine(t, []string{"predict", "-model-file", relabelled, "-data", train}, exitFailed, "relabelled.json", "svm: json: unknown field")
	huge := writeFile(t, dir, "huge.json", `{"format":"lupilab-model","version":1,"model":"svm","fitted":{"classes":["a","b"],"strategy":"binary","pos":[1],"neg":[0],"models":[{"kernel":{"kind":"rbf","gamma":1},"sv":{"rows":4294967296,"cols":4294967296,"data":[]},"coef":[1],"rho":0,"index":[0]}]}}`)
	oneLine(t, []string{"predict", "-model-file", huge, "-data", train}, exitFailed, "4294967296×4294967296")
}

// TestNonFiniteResults: a fit whose numbers overflow ends in one clear
// line, with or without -o (issue 29: "json: unsupported value: NaN");
// writeJSON names where a non-finite number sits.
func TestNonFiniteResults(t *testing.T) {
	dir := t.TempDir()
	lupiCSV := writeFile(t, dir, "lupi.csv", lupiData(60))
	for _, extra := range [][]string{nil, {"-o", filepath.Join(dir, "m.json")}} {
		args := append([]string{"fit", "-model", "gpcplus", "-train", lupiCSV, "-set", "gamplitude=1e4", "-set", "optimize=false"}, extra...)
		out, errs, code := lupi(t, args...)
		if code == 0 {
			if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
				t.Errorf("%v: %s", args, out)
			}
			continue
		}
		if code != exitFailed || strings.Contains(errs, "unsupported value") || !strings.Contains(errs, "non-finite") {
			t.Errorf("%v: exit %d: %q", args, code, errs)
		}
		if len(extra) > 0 {
			if _, err := os.Stat(extra[1]); err == nil {
				t.Errorf("%v: a model file was written for a failed fit", args)
			}
		}
	}
	var buf strings.Builder
	err := writeJSON(&buf, map[string]any{"test_metrics": map[string]float64{"accuracy": math.NaN()}})
	if err == nil || !strings.Contains(err.Error(), "non-finite number (NaN) at test_metrics.accuracy") {
		t.Errorf("writeJSON with a NaN: %v", err)
	}
}

// lupiData is a CSV of n rows with privileged columns.
func lupiData(n int) string {
	ds, err := data.GenerateByName("lupi2d", n, 0.2, 1)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := data.WriteCSV(&b, ds); err != nil {
		panic(err)
	}
	return b.String()
}

// TestSmallerFindings: values near 1e308 get a user-level message, an
// unlabelled file gets predictions, a Z-file error names the Z file.
func TestSmallerFindings(t *testing.T) {
	dir := t.TempDir()
	huge := writeCSV(t, dir, "huge.csv", 30, 1, func(i int, r []string) []string {
		if i == 3 {
			r[1] = "1e308"
		}
		return r
	})
	for _, id := range []string{"svm", "l2svm", "twsvm", "gpc"} {
		oneLine(t, []string{"fit", "-model", id, "-train", huge}, exitFailed, "row 4", "too large for the kernels", "-scale")
	}
	// -scale brings such data back into range (1e308 is standardised first)
	big := writeCSV(t, dir, "big.csv", 30, 1, func(i int, r []string) []string {
		if i == 3 {
			r[1] = "1e200"
		}
		return r
	})
	if _, e, c := lupi(t, "fit", "-model", "svm", "-train", big, "-scale"); c != 0 {
		t.Errorf("-scale on values near 1e200: %s", e)
	}

	train := writeCSV(t, dir, "train.csv", 60, 1, nil)
	mf := filepath.Join(dir, "m.json")
	if _, e, c := lupi(t, "fit", "-model", "svm", "-train", train, "-o", mf); c != 0 {
		t.Fatal(e)
	}
	unl := writeFile(t, dir, "unlabelled.csv", "x1,x2\n0.5,1\n-2,-1\n3,0.2\n")
	out, errs, code := lupi(t, "predict", "-model-file", mf, "-data", unl)
	if code != 0 {
		t.Fatalf("predict on unlabelled data: exit %d: %s", code, errs)
	}
	p := decode(t, out)
	if p["n"].(float64) != 3 || len(p["labels"].([]any)) != 3 || p["metrics"] != nil {
		t.Errorf("predictions on unlabelled data: %v", p)
	}

	mainFile := writeFile(t, dir, "main.libsvm", "1 1:0.5 2:1\n-1 1:-1 2:0.3\n1 1:2 2:0.1\n-1 1:-2 2:-1\n")
	zFile := writeFile(t, dir, "priv.libsvm", "1 1:0.5\n-1 1:oops\n1 1:2\n-1 1:-2\n")
	oneLine(t, []string{"fit", "-model", "svm2plus", "-train", mainFile, "-train-z", zFile}, exitFailed, "priv.libsvm", "line 2")
}

// TestScale: -scale standardises on the training rows, the saved model
// applies the scaling itself, so predict on raw features reproduces fit's
// test accuracy; -scale=minmax too; a bad method is bad usage.
func TestScale(t *testing.T) {
	dir := t.TempDir()
	stretch := func(_ int, r []string) []string { // feature 1 in thousands
		var x float64
		fmt.Sscan(r[0], &x)
		r[0] = fmt.Sprint(1000 * x)
		return r
	}
	train := writeCSV(t, dir, "train.csv", 150, 1, stretch)
	test := writeCSV(t, dir, "test.csv", 80, 2, stretch)
	for _, method := range []string{"-scale", "-scale=minmax"} {
		mf := filepath.Join(dir, "m.json")
		out, errs, code := lupi(t, "fit", "-model", "svm", "-train", train, "-test", test, method, "-o", mf)
		if code != 0 {
			t.Fatalf("%s: %s", method, errs)
		}
		fit := decode(t, out)
		want := map[string]string{"-scale": "standard", "-scale=minmax": "minmax"}[method]
		if fit["scale"] != want {
			t.Errorf("%s: scale %v", method, fit["scale"])
		}
		acc := fit["test_metrics"].(map[string]any)["accuracy"].(float64)
		out, errs, code = lupi(t, "predict", "-model-file", mf, "-data", test)
		if code != 0 {
			t.Fatal(errs)
		}
		if got := decode(t, out)["metrics"].(map[string]any)["accuracy"].(float64); got != acc {
			t.Errorf("%s: predict on raw features gives %v, fit's test accuracy was %v", method, got, acc)
		}
		b, _ := os.ReadFile(mf)
		if !strings.Contains(string(b), `"method": "`+want+`"`) {
			t.Errorf("%s: the model file holds no scaling", method)
		}
	}
	// unscaled, the stretched feature swamps the other: scaling helps
	out, _, _ := lupi(t, "fit", "-model", "svm", "-train", train, "-test", test)
	raw := decode(t, out)["test_metrics"].(map[string]any)["accuracy"].(float64)
	out, _, _ = lupi(t, "fit", "-model", "svm", "-train", train, "-test", test, "-scale")
	scaled := decode(t, out)["test_metrics"].(map[string]any)["accuracy"].(float64)
	if scaled <= raw {
		t.Errorf("accuracy %v scaled, %v raw: scaling should help on this data", scaled, raw)
	}
	oneLine(t, []string{"fit", "-model", "svm", "-train", train, "-scale=log"}, exitUsage, "-scale")
}

// tagsCSV writes a multi-label CSV whose three label columns are named
// amazed, happy and calm (no tag_ prefix, as Mulan's exports) and come
// last.
func tagsCSV(t *testing.T, dir string, n int) string {
	ds, err := data.GenerateByName("multilabel2d", n, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("f1,f2,f3,amazed,happy,calm\n")
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%g,%g,%g,%g,%g,%g\n", ds.X.At(i, 0), ds.X.At(i, 1), r.NormFloat64(), ds.Tags.At(i, 0), ds.Tags.At(i, 1), ds.Tags.At(i, 2))
	}
	return writeFile(t, dir, "emotions.csv", b.String())
}

// TestTags: -tags names the label columns of a multi-label file — last:N,
// a list, Mulan's XML label file — so Mulan and MEKA files work unchanged
// (ARFF too); the three forms give the same fit.
func TestTags(t *testing.T) {
	dir := t.TempDir()
	csv := tagsCSV(t, dir, 90)
	xml := writeFile(t, dir, "emotions.xml", `<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="amazed"></label><label name="happy"></label><label name="calm"></label>
</labels>`)
	var first string
	for _, tags := range []string{"last:3", "amazed,happy,calm", xml} {
		out, errs, code := lupi(t, "fit", "-model", "jointsvm", "-train", csv, "-tags", tags)
		if code != 0 {
			t.Fatalf("-tags %s: %s", tags, errs)
		}
		m := decode(t, out)["train_metrics"].(map[string]any)
		got := fmt.Sprint(m["micro_f1"], m["hamming_loss"])
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("-tags %s gives %s, last:3 gave %s", tags, got, first)
		}
	}
	oneLine(t, []string{"fit", "-model", "jointsvm", "-train", csv, "-tags", "amazed,sad"}, exitFailed, `no column "sad"`)
	oneLine(t, []string{"fit", "-model", "jointsvm", "-train", csv, "-tags", "last:9"}, exitFailed, "9 tag columns asked for")
	oneLine(t, []string{"fit", "-model", "jointsvm", "-train", csv, "-tags", "last:x"}, exitUsage, "last:N")
	oneLine(t, []string{"fit", "-model", "jointsvm", "-train", csv}, exitFailed, "no tag columns")

	// A Mulan ARFF file with its XML, and a MEKA one (-C in the relation).
	var arff strings.Builder
	arff.WriteString("@relation emotions\n@attribute f1 numeric\n@attribute f2 numeric\n@attribute amazed {0,1}\n@attribute happy {0,1}\n@attribute calm {0,1}\n@data\n")
	lines := strings.Split(strings.TrimSpace(string(must(os.ReadFile(csv)))), "\n")[1:]
	for _, l := range lines {
		f := strings.Split(l, ",")
		fmt.Fprintf(&arff, "%s,%s,%s,%s,%s\n", f[0], f[1], f[3], f[4], f[5])
	}
	mulan := writeFile(t, dir, "emotions.arff", arff.String())
	out, errs, code := lupi(t, "fit", "-model", "indepsvm", "-train", mulan, "-tags", xml)
	if code != 0 || decode(t, out)["train_metrics"].(map[string]any)["micro_f1"] == nil {
		t.Errorf("Mulan ARFF with its XML: %s", errs)
	}
	meka := writeFile(t, dir, "meka.arff", strings.Replace(arff.String(), "@relation emotions", "@relation 'emotions: -C -3'", 1))
	if _, errs, code := lupi(t, "fit", "-model", "indepsvm", "-train", meka); code != 0 {
		t.Errorf("MEKA ARFF: %s", errs)
	}
	if _, errs, code := lupi(t, "fit", "-model", "indepsvm", "-train", mulan, "-tags", "last:3"); code != 0 {
		t.Errorf("ARFF with -tags last:3: %s", errs)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestNotices: what the CLI chooses or drops for the user is said on
// stderr (and kept in the result's notices): a kernel width from the
// data, the second block taken as view B or left out, a kernel parameter
// the kernel ignores.
func TestNotices(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x1,x2,x3,x4,z_1,z_2,z_3,y\n")
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 80; i++ {
		c := i % 2
		v := make([]string, 7)
		for j := range v {
			v[j] = fmt.Sprintf("%.4f", r.NormFloat64()+float64(c)*0.8)
		}
		fmt.Fprintf(&b, "%s,%d\n", strings.Join(v, ","), c)
	}
	train := writeFile(t, dir, "views.csv", b.String())

	out, errs, code := lupi(t, "fit", "-model", "svm", "-train", train)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(errs, "lupi: svm: kernel width gamma = 1/4 ≈ 0.25 for the 4 features of X") ||
		!strings.Contains(errs, "lupi: svm does not use the second block: its 3 columns (z_1, z_2, z_3) are left out") {
		t.Errorf("stderr %q", errs)
	}
	res := decode(t, out)
	if res["params"].(map[string]any)["gamma"] != "0.25" || len(res["notices"].([]any)) != 2 {
		t.Errorf("params %v, notices %v", res["params"], res["notices"])
	}
	out, errs, _ = lupi(t, "fit", "-model", "svm", "-train", train, "-set", "gamma=1")
	if strings.Contains(errs, "kernel width") || decode(t, out)["params"].(map[string]any)["gamma"] != "1" {
		t.Errorf("a γ the user set was changed: %q", errs)
	}

	_, errs, code = lupi(t, "fit", "-model", "twsvm", "-train", train, "-set", "gamma=0.5")
	if code != 0 || !strings.Contains(errs, "lupi: twsvm: -set gamma (kernel is linear, not rbf or poly or sigmoid) is ignored") {
		t.Errorf("an ignored kernel parameter: %q", errs)
	}

	// Two-view models take the second block as view B without -twoview,
	// say so, and report each view's accuracy.
	test := filepath.Join(dir, "views_test.csv")
	os.WriteFile(test, []byte(b.String()), 0o644)
	var results []string
	for _, extra := range [][]string{nil, {"-twoview"}} {
		args := append([]string{"fit", "-model", "svm2k", "-train", train, "-test", test}, extra...)
		out, errs, code := lupi(t, args...)
		if code != 0 {
			t.Fatal(errs)
		}
		if extra == nil && !strings.Contains(errs, "lupi: svm2k: the second block (3 columns: z_1, z_2, z_3) is view B") {
			t.Errorf("view B notice missing: %q", errs)
		}
		m := decode(t, out)["test_metrics"].(map[string]any)
		for _, k := range []string{"accuracy", "accuracy_view_A", "accuracy_view_B"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("%v: test_metrics lacks %s: %v", args, k, m)
			}
		}
		results = append(results, fmt.Sprint(m["accuracy"], m["accuracy_view_A"], m["accuracy_view_B"]))
	}
	if results[0] != results[1] {
		t.Errorf("without -twoview %s, with %s", results[0], results[1])
	}
}

// TestViewAccuracies: the per-view accuracies are each view's own rule,
// for every two-view model, binary and multi-class, in fit and predict.
func TestViewAccuracies(t *testing.T) {
	dir := t.TempDir()
	ds, err := data.GenerateByName("twoview2d", 90, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	data.WriteCSV(&b, ds)
	train := writeFile(t, dir, "tv.csv", b.String())
	for _, s := range model.All() {
		if s.Z != model.ZView {
			continue
		}
		mf := filepath.Join(dir, s.ID+".json")
		out, errs, code := lupi(t, "fit", "-model", s.ID, "-train", train, "-test", train, "-set", "rule=A", "-o", mf)
		if code != 0 {
			t.Fatalf("%s: %s", s.ID, errs)
		}
		m := decode(t, out)["test_metrics"].(map[string]any)
		if m["accuracy"] != m["accuracy_view_A"] || m["accuracy_view_B"] == nil {
			t.Errorf("%s with rule A: accuracy %v, view A %v, view B %v", s.ID, m["accuracy"], m["accuracy_view_A"], m["accuracy_view_B"])
		}
		out, errs, code = lupi(t, "predict", "-model-file", mf, "-data", train)
		if code != 0 {
			t.Fatalf("%s predict: %s", s.ID, errs)
		}
		pm := decode(t, out)["metrics"].(map[string]any)
		if pm["accuracy_view_A"] != m["accuracy_view_A"] || pm["accuracy_view_B"] != m["accuracy_view_B"] {
			t.Errorf("%s: predict's view accuracies %v/%v, fit's %v/%v", s.ID, pm["accuracy_view_A"], pm["accuracy_view_B"], m["accuracy_view_A"], m["accuracy_view_B"])
		}
	}
}

// TestAliasesThroughCLI: the multi-view models take their parameters'
// old names.
func TestAliasesThroughCLI(t *testing.T) {
	dir := t.TempDir()
	ds, _ := data.GenerateByName("twoview2d", 40, 0.1, 1)
	var b strings.Builder
	data.WriteCSV(&b, ds)
	train := writeFile(t, dir, "tv.csv", b.String())
	out, errs, code := lupi(t, "fit", "-model", "svm2k", "-train", train, "-set", "CB=2", "-set", "D=3")
	if code != 0 {
		t.Fatal(errs)
	}
	p := decode(t, out)["params"].(map[string]any)
	if p["C_B"] != "2" || p["agreement"] != "3" || p["CB"] != nil {
		t.Errorf("params %v", p)
	}
	oneLine(t, []string{"fit", "-model", "svm2k", "-train", train, "-set", "CB=2", "-set", "C_B=3"}, exitFailed, "name the same parameter")
}

// TestFitHelp: lupi fit -model ID -help lists every flag and the model's
// parameters with defaults, ranges and aliases.
func TestFitHelp(t *testing.T) {
	out, errs, code := lupi(t, "fit", "-model", "mpwtsvm", "-help")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"-scale", "-tags", "-max-memory", "-progress", "-train-z", "-o string",
		"C_A  (float, default 1; range [0.0001, 10000], log scale; also named ca)",
		"coupling  (float, default 1; range [0, 10000]; also named c)",
		"kernel  (choice, default rbf; one of linear, rbf, poly, sigmoid)",
		"Used only when kernel is rbf or poly or sigmoid.", "view B"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	s, _ := model.Lookup("mpwtsvm")
	for _, p := range s.Params {
		if !strings.Contains(out, "\n  "+p.Name+"  (") {
			t.Errorf("help lacks parameter %s", p.Name)
		}
	}
	out, _, code = lupi(t, "fit", "-help", "-model", "svm")
	if code != 0 || !strings.Contains(out, "  C  (float, default 1") {
		t.Errorf("-help before -model: %q", out)
	}
	out, _, code = lupi(t, "fit", "-help")
	if code != 0 || !strings.Contains(out, "lupi fit -model ID -help lists") {
		t.Errorf("fit -help: %q", out)
	}
	if _, errs, code := lupi(t, "fit", "-model", "nope", "-help"); code != exitFailed || !strings.Contains(errs, "unknown model") {
		t.Errorf("help for an unknown model: %d %q", code, errs)
	}
}

// TestInternalIsDistinct: the documented statuses.
func TestInternalIsDistinct(t *testing.T) {
	if exitFailed == exitUsage || exitInternal == exitUsage || exitInternal == exitFailed {
		t.Fatal("exit statuses collide")
	}
	if !model.IsInternal(model.Guard("x", func() error { panic("y") })) || model.IsInternal(errors.New("z")) {
		t.Fatal("IsInternal")
	}
}
