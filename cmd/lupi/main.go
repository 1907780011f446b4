// Command lupi is the native twin of LUPI Lab: it fits, saves and applies the
// same registered models as the browser app, on files too big for a tab, and
// runs the papers' experiments reproducibly. Every command prints JSON (or
// markdown for experiments) on stdout; on error it prints one line on stderr
// and exits with a non-zero status (1 for a failed command, 2 for bad usage).
//
//	lupi models
//	    JSON list of model specs: id, name, paper, equations, task, family,
//	    parameters with defaults and ranges.
//	lupi fit -model ID -train FILE [-test FILE] [-set name=value]... [-seed N] [-o model.json]
//	         [-train-z FILE] [-test-z FILE] [-twoview] [-train-metrics=false]
//	    Fits a model and prints one JSON object: model, params, n_train,
//	    n_test, train_seconds, converged, iterations, objective (the dual
//	    objective in minimisation form, as LIBSVM's obj), n_support, rho and
//	    bias where defined, train_metrics and test_metrics (accuracy or the
//	    multi-label scores, plus the model's extras such as
//	    log_marginal_likelihood), warnings. -o saves the fitted model.
//	lupi predict -model-file model.json -data FILE [-z FILE] [-twoview]
//	    Prints decision values, labels, per-class scores, probabilities or
//	    tags as JSON (and metrics when FILE has labels).
//	lupi experiment NAME [-quick] [-seed N] [-repeats N] [-data DIR] [-set k=v]... [-j N] [-timing=false]
//	         [-json FILE] [-md FILE] [-tasks FILE]
//	    Runs a paper's experiment, -j tasks at once (default: every core);
//	    prints its markdown tables (identical for every -j but for timings).
//	lupi tune -model ID -train FILE -grid name=v1,v2,… [-grid …] [-folds K] [-j N] [-seed N]
//	          [-scale standard|minmax|none] [-set name=value]...
//	    k-fold cross-validation over the grid; prints each cell's mean ± sd
//	    and the best cell as JSON (identical for every -j).
//	lupi experiment list
//	    JSON list of the registered experiments.
//
// FILE is any format lupilab/models/data reads: CSV (columns y/label = class,
// x_* = main, z_* = second block, tag_* = tags), LIBSVM / SVMlight (Z from a
// second LIBSVM file given by -train-z / -test-z / -z) or ARFF.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	_ "lupilab/models/all" // registers every model and experiment
	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage:
  lupi models
  lupi fit -model ID -train FILE [-test FILE] [-set name=value]... [-seed N] [-o model.json]
  lupi predict -model-file model.json -data FILE
  lupi experiment NAME [-quick] [-seed N] [-repeats N] [-data DIR] [-set k=v]... [-j N] [-timing=false] [-json FILE] [-md FILE] [-tasks FILE]
  lupi experiment list
  lupi tune -model ID -train FILE -grid name=v1,v2,... [-grid ...] [-folds K] [-j N] [-seed N] [-scale standard|minmax|none] [-set name=value]...
`

// usageError marks errors of the command line itself (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	msg := strings.Join(strings.Fields(err.Error()), " ") // one line
	fmt.Fprintln(stderr, "lupi: "+msg)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func dispatch(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command (models, fit, predict, experiment, tune); see lupi help"}
	}
	switch args[0] {
	case "models":
		if len(args) > 1 {
			return usageError{"models takes no arguments"}
		}
		return writeJSON(stdout, model.All())
	case "fit":
		return cmdFit(ctx, args[1:], stdout)
	case "predict":
		return cmdPredict(args[1:], stdout)
	case "experiment":
		return cmdExperiment(ctx, args[1:], stdout)
	case "tune":
		return cmdTune(ctx, args[1:], stdout)
	case "help", "-h", "-help", "--help":
		return flag.ErrHelp
	}
	return usageError{fmt.Sprintf("unknown command %q (models, fit, predict, experiment, tune)", args[0])}
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// setFlags collects repeated -set name=value.
type setFlags map[string]string

func (s setFlags) String() string { return "" }

func (s setFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("-set %q: want name=value", v)
	}
	s[k] = strings.TrimSpace(val)
	return nil
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{fs.Name() + ": " + err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

func readData(path, zpath string, twoview, oneClassOK bool) (*data.Dataset, error) {
	opt := data.ReadOptions{ZPath: zpath, AllowOneClass: oneClassOK}
	if twoview {
		opt.Kind = data.KindTwoView
	}
	if zpath != "" && data.FormatOf(path) != "libsvm" {
		return nil, fmt.Errorf("a separate Z file is only for LIBSVM files (CSV: name the columns z_*)")
	}
	ds, err := data.ReadFile(path, opt)
	if err != nil {
		if strings.Contains(err.Error(), filepath.Base(path)) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// align makes ds comparable with the training set: class indices follow the
// training set's class names, and a LIBSVM file with fewer columns (its
// trailing features all zero) is padded to the training width.
func align(ds, train *data.Dataset, trainDim, trainZDim int, sparse bool) (*data.Dataset, error) {
	out := *ds
	pad := func(m *mat.Dense, d int, what string) (*mat.Dense, error) {
		if m == nil {
			return nil, nil
		}
		n, c := m.Dims()
		if c == d {
			return m, nil
		}
		if c > d || !sparse {
			return nil, fmt.Errorf("%s has %d columns, the training data had %d", what, c, d)
		}
		p := mat.NewDense(n, d, nil)
		p.Slice(0, n, 0, c).(*mat.Dense).Copy(m)
		return p, nil
	}
	var err error
	if out.X, err = pad(ds.X, trainDim, "the data"); err != nil {
		return nil, err
	}
	if trainZDim > 0 && ds.Z != nil {
		if out.Z, err = pad(ds.Z, trainZDim, "the second block"); err != nil {
			return nil, err
		}
	}
	if train != nil && ds.Y != nil && train.Classes != nil {
		idx := map[string]int{}
		for i, c := range train.Classes {
			idx[c] = i
		}
		out.Y = make([]int, len(ds.Y))
		for i, c := range ds.Y {
			j, ok := idx[ds.Classes[c]]
			if !ok {
				return nil, fmt.Errorf("class %q does not occur in the training data (classes: %s)", ds.Classes[c], strings.Join(train.Classes, ", "))
			}
			out.Y[i] = j
		}
		out.Classes = train.Classes
	}
	return &out, nil
}

// forPredict hides Z from models that may only use it while training.
func forPredict(spec *model.Spec, ds *data.Dataset) *data.Dataset { return spec.ForPredict(ds) }

func cmdFit(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("fit")
	id := fs.String("model", "", "model id (see lupi models)")
	trainPath := fs.String("train", "", "training data file")
	testPath := fs.String("test", "", "test data file (optional)")
	trainZ := fs.String("train-z", "", "LIBSVM file with the training Z block")
	testZ := fs.String("test-z", "", "LIBSVM file with the test Z block")
	twoview := fs.Bool("twoview", false, "Z is a second view (not privileged information)")
	seed := fs.Int64("seed", 1, "seed for anything random")
	outPath := fs.String("o", "", "save the fitted model to this file")
	trainMetrics := fs.Bool("train-metrics", true, "score the training data (false: skip it, e.g. when timing)")
	sets := setFlags{}
	fs.Var(sets, "set", "hyper-parameter name=value (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usageError{"fit: -model is required (see lupi models)"}
	}
	if *trainPath == "" {
		return usageError{"fit: -train is required"}
	}
	spec, err := model.Lookup(*id)
	if err != nil {
		return err
	}
	params, err := spec.Resolve(model.Values(sets))
	if err != nil {
		return err
	}
	train, err := readData(*trainPath, *trainZ, *twoview, false)
	if err != nil {
		return err
	}
	if err := compatible(spec, train); err != nil {
		return err
	}
	var test *data.Dataset
	if *testPath != "" {
		t, err := readData(*testPath, *testZ, *twoview, true)
		if err != nil {
			return err
		}
		if test, err = align(t, train, train.Dim(), train.ZDim(), data.FormatOf(*testPath) == "libsvm"); err != nil {
			return fmt.Errorf("%s: %w", *testPath, err)
		}
		if spec.Z == model.ZView && test.Z == nil {
			return fmt.Errorf("%s: %s needs the second view at test time too", *testPath, spec.Name)
		}
	}
	start := time.Now()
	fitted, err := spec.Fit(ctx, train, params, model.Options{Seed: *seed})
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	rep := fitted.Report()
	if rep == nil {
		rep = &model.Report{}
	}
	out := map[string]any{
		"model": spec.ID, "params": params, "n_train": train.Rows(), "train_seconds": secs,
		"converged": rep.Converged, "iterations": rep.Iterations, "objective": rep.Objective,
		"n_support": rep.NSupport,
	}
	if rep.Rho != nil {
		out["rho"] = *rep.Rho
		out["bias"] = -*rep.Rho
	}
	if len(rep.Warnings) > 0 {
		out["warnings"] = rep.Warnings
	}
	if *trainMetrics {
		if out["train_metrics"], err = score(spec, fitted, train, rep); err != nil {
			return err
		}
	} else if len(rep.Extras) > 0 {
		out["train_metrics"] = rep.Extras
	}
	if test != nil {
		out["n_test"] = test.Rows()
		if out["test_metrics"], err = score(spec, fitted, test, nil); err != nil {
			return err
		}
	}
	if *outPath != "" {
		b, err := model.Save(spec.ID, fitted)
		if err != nil {
			return err
		}
		if err := os.WriteFile(*outPath, b, 0o644); err != nil {
			return err
		}
		out["model_file"] = *outPath
	}
	return writeJSON(stdout, out)
}

// compatible is model.Spec.CheckData with a hint on the file columns.
func compatible(spec *model.Spec, ds *data.Dataset) error {
	if err := spec.CheckData(ds); err != nil {
		return fmt.Errorf("%w (columns: y or label for the class, x_* main, z_* second block, tag_* tags; -train-z for LIBSVM files)", err)
	}
	return nil
}

// score predicts ds and returns its metrics plus the report's extras.
func score(spec *model.Spec, f model.Fitted, ds *data.Dataset, rep *model.Report) (map[string]any, error) {
	p, err := f.Predict(forPredict(spec, ds))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := addMetrics(m, ds, p); err != nil {
		return nil, err
	}
	if rep != nil {
		for k, v := range rep.Extras {
			m[k] = v
		}
	}
	return m, nil
}

func addMetrics(m map[string]any, ds *data.Dataset, p *model.Prediction) error {
	switch {
	case ds.Tags != nil && p.Tags != nil:
		ml, err := metrics.Tags(metrics.TagsOf(ds.Tags), p.Tags)
		if err != nil {
			return err
		}
		m["subset_accuracy"] = ml.SubsetAccuracy
		m["hamming_loss"] = ml.Hamming
		m["micro_f1"] = ml.Micro.F1
		m["macro_f1"] = ml.MacroF1
	case ds.Y != nil && p.Labels != nil:
		acc, err := metrics.Accuracy(ds.Y, p.Labels)
		if err != nil {
			return err
		}
		m["accuracy"] = acc
		if len(ds.Classes) > 0 {
			c, err := metrics.Classify(ds.Y, p.Labels, len(ds.Classes))
			if err == nil {
				m["macro_f1"] = c.MacroF1
			}
		}
	}
	return nil
}

func cmdPredict(args []string, stdout io.Writer) error {
	fs := newFlags("predict")
	mf := fs.String("model-file", "", "a model saved by lupi fit -o")
	dataPath := fs.String("data", "", "data file to score")
	zPath := fs.String("z", "", "LIBSVM file with the Z block (two-view models)")
	twoview := fs.Bool("twoview", false, "Z is a second view")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *mf == "" || *dataPath == "" {
		return usageError{"predict: -model-file and -data are required"}
	}
	b, err := os.ReadFile(*mf)
	if err != nil {
		return err
	}
	spec, fitted, err := model.Load(b)
	if err != nil {
		return fmt.Errorf("%s: %w", *mf, err)
	}
	ds, err := readData(*dataPath, *zPath, *twoview, true)
	if err != nil {
		return err
	}
	var classes []string
	inner := fitted
	if s, ok := fitted.(*model.Scaled); ok {
		inner = s.Inner // a model exported by the app, with its feature scaling
	}
	if c, ok := inner.(*model.Classifier); ok {
		classes = c.Classes
	}
	if classes != nil && ds.Y != nil {
		ref := &data.Dataset{Classes: classes}
		if ds, err = align(ds, ref, ds.Dim(), ds.ZDim(), false); err != nil {
			return fmt.Errorf("%s: %w", *dataPath, err)
		}
	}
	if spec.Z == model.ZView && ds.Z == nil {
		return fmt.Errorf("%s: %s needs the second view (z_* columns or -z)", *dataPath, spec.Name)
	}
	p, err := fitted.Predict(forPredict(spec, ds))
	if err != nil {
		return err
	}
	out := map[string]any{"model": spec.ID, "n": ds.Rows(), "decision": p.Decision}
	if len(p.Labels) > 0 && ds.Tags == nil {
		out["label_index"] = p.Labels
		if classes != nil {
			names := make([]string, len(p.Labels))
			for i, l := range p.Labels {
				if l >= 0 && l < len(classes) {
					names[i] = classes[l]
				}
			}
			out["labels"] = names
			out["classes"] = classes
		}
	}
	if p.Scores != nil {
		out["scores"] = p.Scores
	}
	if p.Prob != nil {
		out["prob"] = p.Prob
	}
	if p.Tags != nil {
		out["tags"] = p.Tags
	}
	if p.Views != nil {
		out["views"] = p.Views
	}
	m := map[string]any{}
	if (ds.Y != nil && classes != nil) || ds.Tags != nil {
		if err := addMetrics(m, ds, p); err == nil && len(m) > 0 {
			out["metrics"] = m
		}
	}
	return writeJSON(stdout, out)
}
