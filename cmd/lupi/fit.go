package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// scaleFlag is -scale: a boolean flag (-scale means standard) that also
// takes a method (-scale=minmax, -scale=none).
type scaleFlag struct{ method string }

func (s *scaleFlag) String() string { return s.method }

// IsBoolFlag lets -scale stand alone.
func (s *scaleFlag) IsBoolFlag() bool { return true }

func (s *scaleFlag) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "standard":
		s.method = data.ScaleStandard
	case "minmax":
		s.method = data.ScaleMinMax
	case "false", "none":
		s.method = data.ScaleNone
	default:
		return fmt.Errorf("-scale=%q: want standard, minmax or none (-scale alone: standard)", v)
	}
	return nil
}

// fitFlags are the flags of lupi fit.
type fitFlags struct {
	fs                                     *flag.FlagSet
	id, trainPath, testPath, trainZ, testZ *string
	outPath, maxMemory                     *string
	twoview, trainMetrics, progress        *bool
	seed                                   *int64
	sets                                   setFlags
	scale                                  scaleFlag
	tags                                   tagSpec
}

func newFitFlags() *fitFlags {
	f := &fitFlags{fs: newFlags("fit"), sets: setFlags{}, scale: scaleFlag{data.ScaleNone}}
	fs := f.fs
	f.id = fs.String("model", "", "model id (see lupi models)")
	f.trainPath = fs.String("train", "", "training data file (CSV, LIBSVM or ARFF)")
	f.testPath = fs.String("test", "", "test data file (optional): scored with the fitted model")
	f.trainZ = fs.String("train-z", "", "LIBSVM file with the training Z block")
	f.testZ = fs.String("test-z", "", "LIBSVM file with the test Z block")
	f.twoview = fs.Bool("twoview", false, "Z is a second view, not privileged information (the multi-view models assume it)")
	f.seed = fs.Int64("seed", 1, "seed for anything random")
	f.outPath = fs.String("o", "", "save the fitted model (with its -scale scaling) to this file")
	f.trainMetrics = fs.Bool("train-metrics", true, "score the training data (false: skip it, e.g. when timing)")
	f.maxMemory = fs.String("max-memory", "auto", "refuse fits estimated to need more memory than this at their peak (e.g. 4G, 512M; 0: no limit; auto: 60% of what the machine has free)")
	f.progress = fs.Bool("progress", false, "print the fit's progress on stderr (at most once a second)")
	fs.Var(f.sets, "set", "hyper-parameter name=value (repeatable; see lupi fit -model ID -help)")
	fs.Var(&f.scale, "scale", "scale features on the training rows before fitting: -scale (standard), -scale=minmax or -scale=none; saved in the model and applied by predict")
	fs.Var(&f.tags, "tags", "the label columns of a multi-label file: last:N, first:N, a,b,c or Mulan's labels.xml")
	return f
}

// parseFitFlags reads lupi fit's command line; -help prints the help (of
// the -model given, if any) and returns no flags and no error.
func parseFitFlags(args []string, e *env) (*fitFlags, error) {
	ff := newFitFlags()
	if err := parse(ff.fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, fitHelp(e, ff, modelArg(args))
		}
		return nil, err
	}
	if *ff.id == "" {
		return nil, usageError{"fit: -model is required (see lupi models)"}
	}
	if *ff.trainPath == "" {
		return nil, usageError{"fit: -train is required"}
	}
	return ff, nil
}

func cmdFit(ctx context.Context, args []string, e *env) error {
	e.doing = "reading the command line of lupi fit"
	ff, err := parseFitFlags(args, e)
	if ff == nil || err != nil {
		return err
	}
	s, err := model.Lookup(*ff.id)
	if err != nil {
		return err
	}
	params, err := s.Resolve(model.Values(ff.sets))
	if err != nil {
		return err
	}
	given := map[string]bool{}
	var givenNames []string
	for k := range ff.sets {
		given[s.Param(k).Name] = true
		givenNames = append(givenNames, k)
	}
	sort.Strings(givenNames)
	var notices []string
	note := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		notices = append(notices, msg)
		e.notef("%s", msg)
	}
	for _, ig := range s.Ignored(givenNames, params) {
		note("%s: -set %s is ignored", s.ID, ig)
	}

	kind := data.Kind("")
	if *ff.twoview || s.Z == model.ZView {
		kind = data.KindTwoView
	}
	e.doing = "reading " + *ff.trainPath
	train, err := readDataset(readSpec{path: *ff.trainPath, zpath: *ff.trainZ, kind: kind, tags: ff.tags})
	if err != nil {
		return err
	}
	if err := compatible(s, train); err != nil {
		return err
	}
	dataNotices(s, train, *ff.twoview, note)

	var sc *data.Scaler
	if ff.scale.method != data.ScaleNone {
		e.doing = "scaling " + *ff.trainPath
		if sc, train, err = scaleTrain(train, ff.scale.method, *ff.trainPath); err != nil {
			return err
		}
	}
	zdim := 0
	if s.Z != model.ZNone {
		zdim = train.ZDim()
	}
	for _, w := range s.AdaptWidths(params, func(n string) bool { return !given[n] }, train.Dim(), zdim) {
		note("%s: kernel width %s for the %d features of %s (LIBSVM's default; -set %s=… to choose another)",
			s.ID, w, w.Dim, map[string]string{"gamma": "X", "zgamma": "Z"}[w.Param], w.Param)
	}

	var test *data.Dataset
	if *ff.testPath != "" {
		e.doing = "reading " + *ff.testPath
		if test, err = readTestSet(s, ff, kind, train, sc); err != nil {
			return err
		}
	}

	// The resource guard: refuse before anything of size n² is built.
	shape := model.ShapeOf(s.Spec, train)
	est := s.Estimate(shape, params)
	budget, from, err := memoryLimit(*ff.maxMemory)
	if err != nil {
		return err
	}
	if err := model.CheckBudget(s.Spec, shape, params, budget); err != nil {
		return fmt.Errorf("%w; or raise -max-memory (the limit is %s: %s)", err, spec.FormatBytes(budget), from)
	}
	if est.Known && est.Seconds > 30 && !*ff.progress {
		note("%s on %d rows: estimated %s (-progress reports how far it is)", s.ID, train.Rows(), est)
	}
	opt := model.Options{Seed: *ff.seed, MemoryBudget: budget}
	if *ff.progress {
		p := newProgress(e, "fit "+s.ID, est.Seconds)
		if est.Known {
			e.notef("fit %s on %d rows: estimated %s", s.ID, train.Rows(), est)
		}
		opt.Progress = p.report
	}

	e.doing = fmt.Sprintf("fitting %s on %s", s.ID, *ff.trainPath)
	start := time.Now()
	fitted, err := s.Fit(ctx, train, params, opt)
	if err != nil {
		var re *model.ResourceError
		if errors.As(err, &re) {
			return fmt.Errorf("%w; or raise -max-memory (the limit is %s: %s)", err, spec.FormatBytes(budget), from)
		}
		return err
	}
	secs := time.Since(start).Seconds()
	if *ff.progress {
		e.notef("fit %s: done in %s", s.ID, spec.FormatSeconds(secs))
	}
	rep := fitted.Report()
	if rep == nil {
		rep = &model.Report{}
	}
	out := fitResult(s.ID, params, train.Rows(), secs, rep, est, sc, notices)
	if err := scoreAndSave(e, ff, s, fitted, rep, train, test, sc, out); err != nil {
		return err
	}
	e.doing = "writing the result"
	return writeJSON(e.stdout, out)
}

// scoreAndSave adds to out the training metrics (scored, or the report's
// extras with -train-metrics=false) and the test set's, and saves the model
// with its scaling to -o.
func scoreAndSave(e *env, ff *fitFlags, s *model.Spec, fitted model.Fitted, rep *model.Report, train, test *data.Dataset, sc *data.Scaler, out map[string]any) error {
	var err error
	if *ff.trainMetrics {
		e.doing = "scoring the training data"
		if out["train_metrics"], err = score(s, fitted, train, rep); err != nil {
			return err
		}
	} else if len(rep.Extras) > 0 {
		out["train_metrics"] = rep.Extras
	}
	if test != nil {
		e.doing = "scoring " + *ff.testPath
		out["n_test"] = test.Rows()
		if out["test_metrics"], err = score(s, fitted, test, nil); err != nil {
			return err
		}
	}
	if *ff.outPath != "" {
		e.doing = "saving the model to " + *ff.outPath
		b, err := model.SaveScaled(s.ID, fitted, sc)
		if err != nil {
			return fmt.Errorf("%s: cannot save the model: %w", *ff.outPath, err)
		}
		if err := os.WriteFile(*ff.outPath, b, 0o644); err != nil {
			return err
		}
		out["model_file"] = *ff.outPath
	}
	return nil
}

// scaleTrain fits a scaler of method on train (read from path) and applies it.
func scaleTrain(train *data.Dataset, method, path string) (*data.Scaler, *data.Dataset, error) {
	sc, err := data.FitScaler(train, method)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: -scale: %w", path, err)
	}
	if train, err = sc.Transform(train); err != nil {
		return nil, nil, fmt.Errorf("%s: -scale: %w", path, err)
	}
	return sc, train, nil
}

// readTestSet reads -test (and -test-z), scales it as train was and aligns
// its columns with train's; a multi-view model needs its second view.
func readTestSet(s *model.Spec, ff *fitFlags, kind data.Kind, train *data.Dataset, sc *data.Scaler) (*data.Dataset, error) {
	t, err := readDataset(readSpec{path: *ff.testPath, zpath: *ff.testZ, kind: kind, tags: ff.tags, oneClassOK: true})
	if err != nil {
		return nil, err
	}
	if sc != nil {
		if t, err = sc.Transform(t); err != nil {
			return nil, fmt.Errorf("%s: -scale: %w", *ff.testPath, err)
		}
	}
	test, err := align(t, train, train.Dim(), train.ZDim(), data.FormatOf(*ff.testPath) == "libsvm")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", *ff.testPath, err)
	}
	if s.Z == model.ZView && test.Z == nil {
		return nil, fmt.Errorf("%s: %s needs the second view at test time too", *ff.testPath, s.Name)
	}
	return test, nil
}

// fitResult is lupi fit's JSON result before scoring and saving: the model,
// its parameters and training summary, the estimate, the scaling, the bias,
// warnings and the notices the command printed.
func fitResult(id string, params model.Values, nTrain int, secs float64, rep *model.Report, est spec.Estimate, sc *data.Scaler, notices []string) map[string]any {
	out := map[string]any{
		"model": id, "params": params, "n_train": nTrain, "train_seconds": secs,
		"converged": rep.Converged, "iterations": rep.Iterations, "objective": rep.Objective,
		"n_support": rep.NSupport,
	}
	if est.Known {
		out["estimate"] = map[string]any{"seconds": est.Seconds, "bytes": est.Bytes, "tasks": est.Tasks}
	}
	if sc != nil {
		out["scale"] = sc.Method
	}
	if rep.Rho != nil {
		out["rho"] = *rep.Rho
		out["bias"] = -*rep.Rho
	}
	if len(rep.Warnings) > 0 {
		out["warnings"] = rep.Warnings
	}
	if len(notices) > 0 {
		out["notices"] = notices
	}
	return out
}

// dataNotices says on stderr what the CLI decided about the data's blocks
// for the user: the second block taken as view B, or not used at all, and
// targets the model does not read.
func dataNotices(s *model.Spec, ds *data.Dataset, twoview bool, note func(string, ...any)) {
	switch {
	case s.Z == model.ZView && ds.Z != nil && !twoview:
		note("%s: the second block (%d columns: %s) is view B", s.ID, ds.ZDim(), names(ds.ZNames))
	case s.Z == model.ZNone && ds.Z != nil:
		note("%s does not use the second block: its %d columns (%s) are left out", s.ID, ds.ZDim(), names(ds.ZNames))
	}
	switch {
	case s.Task == model.MultiLabel && ds.Y != nil:
		note("%s predicts tags: the class column is left out", s.ID)
	case s.Task != model.MultiLabel && ds.Tags != nil:
		note("%s is a classifier: the %d tag columns are left out", s.ID, ds.NumTags())
	}
}

// names lists up to four column names.
func names(ns []string) string {
	if len(ns) > 4 {
		return strings.Join(ns[:3], ", ") + fmt.Sprintf(", … (%d more)", len(ns)-3)
	}
	return strings.Join(ns, ", ")
}

// modelArg finds -model's value in a command line that asked for help.
func modelArg(args []string) string {
	for i, a := range args {
		a = strings.TrimPrefix(a, "-")
		a = strings.TrimPrefix(a, "-")
		if v, ok := strings.CutPrefix(a, "model="); ok {
			return v
		}
		if a == "model" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// fitHelp prints lupi fit's flags and, with -model, the model's parameters.
func fitHelp(e *env, ff *fitFlags, id string) error {
	var b bytes.Buffer
	b.WriteString("usage: lupi fit -model ID -train FILE [-test FILE] [-set name=value]... [flags]\n\nflags:\n")
	ff.fs.SetOutput(&b)
	ff.fs.PrintDefaults()
	ff.fs.SetOutput(nil)
	if id == "" {
		b.WriteString("\nlupi fit -model ID -help lists a model's parameters (lupi models lists the models).\n")
		_, err := e.stdout.Write(b.Bytes())
		return err
	}
	s, err := model.Lookup(id)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s (%s) — %s\n%s\n\n", s.Name, s.ID, s.Paper, s.About)
	fmt.Fprintf(&b, "parameters (-set name=value):\n")
	for _, p := range s.Params {
		fmt.Fprintf(&b, "  %s  (%s, default %s", p.Name, p.Kind, p.Default)
		switch {
		case p.Kind == spec.Choice:
			fmt.Fprintf(&b, "; one of %s", strings.Join(p.Choices, ", "))
		case p.Bounded():
			fmt.Fprintf(&b, "; range [%g, %g]", p.Min, p.Max)
			if p.Log {
				b.WriteString(", log scale")
			}
		}
		if len(p.Aliases) > 0 {
			fmt.Fprintf(&b, "; also named %s", strings.Join(p.Aliases, ", "))
		}
		b.WriteString(")\n")
		if p.Help != "" {
			fmt.Fprintf(&b, "      %s\n", p.Help)
		}
		for other, vals := range p.ShowIf {
			fmt.Fprintf(&b, "      Used only when %s is %s.\n", other, strings.Join(vals, " or "))
		}
		if (p.Name == "gamma" || p.Name == "zgamma") && p.Default == "1" {
			fmt.Fprintf(&b, "      Left at its default on data of d > 2 features, it becomes 1/d (LIBSVM's default; said on stderr).\n")
		}
	}
	if len(s.MultiClass) > 0 {
		fmt.Fprintf(&b, "\nmore than two classes: one-vs-rest or one-vs-one (-set multiclass=%s)\n", strings.Join(s.MultiClass, "|"))
	}
	switch s.Z {
	case model.ZPrivileged:
		b.WriteString("the second block (z_* columns, -train-z) is privileged: used while training only\n")
	case model.ZView:
		b.WriteString("the second block (z_* columns, -train-z / -test-z) is view B, needed at test time too\n")
	}
	_, err = e.stdout.Write(b.Bytes())
	return err
}

// compatible is model.Spec.CheckData with a hint on the file columns.
func compatible(spec *model.Spec, ds *data.Dataset) error {
	if err := spec.CheckData(ds); err != nil {
		return fmt.Errorf("%w (columns: y or label for the class, x_* main, z_* second block, tag_* tags or -tags; -train-z for LIBSVM files)", err)
	}
	return nil
}

// score predicts ds and returns its metrics (per view too for two-view
// models) plus the report's extras.
func score(spec *model.Spec, f model.Fitted, ds *data.Dataset, rep *model.Report) (map[string]any, error) {
	p, err := predictChunked(f, forPredict(spec, ds))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := addMetrics(m, ds, p); err != nil {
		return nil, err
	}
	if err := addViewMetrics(m, f, forPredict(spec, ds)); err != nil {
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

// addViewMetrics adds, for two-view models, the accuracy of each view's
// own rule (accuracy_view_A, accuracy_view_B): what each view alone
// predicts, whichever rule the model reports with. A model that predicted
// from view A alone (privileged data) has view A's only.
func addViewMetrics(m map[string]any, f model.Fitted, ds *data.Dataset) error {
	views, c, err := viewDecisions(f, ds)
	if err != nil || views == nil || ds.Y == nil {
		return err
	}
	for _, v := range []string{"A", "B"} {
		dec := views[v]
		if dec == nil {
			continue
		}
		labels, err := viewLabels(c, dec)
		if err != nil {
			return err
		}
		acc, err := metrics.Accuracy(ds.Y, labels)
		if err != nil {
			return err
		}
		m["accuracy_view_"+v] = acc
	}
	return nil
}

// viewDecisions returns, for a classifier of two-view binary models, each
// view's decisions of every binary model (views[v][m][i]), with the data
// scaled as the model expects; nil for other models.
func viewDecisions(f model.Fitted, ds *data.Dataset) (map[string][][]float64, *model.Classifier, error) {
	if s, ok := f.(*model.Scaled); ok {
		scaled, err := scaledFor(s, ds)
		if err != nil {
			return nil, nil, err
		}
		f, ds = s.Inner, scaled
	}
	c, ok := f.(*model.Classifier)
	if !ok || len(c.Models) == 0 {
		return nil, nil, nil
	}
	out := map[string][][]float64{}
	for _, bm := range c.Models {
		mv, ok := bm.(model.MultiView)
		if !ok {
			return nil, nil, nil
		}
		v := map[string][]float64{}
		for lo := 0; lo < ds.Rows(); lo += viewChunk {
			part := data.Subset(ds, seq(lo, min(lo+viewChunk, ds.Rows())))
			pv, err := mv.ViewDecisions(part)
			if err != nil {
				return nil, nil, err
			}
			for k, d := range pv {
				v[k] = append(v[k], d...)
			}
		}
		for _, k := range []string{"A", "B"} {
			if d, ok := v[k]; ok {
				out[k] = append(out[k], d)
			}
		}
	}
	for k, d := range out {
		if len(d) != len(c.Models) {
			delete(out, k)
		}
	}
	return out, c, nil
}

// viewChunk is how many rows per-view decisions are computed for at once
// (a kernel expansion's cross matrix is rows × support vectors).
const viewChunk = 2048

func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// predictChunked predicts ds in chunks (model.PredictChunked), so that the
// matrices of test rows × support vectors stay small for any file.
func predictChunked(f model.Fitted, ds *data.Dataset) (*model.Prediction, error) {
	return model.PredictChunked(f, ds, func() {})
}

// scaledFor applies a saved model's scaling to ds as its Predict does.
func scaledFor(s *model.Scaled, ds *data.Dataset) (*data.Dataset, error) {
	sc := *s.Scaler
	if ds.Z == nil {
		sc.ZShift, sc.ZScale = nil, nil
	}
	return sc.Transform(ds)
}

// viewLabels turns one view's decisions of every binary model into class
// indices with the classifier's own rule.
func viewLabels(c *model.Classifier, dec [][]float64) ([]int, error) {
	if c.Strategy == "binary" {
		labels := make([]int, len(dec[0]))
		for i, d := range dec[0] {
			if d > 0 {
				labels[i] = c.Pos[0]
			} else {
				labels[i] = c.Neg[0]
			}
		}
		return labels, nil
	}
	p, err := c.Combine(dec)
	if err != nil {
		return nil, err
	}
	return p.Labels, nil
}
