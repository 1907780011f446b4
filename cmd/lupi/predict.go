package main

import (
	"fmt"

	"lupilab/models/data"
	"lupilab/models/model"
)

// cmdPredict scores a data file with a saved model (lupi predict).
func cmdPredict(args []string, e *env) error {
	e.doing = "reading the command line of lupi predict"
	fs := newFlags("predict")
	mf := fs.String("model-file", "", "a model saved by lupi fit -o (or exported by the app)")
	dataPath := fs.String("data", "", "data file to score (labels optional)")
	zPath := fs.String("z", "", "LIBSVM file with the Z block (two-view models)")
	twoview := fs.Bool("twoview", false, "Z is a second view (the multi-view models assume it)")
	maxMemory := fs.String("max-memory", "auto", "refuse model files whose rebuilding (a GP's posterior) needs more memory than this (e.g. 4G; 0: no limit; auto: 60% of what the machine has free)")
	var tags tagSpec
	fs.Var(&tags, "tags", "the label columns of a multi-label file: last:N, first:N, a,b,c or Mulan's labels.xml")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *mf == "" || *dataPath == "" {
		return usageError{"predict: -model-file and -data are required"}
	}
	budget, _, err := memoryLimit(*maxMemory)
	if err != nil {
		return err
	}
	model.MaxLoadBytes = budget
	e.doing = "reading the model file " + *mf
	b, err := model.ReadFile(*mf)
	if err != nil {
		return fmt.Errorf("%s: %w", *mf, err)
	}
	e.doing = "loading the model file " + *mf
	spec, fitted, err := model.Load(b)
	if err != nil {
		return fmt.Errorf("%s: %w", *mf, err)
	}
	kind := data.Kind("")
	if *twoview || spec.Z == model.ZView {
		kind = data.KindTwoView
	}
	e.doing = "reading " + *dataPath
	ds, err := readDataset(readSpec{path: *dataPath, zpath: *zPath, kind: kind, tags: tags, oneClassOK: true, unlabelled: true})
	if err != nil {
		return err
	}
	classes := modelClasses(fitted)
	if ds, err = checkPredictData(spec, fitted, classes, ds, *dataPath); err != nil {
		return err
	}
	e.doing = fmt.Sprintf("predicting %s with the %s model %s", *dataPath, spec.ID, *mf)
	p, err := predictChunked(fitted, forPredict(spec, ds))
	if err != nil {
		return fmt.Errorf("%s: %w", *dataPath, err)
	}
	out := predictResult(spec.ID, ds, p, classes)
	m := map[string]any{}
	if (ds.Y != nil && classes != nil) || ds.Tags != nil {
		if err := addMetrics(m, ds, p); err == nil && len(m) > 0 {
			if err := addViewMetrics(m, fitted, forPredict(spec, ds)); err != nil {
				return fmt.Errorf("%s: %w", *dataPath, err)
			}
			out["metrics"] = m
		}
	}
	e.doing = "writing the result"
	return writeJSON(e.stdout, out)
}

// modelClasses are the class names of a classifier model (saved with its
// scaling or not); nil for other models.
func modelClasses(fitted model.Fitted) []string {
	inner := fitted
	if s, ok := fitted.(*model.Scaled); ok {
		inner = s.Inner // a model saved with its feature scaling
	}
	if c, ok := inner.(*model.Classifier); ok {
		return c.Classes
	}
	return nil
}

// checkPredictData aligns the labels of ds (read from path) with the
// model's classes and refuses data without the second view a multi-view
// model needs or with another number of main features than the model's.
func checkPredictData(spec *model.Spec, fitted model.Fitted, classes []string, ds *data.Dataset, path string) (*data.Dataset, error) {
	if classes != nil && ds.Y != nil {
		ref := &data.Dataset{Classes: classes}
		var err error
		if ds, err = align(ds, ref, ds.Dim(), ds.ZDim(), false); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if spec.Z == model.ZView && ds.Z == nil {
		return nil, fmt.Errorf("%s: %s needs the second view (z_* columns or -z)", path, spec.Name)
	}
	if sh, ok := fitted.(model.Shaped); ok {
		if x, _ := sh.InputDims(); x > 0 && x != ds.Dim() && data.FormatOf(path) != "libsvm" {
			return nil, fmt.Errorf("%s: %d main features, the model was trained on %d", path, ds.Dim(), x)
		}
	}
	return ds, nil
}

// predictResult is lupi predict's JSON result without metrics: decisions,
// labels (indices, and names for a classifier), scores, probabilities, tags
// and per-view decisions, each where the model gives them.
func predictResult(id string, ds *data.Dataset, p *model.Prediction, classes []string) map[string]any {
	out := map[string]any{"model": id, "n": ds.Rows(), "decision": p.Decision}
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
	return out
}
