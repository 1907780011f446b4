package all

import (
	"context"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
)

// TestCatalogueBound checks that every catalogued model has an
// implementation and every implementation a catalogue entry.
func TestCatalogueBound(t *testing.T) {
	bound := map[string]bool{}
	for _, s := range model.All() {
		bound[s.ID] = true
		if meta, err := spec.Lookup(s.ID); err != nil || meta != s.Spec {
			t.Errorf("model %s is registered without its catalogue entry (%v)", s.ID, err)
		}
	}
	for _, s := range spec.All() {
		if !bound[s.ID] {
			t.Errorf("catalogue entry %s has no implementation (model.Register)", s.ID)
		}
	}
	if len(bound) != 15 {
		t.Errorf("%d models registered, want the 15 of the four papers and their baselines", len(bound))
	}
}

// TestReportedKeysDeclared fits every model on small generated data — two
// classes and, for binary models, three classes through the one-vs-rest and
// one-vs-one wrappers — and checks that every key in Report.Extras and
// Report.Diagnostics (sub-reports included) is declared in the model's
// catalogue entry, as a scalar or a per-sample vector as reported. A key a
// model reports that the catalogue does not name would reach the UI and the
// CLI without a label or a meaning. So that it cannot pass by checking
// nothing, every model must be fitted and a model whose entry declares
// outputs must report at least one of them.
func TestReportedKeysDeclared(t *testing.T) {
	all := model.All()
	if len(all) < 15 {
		t.Fatalf("%d models registered, want the 15 of the four papers and their baselines", len(all))
	}
	for _, s := range all {
		keys := 0
		gens := []string{run.DefaultGenerator(s)}
		if s.Task == spec.Binary && s.Z == spec.ZNone {
			gens = append(gens, "blobs")
		}
		for _, gen := range gens {
			for _, strategy := range s.MultiClass {
				if gen != "blobs" && strategy != s.MultiClass[0] {
					continue
				}
				ds, err := data.GenerateByName(gen, 60, 0.2, 1)
				if err != nil {
					t.Fatal(err)
				}
				v := s.Defaults()
				v["multiclass"] = strategy
				keys += checkKeys(t, s, gen, ds, v)
			}
			if len(s.MultiClass) == 0 {
				ds, err := data.GenerateByName(gen, 60, 0.2, 1)
				if err != nil {
					t.Fatal(err)
				}
				keys += checkKeys(t, s, gen, ds, s.Defaults())
			}
		}
		if keys == 0 && len(s.Outputs) > 0 {
			t.Errorf("%s declares %d outputs and reported none of them in any fit", s.ID, len(s.Outputs))
		}
	}
}

// checkKeys fits s on ds and checks the keys its report (and sub-reports)
// carry; it returns how many it checked.
func checkKeys(t *testing.T, s *model.Spec, gen string, ds *data.Dataset, v model.Values) int {
	t.Helper()
	f, err := s.Fit(context.Background(), ds, v, model.Options{Seed: 1})
	if err != nil {
		t.Errorf("%s on %s: %v", s.ID, gen, err)
		return 0
	}
	n := 0
	var walk func(r *model.Report)
	walk = func(r *model.Report) {
		n += len(r.Extras) + len(r.Diagnostics)
		for k := range r.Extras {
			if o := s.Output(k); o == nil || o.PerSample {
				t.Errorf("%s on %s reports the scalar %q, which its catalogue entry does not declare as a scalar", s.ID, gen, k)
			}
		}
		for k, d := range r.Diagnostics {
			if o := s.Output(k); o == nil || !o.PerSample {
				t.Errorf("%s on %s reports the per-sample %q, which its catalogue entry does not declare as per-sample", s.ID, gen, k)
			}
			if len(d) != r.NTrain && r.NTrain > 0 {
				t.Errorf("%s on %s: diagnostic %q has %d values for %d training samples", s.ID, gen, k, len(d), r.NTrain)
			}
		}
		for _, sub := range r.Sub {
			walk(sub)
		}
	}
	walk(f.Report())
	return n
}
