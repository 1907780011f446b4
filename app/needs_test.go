package app

import (
	"testing"

	"lupilab/models/spec"
)

// TestModelListSaysWhatDataAModelNeeds: a model the data does not suit is
// listed with the kind of data it needs (before: "needs other data" for
// all nine), and only such models are.
func TestModelListSaysWhatDataAModelNeeds(t *testing.T) {
	for _, c := range []struct{ source, model, want string }{
		{"gen:moons", "svm2plus", "needs privileged features"},
		{"gen:moons", "svm2k", "needs two views"},
		{"gen:moons", "jointsvm", "needs tagged data"},
		{"gen:multilabel2d", "svm", "needs classes, not tags"},
		{"gen:multilabel2d", "svm2plus", "needs classes, not tags"},
		{"gen:lupi2d", "svm2plus", ""},
		{"gen:twoview2d", "mpwtsvm", ""},
	} {
		s := &session{set: Settings{Source: c.source, N: 200}}
		m, err := spec.Lookup(c.model)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if s.compatible(m) != "" {
			got = s.needs(m)
		}
		if got != c.want {
			t.Errorf("%s on %s: %q, want %q", c.model, c.source, got, c.want)
		}
	}
}
