package spec

import (
	"strings"
	"testing"
)

// TestCanonical: aliases become their parameter's name; a default under
// one name gives way to a value under the other (Defaults() merged with an
// old name); two deliberate values under two names are an error.
func TestCanonical(t *testing.T) {
	s := MustLookup("mpwtsvm")
	v, err := s.Canonical(Values{"ca": "3", "gamma_b": "2", "k": "4"})
	if err != nil || v["C_A"] != "3" || v["view_weight"] != "2" || v["k"] != "4" || v["ca"] != "" {
		t.Fatalf("Canonical = %v, %v", v, err)
	}
	d := s.Defaults()
	d["c"] = "0" // the old name of coupling, over the defaults
	if v, err := s.Canonical(d); err != nil || v["coupling"] != "0" {
		t.Errorf("an old name over the defaults: %v, %v", v["coupling"], err)
	}
	if _, err := s.Canonical(Values{"coupling": "2", "c": "3"}); err == nil || !strings.Contains(err.Error(), "same parameter") {
		t.Errorf("two values under two names: %v", err)
	}
	if v, err := s.Resolve(Values{"gamma_b": "2"}); err != nil || v["view_weight"] != "2" {
		t.Errorf("Resolve through an alias: %v, %v", v, err)
	}
	// Every multi-view model takes its old names.
	for id, old := range map[string][]string{
		"svm2k": {"C", "CB", "D"}, "psvm2v": {"C", "CB", "D", "tradeoff"}, "mcpk": {"C", "CB", "D", "tradeoff"},
		"mvtsvm": {"C", "C2", "D", "H"}, "mpwtsvm": {"ca", "cb", "c", "gamma_b"},
	} {
		m := MustLookup(id)
		for _, name := range old {
			p := m.Param(name)
			if p == nil || p.Name == name {
				t.Errorf("%s: the old name %q is not an alias", id, name)
			}
		}
	}
}

// TestAdaptWidths: γ left at its default on data of d > 2 features
// becomes 1/d, for the block it applies to; a γ the user gave, 2-D data
// and a linear kernel keep theirs.
func TestAdaptWidths(t *testing.T) {
	s := MustLookup("svm2k")
	v := s.Defaults()
	notes := s.AdaptWidths(v, func(string) bool { return true }, 30, 2)
	if v["gamma"] != "0.0333" || v["zgamma"] != "1" || len(notes) != 1 || notes[0].String() != "gamma = 1/30 ≈ 0.0333" {
		t.Errorf("AdaptWidths: %v, %v", v, notes)
	}
	v = s.Defaults()
	s.AdaptWidths(v, func(n string) bool { return n != "gamma" }, 30, 64)
	if v["gamma"] != "1" || v["zgamma"] != "0.0156" {
		t.Errorf("a γ the user set: %v %v", v["gamma"], v["zgamma"])
	}
	tw := MustLookup("twsvm")
	v = tw.Defaults()
	if notes := tw.AdaptWidths(v, func(string) bool { return true }, 30, 0); len(notes) != 0 {
		t.Errorf("a linear kernel's γ was set: %v", notes)
	}
}

// TestIgnored: a kernel parameter the chosen kernel does not use is
// reported with the reason.
func TestIgnored(t *testing.T) {
	tw := MustLookup("twsvm")
	got := tw.Ignored([]string{"gamma", "C"}, tw.Defaults())
	if len(got) != 1 || !strings.Contains(got[0], "gamma (kernel is linear, not rbf or poly or sigmoid)") {
		t.Errorf("Ignored = %q", got)
	}
	v := tw.Defaults()
	v["kernel"] = "rbf"
	if got := tw.Ignored([]string{"gamma", "degree"}, v); len(got) != 1 || !strings.HasPrefix(got[0], "degree") {
		t.Errorf("Ignored with rbf = %q", got)
	}
}
