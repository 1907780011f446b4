package compute

import (
	"context"
	"testing"

	"lupilab/models/wire"
)

// A multi-class map carries the borders of the class regions as the
// "class" layer's boundary iso-line, and one margin layer per class whose
// sign is the predicted class at every cell (the page colours the regions
// between the cells from them).
func TestMultiClassMapHasBordersAndMargins(t *testing.T) {
	e := testEngine()
	blobs := wire.DataRef{Source: "gen:blobs", N: 150, Noise: 0.2, Seed: 1}
	msgs := do(t, e, context.Background(), wire.KindFit, wire.FitRequest{Data: blobs, Split: split, Model: "svm",
		Params: map[string]string{}, Grid: &wire.GridSpec{Side: 40}}, nil)
	last(t, msgs, wire.KindResult)
	parts, bins := decodeParts(t, msgs)
	found := false
	for i, p := range parts {
		if p.Grid == nil {
			continue
		}
		found = true
		layers := map[string]wire.Layer{}
		for _, l := range p.Grid.Layers {
			layers[l.Name] = l
		}
		cl, ok := layers[wire.LayerClass]
		if !ok || len(cl.Contours) != 1 || cl.Contours[0].Style != "boundary" || len(cl.Contours[0].Paths) < 3 {
			t.Fatalf("the class layer's iso-lines: %+v", cl.Contours)
		}
		labels, err := bins[i].Floats(cl.Values)
		if err != nil {
			t.Fatal(err)
		}
		for c, name := range []string{"margin:0", "margin:1", "margin:2"} {
			m, ok := layers[name]
			if !ok || m.Kind != wire.LayerMargin {
				t.Fatalf("no layer %s among %v", name, layers)
			}
			v, err := bins[i].Floats(m.Values)
			if err != nil || len(v) != len(labels) {
				t.Fatalf("%s: %d values, %v", name, len(v), err)
			}
			for k := range v {
				if (v[k] > 0) != (int(labels[k]) == c) {
					t.Fatalf("%s is %v at cell %d, predicted class %v", name, v[k], k, labels[k])
				}
			}
		}
	}
	if !found {
		t.Fatal("no map")
	}
}
