package spec

import (
	"strings"
	"testing"
)

func TestResolveAliases(t *testing.T) {
	s := &Spec{ID: "m", Params: []Param{
		{Name: "ca", Kind: Float, Default: "1", Min: 1e-3, Max: 1e3, Log: true, Aliases: []string{"C_A"}},
		{Name: "k", Kind: Int, Default: "5", Min: 1, Max: 10},
	}}
	v, err := s.Resolve(Values{"C_A": "2"})
	if err != nil || v["ca"] != "2" || v["k"] != "5" {
		t.Fatalf("Resolve(C_A=2) = %v, %v", v, err)
	}
	if _, ok := v["C_A"]; ok {
		t.Error("the alias itself survived Resolve")
	}
	if _, err := s.Resolve(Values{"C_A": "2", "ca": "3"}); err == nil || !strings.Contains(err.Error(), "same parameter") {
		t.Errorf("a parameter given under two names: %v", err)
	}
	if _, err := s.Resolve(Values{"C_A": "0"}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("out-of-range value through an alias: %v", err)
	}
	if _, err := s.Resolve(Values{"nope": "1"}); err == nil || !strings.Contains(err.Error(), "parameters: ca, k") {
		t.Errorf("unknown parameter: %v", err)
	}
}

func TestOutputMatches(t *testing.T) {
	o := Output{Key: "w_pos_*"}
	for key, want := range map[string]bool{"w_pos_0": true, "w_pos_12": true, "w_neg_0": false, "w_pos": false} {
		if o.Matches(key) != want {
			t.Errorf("%q matches %q: %v", o.Key, key, !want)
		}
	}
	if (Output{Key: "alpha"}).Matches("alpha_A") {
		t.Error("an exact key matched a longer one")
	}
}

// TestCatalogue checks what the UI relies on: every spec belongs to a listed
// family, every parameter's default validates (register checks it too), and
// every per-sample output and every family has a label.
func TestCatalogue(t *testing.T) {
	fam := map[Family]bool{}
	for _, f := range Families {
		fam[f.ID] = true
	}
	if len(All()) != 15 {
		t.Errorf("%d catalogue entries, want 15", len(All()))
	}
	for _, s := range All() {
		if !fam[s.Family] {
			t.Errorf("%s: family %q is not in Families", s.ID, s.Family)
		}
		if s.About == "" || s.Equations == "" || s.Paper == "" || s.Objective == "" {
			t.Errorf("%s: about, equations, paper and the objective's name are required", s.ID)
		}
		for _, o := range s.Outputs {
			if o.Help == "" {
				t.Errorf("%s: output %s has no help text", s.ID, o.Key)
			}
		}
	}
}
