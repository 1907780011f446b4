package viz_test

import (
	"context"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/viz"

	_ "lupilab/models/all"
)

// defaultOutcome fits a model with its default parameters on its default
// generated data set (run.DefaultGenerator at the generator's default size
// and noise, seed 1, 70 % training rows, standard scaling) — what the app
// shows first — without computing a grid.
func defaultOutcome(tb testing.TB, id string) *run.Outcome {
	tb.Helper()
	spec, err := model.Lookup(id)
	if err != nil {
		tb.Fatal(err)
	}
	name := run.DefaultGenerator(spec)
	gen, ok := data.GeneratorByName(name)
	if !ok {
		tb.Fatalf("no generator %q", name)
	}
	ds, err := data.GenerateByName(name, gen.DefaultN, gen.DefaultNoise, 1)
	if err != nil {
		tb.Fatal(err)
	}
	o, err := run.Do(context.Background(), run.Config{Dataset: ds, TrainFrac: 0.7, Seed: 1, Scale: "standard", Model: id}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

// mapGrids returns the view-A grid (and view B's for two-view models) of
// side size, laid out as run lays them out.
func mapGrids(tb testing.TB, o *run.Outcome, size int) (ga, gb viz.Grid) {
	tb.Helper()
	ga, err := viz.BoundsOf(size, size, 0.08, o.TrainXY, o.TestXY)
	if err != nil {
		tb.Fatal(err)
	}
	if o.TrainZXY != nil {
		if gb, err = viz.BoundsOf(size, size, 0.08, o.TrainZXY, o.TestZXY); err != nil {
			tb.Fatal(err)
		}
	}
	return ga, gb
}

// fullMap computes everything the app draws for a model over a size×size
// grid: every layer of Evaluate (twin planes included), both views of
// EvaluateViews, every tag of EvaluateTags. (Before the grid fast paths the
// twin planes were a separate point-by-point pass in models/run.)
func fullMap(o *run.Outcome, ga, gb viz.Grid) error {
	f, spec, classes := o.Fitted, o.Spec, o.Train.Classes
	switch {
	case spec.Task == model.MultiLabel:
		_, err := viz.EvaluateTags(f, ga, o.Train.NumTags(), func() {})
		return err
	case spec.Z == model.ZView:
		_, _, err := viz.EvaluateViews(f, ga, gb, classes, func() {})
		return err
	}
	_, err := viz.Evaluate(f, spec, ga, classes, func() {})
	return err
}

// BenchmarkFullMap times the full 200×200 map of every registered model,
// default parameters on its default data (make bench-grid; under
// WebAssembly: make bench-grid-wasm).
func BenchmarkFullMap(b *testing.B) {
	for _, spec := range model.All() {
		b.Run(spec.ID, func(b *testing.B) {
			o := defaultOutcome(b, spec.ID)
			if o.Projected {
				b.Skip("data not 2-D")
			}
			ga, gb := mapGrids(b, o, 200)
			b.ResetTimer()
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				if err := fullMap(o, ga, gb); err != nil {
					b.Fatal(err)
				}
			}
			if c := cpuSeconds() - c0; c > 0 {
				b.ReportMetric(1e3*c/float64(b.N), "cpu-ms/op")
			}
		})
	}
}
