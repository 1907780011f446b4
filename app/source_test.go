package app

import (
	"strings"
	"testing"
)

// TestDataSwitchKeepsOrSaysTheSettings: switching generators keeps a sample
// count the user chose, takes the new generator's noise and says so when
// the user had chosen another (before: both reset to the new generator's
// defaults without a word).
func TestDataSwitchKeepsOrSaysTheSettings(t *testing.T) {
	for _, c := range []struct {
		name         string
		n            int
		noise        float64
		to           string
		wantN        int
		wantNoise    float64
		noticeSaysIt string
	}{
		{"defaults follow the generator", 200, 0.15, "gen:circles", 200, 0.1, ""},
		{"a chosen size stays", 2000, 0.15, "gen:circles", 2000, 0.1, ""},
		{"a chosen noise is said", 200, 0.4, "gen:circles", 200, 0.1, "it was 0.4"},
		{"real data keeps both", 2000, 0.4, "ds:wdbc", 2000, 0.4, ""},
	} {
		s := &session{set: Settings{Source: "gen:moons", N: c.n, Noise: c.noise, Seed: 1, TrainPct: 70, Model: "svm"}}
		if !s.chooseSource(c.to) {
			t.Fatalf("%s: no change", c.name)
		}
		if s.set.N != c.wantN || s.set.Noise != c.wantNoise {
			t.Errorf("%s: n %d noise %g, want %d and %g", c.name, s.set.N, s.set.Noise, c.wantN, c.wantNoise)
		}
		if (c.noticeSaysIt == "") != (s.message == "") || !strings.Contains(s.message, c.noticeSaysIt) {
			t.Errorf("%s: notice %q, want one saying %q", c.name, s.message, c.noticeSaysIt)
		}
	}
	// From real data, a generator starts at its defaults.
	s := &session{set: Settings{Source: "ds:wdbc", N: 2000, Noise: 0.4, TrainPct: 70, Model: "svm"}}
	s.chooseSource("gen:moons")
	if s.set.N != 200 || s.set.Noise != 0.15 || s.message != "" {
		t.Errorf("from real data: n %d noise %g notice %q", s.set.N, s.set.Noise, s.message)
	}
	// The model that cannot use the data gives way, and the notice says so.
	s = &session{set: Settings{Source: "gen:lupi2d", N: 200, Noise: 0.2, TrainPct: 70, Model: "svm2plus"}}
	s.chooseSource("gen:moons")
	if s.set.Model == "svm2plus" || !strings.Contains(s.message, "cannot use this data") {
		t.Errorf("model %s, notice %q", s.set.Model, s.message)
	}
}
