package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/model"
)

// gridFlags collects repeated -grid name=v1,v2,… (name may tie several
// parameters: C=CB=1,10).
type gridFlags []experiment.Axis

func (g *gridFlags) String() string { return "" }

func (g *gridFlags) Set(v string) error {
	eq := strings.LastIndex(v, "=")
	if eq < 0 {
		return fmt.Errorf("-grid %q: want name=v1,v2,…", v)
	}
	names, vals := strings.Split(v[:eq], "="), v[eq+1:]
	var axis experiment.Axis
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			axis.Names = append(axis.Names, n)
		}
	}
	for _, x := range strings.Split(vals, ",") {
		if x = strings.TrimSpace(x); x != "" {
			axis.Values = append(axis.Values, x)
		}
	}
	if len(axis.Names) == 0 || len(axis.Values) == 0 {
		return fmt.Errorf("-grid %q: want name=v1,v2,…", v)
	}
	*g = append(*g, axis)
	return nil
}

// tuneCell is one cell of lupi tune's output.
type tuneCell struct {
	Params model.Values `json:"params"`
	Mean   *float64     `json:"mean"` // null for a failed cell
	SD     *float64     `json:"sd"`
	Scores []float64    `json:"scores,omitempty"`
	Error  string       `json:"error,omitempty"`
}

func cmdTune(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("tune")
	id := fs.String("model", "", "model id (see lupi models)")
	trainPath := fs.String("train", "", "training data file")
	trainZ := fs.String("train-z", "", "LIBSVM file with the training Z block")
	twoview := fs.Bool("twoview", false, "Z is a second view (not privileged information)")
	folds := fs.Int("folds", 5, "number of folds")
	jobs := fs.Int("j", runtime.NumCPU(), "cells cross-validated at once")
	seed := fs.Int64("seed", 1, "seed of the folds and the fits")
	scale := fs.String("scale", "none", "feature scaling refitted on each fold's training rows: standard, minmax or none")
	var grid gridFlags
	fs.Var(&grid, "grid", "searched parameter name=v1,v2,… (repeatable; name1=name2=… ties parameters)")
	sets := setFlags{}
	fs.Var(sets, "set", "fixed hyper-parameter name=value (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{"tune: -model is required (see lupi models)"}
	case *trainPath == "":
		return usageError{"tune: -train is required"}
	case len(grid) == 0:
		return usageError{"tune: at least one -grid name=v1,v2,… is required"}
	case *folds < 2:
		return usageError{"tune: -folds must be ≥ 2"}
	case *jobs < 1:
		return usageError{"tune: -j must be ≥ 1"}
	}
	switch *scale {
	case data.ScaleStandard, data.ScaleMinMax, "none":
	default:
		return usageError{fmt.Sprintf("tune: -scale %q is not standard, minmax or none", *scale)}
	}
	if _, err := model.Lookup(*id); err != nil {
		return err
	}
	ds, err := readData(*trainPath, *trainZ, *twoview, false)
	if err != nil {
		return err
	}
	cv := &experiment.CV{Model: *id, Base: model.Values(sets), Axes: grid, Folds: *folds, Seed: *seed, Scale: *scale}
	cells, best, err := cv.Run(ctx, ds, *jobs, nil)
	if err != nil {
		return err
	}
	metric := "accuracy"
	if ds.Y == nil {
		metric = "micro_f1"
	}
	values := cv.Cells()
	out := struct {
		Model  string     `json:"model"`
		NTrain int        `json:"n_train"`
		Folds  int        `json:"folds"`
		Seed   int64      `json:"seed"`
		Scale  string     `json:"scale"`
		Metric string     `json:"metric"`
		Cells  []tuneCell `json:"cells"`
		Best   *tuneCell  `json:"best"`
	}{Model: *id, NTrain: ds.Rows(), Folds: *folds, Seed: *seed, Scale: *scale, Metric: metric}
	for i, c := range cells {
		tc := tuneCell{Params: values[i], Scores: c.Scores, Error: c.Err}
		if m, sd := c.Mean(); !math.IsNaN(m) {
			tc.Mean, tc.SD = &m, &sd
		}
		out.Cells = append(out.Cells, tc)
	}
	if best < 0 {
		return fmt.Errorf("tune: every cell failed, e.g. %s", cells[0].Err)
	}
	out.Best = &out.Cells[best]
	return writeJSON(stdout, out)
}
