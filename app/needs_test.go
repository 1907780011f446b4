package app

import (
	"maps"
	"slices"
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
		if got := s.needs(m); got != c.want || (got == "") != (s.compatible(m) == "") {
			t.Errorf("%s on %s: %q (compatible: %q), want %q", c.model, c.source, got, s.compatible(m), c.want)
		}
	}
}

// TestCompareTicksTheModelsTheDataSuits: until the user ticks a model,
// Compare ticks the SVM baselines, the Model view's model and the papers'
// models the data suits (before: SVM and L2-SVM whatever the data, so a
// comparison on LUPI data compared two baselines).
func TestCompareTicksTheModelsTheDataSuits(t *testing.T) {
	for _, c := range []struct {
		source, model string
		want          []string
	}{
		{"gen:moons", "svm", []string{"l2svm", "svm"}},
		{"gen:moons", "gpc", []string{"gpc", "l2svm", "svm"}},
		{"gen:lupi2d", "svm", []string{"l2svm", "svm", "svm1plus", "svm2plus"}},
		{"gen:twoview2d", "svm2k", []string{"l2svm", "mpwtsvm", "svm", "svm2k"}},
		{"gen:multilabel2d", "jointsvm", []string{"indepsvm", "jointsvm", "l2svm", "svm"}},
	} {
		s := &session{set: Settings{Source: c.source, N: 200, Model: c.model}}
		got := slices.Sorted(maps.Keys(s.cmp.ticked(s)))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s, model %s: ticks %v, want %v", c.source, c.model, got, c.want)
		}
	}
	s := &session{set: Settings{Source: "gen:lupi2d", N: 200, Model: "svm"}}
	s.cmp.selected = map[string]bool{"svm": true}
	if got := s.cmp.ticked(s); len(got) != 1 {
		t.Errorf("after the user's ticks: %v, want theirs", got)
	}
}

// TestCompareStartsTheLongestFirst: Compare submits its fits longest first
// by the cost model (GPC with its hyper-parameter search before the SVMs),
// keeping the catalogue's order among the rest.
func TestCompareStartsTheLongestFirst(t *testing.T) {
	s := &session{set: Settings{Source: "gen:moons", N: 200, Noise: 0.3, TrainPct: 70, Model: "svm"}}
	ids := []string{"l2svm", "svm", "gpc", "twsvm"}
	order := s.longestFirst(ids)
	if ids[order[0]] != "gpc" || len(order) != 4 {
		t.Errorf("order %v of %v: want gpc first", order, ids)
	}
	seen := map[int]bool{}
	for _, i := range order {
		seen[i] = true
	}
	if len(seen) != 4 {
		t.Errorf("order %v is not a permutation", order)
	}
}
