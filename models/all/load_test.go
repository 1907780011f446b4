package all

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
)

// savedModels fits every registered model on tiny data — two classes, and
// three classes one-vs-rest and one-vs-one for the binary models, some with
// a scaler — and returns the saved files by a name, with the data each was
// fitted on.
func savedModels(t testing.TB) (map[string][]byte, map[string]*data.Dataset) {
	t.Helper()
	savedOnce.Do(func() { savedFiles, savedSets, savedErr = fitAndSave() })
	if savedErr != nil {
		t.Fatal(savedErr)
	}
	return savedFiles, savedSets
}

var (
	savedOnce  sync.Once
	savedFiles map[string][]byte
	savedSets  map[string]*data.Dataset
	savedErr   error
)

func fitAndSave() (map[string][]byte, map[string]*data.Dataset, error) {
	files, sets := map[string][]byte{}, map[string]*data.Dataset{}
	for _, s := range model.All() {
		gen := run.DefaultGenerator(s)
		type job struct {
			name     string
			ds       *data.Dataset
			strategy string
		}
		ds, err := data.GenerateByName(gen, 24, 0.2, 1)
		if err != nil {
			return nil, nil, err
		}
		jobs := []job{{s.ID, ds, ""}}
		if s.Task == spec.Binary {
			three := threeClasses(ds)
			jobs = append(jobs, job{s.ID + "/ovr", three, "ovr"}, job{s.ID + "/ovo", three, "ovo"})
		}
		for _, j := range jobs {
			v := s.Defaults()
			if s.Family == spec.FamilyGP {
				v["optimize"] = "false"
			}
			if j.strategy != "" {
				v["multiclass"] = j.strategy
			}
			f, err := s.Fit(context.Background(), j.ds, v, model.Options{Seed: 1})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", j.name, err)
			}
			var sc *data.Scaler
			if j.strategy == "ovr" {
				if sc, err = data.FitScaler(j.ds, data.ScaleStandard); err != nil {
					return nil, nil, err
				}
			}
			b, err := model.SaveScaled(s.ID, f, sc)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", j.name, err)
			}
			files[j.name], sets[j.name] = b, j.ds
		}
	}
	return files, sets, nil
}

// threeClasses relabels a two-class dataset into three classes: class 1's
// rows above its median first feature become class 2.
func threeClasses(ds *data.Dataset) *data.Dataset {
	out := *ds
	out.Y = append([]int(nil), ds.Y...)
	var first []float64
	for i, c := range ds.Y {
		if c == 1 {
			first = append(first, ds.X.At(i, 0))
		}
	}
	sort.Float64s(first)
	for i, c := range out.Y {
		if c == 1 && ds.X.At(i, 0) > first[len(first)/2] {
			out.Y[i] = 2
		}
	}
	out.Classes = []string{"a", "b", "c"}
	return &out
}

// probe predicts with a loaded model on data of its own shape and of
// another, inside a guard: any outcome but a panic is fine. Models wider
// than 1000 features (legitimate, but not what is probed) are skipped.
func probe(s *model.Spec, f model.Fitted, x, z int) error {
	if x > 1000 || z > 1000 {
		return nil
	}
	for _, dims := range [][2]int{{x, z}, {x + 1, z}, {max(1, x-1), z + 1}} {
		ds := &data.Dataset{X: mat.NewDense(3, max(1, dims[0]), nil)}
		for i := 0; i < 3; i++ {
			for j := 0; j < max(1, dims[0]); j++ {
				ds.X.Set(i, j, float64(i-j)/3)
			}
		}
		if s.Z == spec.ZView {
			ds.Z = mat.NewDense(3, max(1, dims[1]), nil)
			ds.Z.Set(1, 0, 0.5)
		}
		err := model.Guard("predicting with a loaded model", func() error {
			_, err := f.Predict(ds)
			return err
		})
		if model.IsInternal(err) {
			return err
		}
	}
	return nil
}

// dimsOf are the input dimensions of a loaded model.
func dimsOf(f model.Fitted) (int, int) {
	if sh, ok := f.(model.Shaped); ok {
		return sh.InputDims()
	}
	return 2, 2
}

// TestSavedModelsRoundTrip: every model's saved file loads and predicts
// what the fitted model predicted.
func TestSavedModelsRoundTrip(t *testing.T) {
	files, sets := savedModels(t)
	for name, b := range files {
		s, f, err := model.Load(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ds := s.ForPredict(sets[name])
		if _, err := f.Predict(ds); err != nil {
			t.Errorf("%s: the loaded model does not predict its own data: %v", name, err)
		}
		if x, _ := dimsOf(f); x != sets[name].Dim() {
			t.Errorf("%s: the loaded model says it takes %d features, it was fitted on %d", name, x, sets[name].Dim())
		}
	}
}

// mutate returns copies of the JSON value v with one change each, named by
// the path of the change: every array shortened by one element and
// lengthened by a copy of its last, every number replaced by 0, −1, 2³²
// and 1e300, every string replaced by "bogus", every object field
// removed (but for the fit's report, which prediction does not read).
func mutate(v any, path string, emit func(string, func(any) any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			k := k
			if k == "report" {
				continue // the fit's report: shown, never used to predict
			}
			emit(path+"/"+k+":drop", func(any) any {
				c := clone(x).(map[string]any)
				delete(c, k)
				return c
			})
			mutate(x[k], path+"/"+k, func(p string, f func(any) any) {
				emit(p, func(any) any {
					c := clone(x).(map[string]any)
					c[k] = f(c[k])
					return c
				})
			})
		}
	case []any:
		if len(x) > 0 {
			emit(path+":shorter", func(any) any { return clone(x).([]any)[:len(x)-1] })
			emit(path+":longer", func(any) any { c := clone(x).([]any); return append(c, c[len(c)-1]) })
			for _, i := range []int{0, len(x) - 1} {
				i := i
				mutate(x[i], fmt.Sprintf("%s[%d]", path, i), func(p string, f func(any) any) {
					emit(p, func(any) any {
						c := clone(x).([]any)
						c[i] = f(c[i])
						return c
					})
				})
			}
		}
	case float64:
		for _, r := range []float64{0, -1, 1 << 32, 1e300} {
			r := r
			emit(fmt.Sprintf("%s=%g", path, r), func(any) any { return r })
		}
	case string:
		emit(path+"=bogus", func(any) any { return "bogus" })
	}
}

func clone(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// TestCorruptedModelFilesNeverPanic: every single-field corruption of every
// model's saved file (see mutate) is refused with an error or loads into a
// model that predicts or errs — never a panic, in Load or in Predict, and
// never a wait: each case has a deadline.
func TestCorruptedModelFilesNeverPanic(t *testing.T) {
	if testing.Short() {
		t.Skip("mutates every saved model")
	}
	files, _ := savedModels(t)
	names := make([]string, 0, len(files))
	for n := range files {
		if !strings.Contains(n, "/ovo") { // the one-vs-one files repeat the one-vs-rest structure
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var cases, refused, loaded int
	for _, name := range names {
		var root map[string]any
		if err := json.Unmarshal(files[name], &root); err != nil {
			t.Fatal(err)
		}
		mutate(root["fitted"], "fitted", func(p string, f func(any) any) {
			c := clone(root).(map[string]any)
			c["fitted"] = f(c["fitted"])
			b, _ := json.Marshal(c)
			cases++
			done := make(chan error, 1)
			go func() {
				done <- model.Guard("loading", func() error {
					s, fitted, err := model.Load(b)
					if err != nil {
						if model.IsInternal(err) {
							return err
						}
						refused++
						return nil
					}
					loaded++
					x, z := dimsOf(fitted)
					return probe(s, fitted, x, z)
				})
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("%s %s: %v", name, p, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s %s: no answer in 30 s", name, p)
			}
		})
	}
	t.Logf("%d corrupted files: %d refused, %d loaded (and predicted or erred without a panic)", cases, refused, loaded)
}

// TestModelFileFindings pins the corruptions issue 29 found, each with a
// clear error.
func TestModelFileFindings(t *testing.T) {
	files, _ := savedModels(t)
	edit := func(name string, f func(fitted map[string]any)) []byte {
		var root map[string]any
		if err := json.Unmarshal(files[name], &root); err != nil {
			t.Fatal(err)
		}
		f(root["fitted"].(map[string]any))
		b, _ := json.Marshal(root)
		return b
	}
	binary := func(fitted map[string]any) map[string]any {
		return fitted["models"].([]any)[0].(map[string]any)
	}
	cases := []struct {
		name, want string
		b          []byte
	}{
		{"svm2k view-A matrix widened", "view A: the saved rows is", edit("svm2k", func(f map[string]any) {
			x := binary(f)["a"].(map[string]any)["x"].(map[string]any)
			x["cols"] = x["cols"].(float64) + 1
			x["data"] = append(x["data"].([]any), make([]any, int(x["rows"].(float64)))...)
			for i := range x["data"].([]any) {
				if x["data"].([]any)[i] == nil {
					x["data"].([]any)[i] = 0.5
				}
			}
		})},
		{"mpwtsvm basis with rows = cols = 2³²", "saved matrix: 4294967296×4294967296", edit("mpwtsvm", func(f map[string]any) {
			basis := binary(f)["features_a"].(map[string]any)["basis"].(map[string]any)
			basis["rows"], basis["cols"], basis["data"] = 1<<32, 1<<32, []any{}
		})},
		{"mpwtsvm basis row deleted", "mpwtsvm view A: a saved plane has 24 weights for 23 features", edit("mpwtsvm", func(f map[string]any) {
			basis := binary(f)["features_a"].(map[string]any)["basis"].(map[string]any)
			cols := int(basis["cols"].(float64))
			basis["rows"] = basis["rows"].(float64) - 1
			basis["data"] = basis["data"].([]any)[cols:]
		})},
		{"gpc relabelled svm", `svm: json: unknown field`, relabel(t, files["gpc"], "svm")},
	}
	for _, id := range []string{"svm2k", "mvtsvm", "psvm2v", "mcpk"} {
		cases = append(cases, struct {
			name, want string
			b          []byte
		}{id + " with kernel bogus", `unknown kind "bogus"`, edit(id, func(f map[string]any) {
			binary(f)["a"].(map[string]any)["kernel"].(map[string]any)["kind"] = "bogus"
		})})
	}
	cases = append(cases, struct {
		name, want string
		b          []byte
	}{"mpwtsvm with kernel bogus", `unknown kind "bogus"`, edit("mpwtsvm", func(f map[string]any) {
		binary(f)["features_b"].(map[string]any)["kernel"].(map[string]any)["kind"] = "bogus"
	})})
	// The hyper-parameters a file states (its envelope's and its fitted
	// report's, which the app shows and refits from) are the model's own:
	// kernel "bogus" there was accepted by every model.
	for _, s := range model.All() {
		if s.Param("kernel") == nil {
			continue
		}
		for _, where := range []string{"params", "report's params"} {
			var root map[string]any
			if err := json.Unmarshal(files[s.ID], &root); err != nil {
				t.Fatal(err)
			}
			if where == "params" {
				root["params"].(map[string]any)["kernel"] = "bogus"
			} else {
				setParam(root["fitted"], "kernel", "bogus")
			}
			b, _ := json.Marshal(root)
			cases = append(cases, struct {
				name, want string
				b          []byte
			}{s.ID + " with kernel bogus in its " + where, "the file's " + where + ": model " + s.ID + `: parameter kernel: "bogus" is not one of`, b})
		}
	}
	for _, c := range cases {
		_, _, err := model.Load(c.b)
		if err == nil || model.IsInternal(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load returned %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A GPC declaring 100 000 training rows (a 1 MB file): rebuilding its
	// posterior would need n² memory; refused before.
	var big strings.Builder
	big.WriteString(`{"format":"lupilab-model","version":1,"model":"gpc","fitted":{"classes":["a","b"],"strategy":"binary","pos":[1],"neg":[0],"models":[{"kernel":{"log_amplitude":0,"log_lengthscale":[0]},"x":{"rows":100000,"cols":1,"data":[`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString("0")
	}
	big.WriteString(`]},"site_tau":[` + strings.Repeat("1,", 99999) + `1],"alpha":[` + strings.Repeat("0,", 99999) + `0],"report":null}]}}`)
	if _, _, err := model.Load([]byte(big.String())); err == nil || !strings.Contains(err.Error(), "rebuilding the gpc posterior of 100000 training rows needs about") {
		t.Errorf("a GPC of 100 000 rows: %v", err)
	}
	// /dev/zero: refused at its first byte, at once.
	if _, err := os.Stat("/dev/zero"); err == nil {
		start := time.Now()
		_, err := model.ReadFile("/dev/zero")
		if err == nil || !strings.Contains(err.Error(), "not a LUPI Lab model file") {
			t.Errorf("/dev/zero: %v", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("/dev/zero took %v", d) // a generous bound: the read stops after 64 KiB
		}
	}
	// An endless stream of spaces and then JSON: stopped at the size limit.
	if _, err := model.ReadModel(strings.NewReader(strings.Repeat(" ", model.MaxFileBytes+1))); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("an over-long file: %v", err)
	}
}

// setParam sets name to value in every "params" object under v that has it.
func setParam(v any, name, value string) {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["params"].(map[string]any); ok {
			if _, has := p[name]; has {
				p[name] = value
			}
		}
		for _, e := range x {
			setParam(e, name, value)
		}
	case []any:
		for _, e := range x {
			setParam(e, name, value)
		}
	}
}

// relabel returns a saved model file with another model id in its envelope.
func relabel(t *testing.T, b []byte, id string) []byte {
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	root["model"] = id
	out, _ := json.Marshal(root)
	return out
}

// FuzzLoadModel: no byte string makes Load, or Predict with what it
// loaded, panic (make fuzz-short runs it briefly, make fuzz for long). The
// seeds are every model's saved files.
func FuzzLoadModel(f *testing.F) {
	files, _ := savedModels(f)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f.Add(files[n])
	}
	// a small loading budget keeps each execution small (a GP file may
	// declare thousands of rows); the limit itself is what is checked
	defer func(old float64) { model.MaxLoadBytes = old }(model.MaxLoadBytes)
	model.MaxLoadBytes = 64 << 20
	f.Fuzz(func(t *testing.T, b []byte) {
		s, fitted, err := model.Load(b)
		if err != nil {
			if model.IsInternal(err) {
				t.Fatal(err)
			}
			return
		}
		x, z := dimsOf(fitted)
		if err := probe(s, fitted, x, z); err != nil {
			t.Fatal(err)
		}
	})
}
