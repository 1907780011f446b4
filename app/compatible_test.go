package app

import (
	"strings"
	"testing"

	"lupilab/models/datasets"
	"lupilab/models/spec"
)

// TestViewModelsNeedASecondViewNotPrivilegedData: a two-view model predicts
// from both blocks, so on data whose second block is privileged (known only
// while training) it is not offered — its accuracy would rest on features
// the LUPI models are denied at test time. LUPI models may use a second view
// as privileged information (they ignore it when they predict).
func TestViewModelsNeedASecondViewNotPrivilegedData(t *testing.T) {
	s := newSession()
	s.index = []datasets.IndexEntry{
		{Name: "lupi-real", Kind: datasets.KindLUPI, Rows: 100, XColumns: 5, ZColumns: 3, Classes: []string{"a", "b"}},
		{Name: "views-real", Kind: datasets.KindTwoView, Rows: 100, XColumns: 5, ZColumns: 3, Classes: []string{"a", "b"}},
	}
	for _, src := range []string{"gen:lupi2d", "ds:lupi-real", "gen:twoview2d", "ds:views-real"} {
		s.set.Source = src
		lupi := src == "gen:lupi2d" || src == "ds:lupi-real"
		for _, m := range spec.All() {
			why := s.compatible(m)
			switch {
			case m.Task == spec.MultiLabel:
				if why == "" {
					t.Errorf("%s on %s: offered, but the data has no tags", m.ID, src)
				}
			case m.Z == spec.ZView && lupi:
				if !strings.Contains(why, "privileged") {
					t.Errorf("%s on %s: %q, want it refused because the second block is privileged", m.ID, src, why)
				}
			case why != "":
				t.Errorf("%s on %s: refused (%q), want it offered", m.ID, src, why)
			}
		}
	}
}
