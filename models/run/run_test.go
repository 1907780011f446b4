package run

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	_ "lupilab/models/all"
	"lupilab/models/data"
	"lupilab/models/model"
)

// SuitableDataset returns the generator the playground uses by default for
// a model (two-view data for view models, privileged data for LUPI models,
// tags for multi-label models, moons otherwise).
func suitable(t *testing.T, spec *model.Spec) *data.Dataset {
	t.Helper()
	name := DefaultGenerator(spec)
	ds, err := data.GenerateByName(name, 120, 0.2, 3)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestEveryModelRuns fits every registered model through the same pipeline
// the app uses and checks the outcome is complete and better than chance.
func TestEveryModelRuns(t *testing.T) {
	for _, spec := range model.All() {
		t.Run(spec.ID, func(t *testing.T) {
			ds := suitable(t, spec)
			o, err := Do(context.Background(), Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard",
				Model: spec.ID, GridSize: 24}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if o.Report == nil || o.TrainPred == nil || o.TestPred == nil {
				t.Fatal("incomplete outcome")
			}
			if o.PredictSeconds <= 0 {
				t.Errorf("scoring time %v s: not measured", o.PredictSeconds)
			}
			switch {
			case ds.Tags != nil:
				if o.TestTags == nil || math.IsNaN(o.TestTags.Micro.F1) || o.TestTags.Micro.F1 < 0.5 {
					t.Errorf("tag F1 %+v", o.TestTags)
				}
			default:
				chance := 1 / float64(len(ds.Classes))
				if o.TestAcc < chance+0.15 {
					t.Errorf("test accuracy %.3f hardly above chance %.3f", o.TestAcc, chance)
				}
				if ds.Dim() == 2 && o.Surface == nil {
					t.Error("no decision surface for 2-D data")
				}
				if spec.Family == model.FamilyTwin || spec.ID == "mpwtsvm" {
					g := o.Surface.Grid
					if len(o.Planes) < 2 {
						t.Errorf("twin model without proximal surfaces: %v", len(o.Planes))
					}
					for k, v := range o.Planes {
						if len(v) != g.W*g.H {
							t.Errorf("plane %s: %d values for %d pixels", k, len(v), g.W*g.H)
						}
					}
				}
			}
		})
	}
}

func TestCompatibleErrors(t *testing.T) {
	moons, _ := data.GenerateByName("moons", 60, 0.1, 1)
	for _, id := range []string{"svm2plus", "mpwtsvm", "jointsvm"} {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if err := Compatible(spec, moons); err == nil {
			t.Errorf("%s accepted data without the blocks it needs", id)
		}
	}
}

func TestCompareAndGrid(t *testing.T) {
	ds, _ := data.GenerateByName("moons", 150, 0.2, 2)
	cfg := Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard", Model: "svm", GridSize: 0}
	rows, err := Compare(context.Background(), cfg, []string{"svm", "l2svm", "jointsvm"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Err != nil || rows[1].Err != nil || rows[2].Err == nil {
		t.Fatalf("rows: %+v", rows)
	}
	g, err := GridSearch(context.Background(), cfg, "C", LogValues(0.01, 100, 3), "gamma", LogValues(0.1, 10, 3), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	best := g.Score[g.Best[0]][g.Best[1]]
	if best < 0.85 || g.Cells != 9 || g.Fit != 27 {
		t.Fatalf("grid: best %.3f, %d cells, %d fits", best, g.Cells, g.Fit)
	}
	// The worst corner (tiny C, tiny γ) must be worse than the best cell.
	if g.Score[0][0] >= best {
		t.Errorf("grid shows no contrast: %v", g.Score)
	}
	if _, err := GridSearch(context.Background(), cfg, "C", []string{"1"}, "C", []string{"1"}, 3, nil); err == nil {
		t.Error("same parameter twice accepted")
	}
	if _, err := GridSearch(context.Background(), cfg, "C", []string{"1"}, "nope", []string{"1"}, 3, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown parameter: %v", err)
	}
	g, err = GridSearch(context.Background(), cfg, "C", []string{"-1", "1"}, "gamma", []string{"1"}, 3, nil)
	if err != nil || !math.IsNaN(g.Score[0][0]) || g.Errs[0][0] == "" || g.Best != [2]int{1, 0} {
		t.Errorf("invalid cell not reported: %v %+v", err, g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GridSearch(ctx, cfg, "C", []string{"1"}, "gamma", []string{"1"}, 3, nil); err == nil {
		t.Error("cancelled grid ran")
	}
}

// TestPredictChunkedEqualsPredict checks that the chunked prediction the app
// uses (to keep the page responsive) equals a single Predict call.
func TestPredictChunkedEqualsPredict(t *testing.T) {
	for _, c := range []struct{ id, gen string }{{"svm", "moons"}, {"jointsvm", "multilabel2d"}, {"svm2k", "twoview2d"}, {"gpc", "xor"}} {
		spec, err := model.Lookup(c.id)
		if err != nil {
			t.Fatal(err)
		}
		ds, _ := data.GenerateByName(c.gen, 400, 0.2, 5)
		o, err := Do(context.Background(), Config{Dataset: ds, TrainFrac: 0.5, Seed: 1, Scale: "standard", Model: c.id}, nil)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := o.Fitted.Predict(forPredict(spec, o.Test))
		if err != nil {
			t.Fatal(err)
		}
		ticks := 0
		parts, err := model.PredictChunked(o.Fitted, forPredict(spec, o.Test), func() { ticks++ })
		if err != nil {
			t.Fatal(err)
		}
		if ticks < 2 {
			t.Errorf("%s: %d chunks", c.id, ticks)
		}
		a, _ := json.Marshal(whole)
		b, _ := json.Marshal(parts)
		if string(a) != string(b) {
			t.Errorf("%s: chunked prediction differs", c.id)
		}
	}
}

// The training time excludes the time spent in progress callbacks (where
// the browser gets its turns); the wall time includes it.
func TestFitTimeExcludesPauses(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 150, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	const pause = 5 * time.Millisecond
	o, err := Do(context.Background(), Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard", Model: "gpcplus"},
		func(p model.Progress) {
			// not the notice before the fit nor the grid's ticks after it
			if p.Stage != "fitting" && p.Stage != "predicting" {
				calls++
				if calls <= 20 {
					time.Sleep(pause)
				}
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 3 {
		t.Fatalf("only %d progress reports during the fit", calls)
	}
	gap := time.Duration((o.FitWallSeconds - o.FitSeconds) * float64(time.Second))
	// (gap is a difference of float seconds: allow for its rounding)
	if slept := min(calls, 20); o.FitSeconds <= 0 || gap < time.Duration(slept)*pause-time.Microsecond {
		t.Errorf("fit %.4f s, wall %.4f s: %d pauses of %v not excluded", o.FitSeconds, o.FitWallSeconds, slept, pause)
	}
}
