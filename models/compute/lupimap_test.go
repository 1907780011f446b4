package compute

import (
	"context"
	"math"
	"testing"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// A two-view model on LUPI data predicts from view A alone (rule A), so the
// map of view A can be drawn although view B (three privileged features)
// cannot be laid out in the plane: the fit ends with a map of view A whose
// decision is finite everywhere.
func TestTwoViewModelOnLUPIDataMapsViewA(t *testing.T) {
	for _, m := range spec.All() {
		if m.Z == spec.ZView {
			t.Run(m.ID, func(t *testing.T) { checkViewAMap(t, m.ID) })
		}
	}
}

func checkViewAMap(t *testing.T, id string) {
	e := testEngine()
	lupi := wire.DataRef{Source: "gen:lupi2d", N: 120, Noise: 0.2, Seed: 1}
	msgs := do(t, e, context.Background(), wire.KindFit, wire.FitRequest{Data: lupi, Split: split, Model: id,
		Params: map[string]string{}, Grid: &wire.GridSpec{Side: 40}}, nil)
	last(t, msgs, wire.KindResult)
	parts, bins := decodeParts(t, msgs)
	var found bool
	for i, p := range parts {
		if p.Grid == nil || p.Grid.View != "A" {
			continue
		}
		found = true
		if len(p.Grid.Layers) == 0 || p.Grid.Layers[0].Name != wire.LayerDecision {
			t.Fatalf("view A's map has layers %+v, want the decision first", p.Grid.Layers)
		}
		vals, err := bins[i].Floats(p.Grid.Layers[0].Values)
		if err != nil || len(vals) != 40*40 {
			t.Fatalf("%d values, %v", len(vals), err)
		}
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatal("a value of the map is not finite")
			}
		}
	}
	if !found {
		t.Fatalf("no map of view A among %d parts", len(parts))
	}
}
