package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"lupilab/models/compute"
	"lupilab/models/wire"
)

// engineRun runs a request on an in-process compute engine and returns its
// part messages and its last one.
func engineRun(t *testing.T, e *compute.Engine, kind string, req any) (parts []wire.Message, end wire.Message) {
	t.Helper()
	m, err := wire.Encode(1, kind, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Handle(context.Background(), m, func(m wire.Message) {
		switch m.Kind {
		case wire.KindPart:
			parts = append(parts, m)
		case wire.KindResult, wire.KindError, wire.KindCancelled:
			end = m
		}
	})
	if end.Kind != wire.KindResult {
		t.Fatalf("%s: ended with %q", kind, end.Kind)
	}
	return parts, end
}

// TestImportDecodesEachMessageOnce: the model import takes each message of
// the engine's answer — the imported result, its maps — by decoding it once
// (its part handler decoded each twice: once to find the result, once to
// show it), and shows the result under the imported model's settings. The
// decoding's allocations stand for its work: taking a message costs about
// one decoding, not two.
func TestImportDecodesEachMessageOnce(t *testing.T) {
	e := compute.New(func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join("..", "web", "datasets", name))
	})
	e.ProgressEvery = 0
	set := Settings{Source: "gen:moons", N: 300, Noise: 0.2, Seed: 1, TrainPct: 70, Model: "svm",
		Params: map[string]map[string]string{"svm": {"C": "3"}}}
	_, end := engineRun(t, e, wire.KindFit, wire.FitRequest{Data: set.Data(""), Split: set.Split(), Model: "svm", Params: set.Values()})
	var fit wire.Part
	if _, err := end.Decode(&fit); err != nil || fit.Fit == nil || fit.Fit.Saved == "" {
		t.Fatalf("no saved model: %v", err)
	}
	// the import, into a playground on another model
	other := set.Clone()
	other.Model, other.Params = "l2svm", nil
	parts, end := engineRun(t, e, wire.KindImport, wire.ImportRequest{Saved: fit.Fit.Saved, Data: other.Data(""), Split: other.Split(),
		Grid: &wire.GridSpec{Side: 40, Preview: 10}})
	msgs := append(parts, end)
	t.Logf("the import's answer: %d parts and its result", len(parts))

	s := &session{set: other.Clone()}
	x := &ExportBar{S: s}
	var key string
	for i, m := range msgs {
		if err := x.importPart(m, i == len(msgs)-1, &key, Affinity{}); err != nil {
			t.Fatalf("message %d (%s): %v", i, m.Kind, err)
		}
	}
	if s.set.Model != "svm" || s.set.Params["svm"]["C"] != "3" || key != s.set.FitKey() {
		t.Errorf("the playground's settings after the import: %s %v (key %q, want %q)", s.set.Model, s.set.Params, key, s.set.FitKey())
	}
	if s.shown == nil || s.shown.res == nil || s.shown.key != key || s.shown.maps["A"] == nil || s.shown.maps["A"].g.Preview {
		t.Fatalf("the import's result and full map are not on screen: %+v", s.shown)
	}
	if s.fit.errMsg != "" {
		t.Errorf("error: %s", s.fit.errMsg)
	}

	for i, m := range msgs {
		decode := testing.AllocsPerRun(20, func() {
			var p wire.Part
			if _, err := m.Decode(&p); err != nil {
				t.Fatal(err)
			}
		})
		take := testing.AllocsPerRun(20, func() {
			s := &session{set: other.Clone()}
			var key string
			if err := (&ExportBar{S: s}).importPart(m, i == len(msgs)-1, &key, Affinity{}); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("message %d (%s, %d bytes): decoding %.0f allocations, taking it %.0f", i, m.Kind, len(m.Body), decode, take)
		if take > 1.5*decode {
			t.Errorf("message %d (%s): taking it allocates %.0f times, %.1f× a decoding (%.0f): it is decoded more than once", i, m.Kind, take, take/decode, decode)
		}
	}
}
