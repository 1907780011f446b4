package spec

import (
	"strings"
	"testing"
)

// Find returns a registry's entry, or an error naming the unknown id and
// the known ones in order; Lookup answers through it.
func TestFind(t *testing.T) {
	reg := map[string]int{"svm": 1, "gpc": 2, "mcpk": 3}
	if v, err := Find(reg, "gpc"); err != nil || v != 2 {
		t.Errorf("Find gpc = %v, %v", v, err)
	}
	v, err := Find(reg, "svn")
	if err == nil || v != 0 || err.Error() != `unknown model "svn" (known: gpc, mcpk, svm)` {
		t.Errorf("Find svn = %v, %v", v, err)
	}
	if s, err := Lookup("no-such-model"); s != nil || err == nil || !strings.Contains(err.Error(), "svm2plus") {
		t.Errorf("Lookup of an unknown id = %v, %v", s, err)
	}
}

// Each kind of model gets the generated data it can use.
func TestDefaultGenerator(t *testing.T) {
	for id, want := range map[string]string{"svm": "moons", "gpc": "moons", "svm2plus": "lupi2d", "gpcplus": "lupi2d",
		"mvtsvm": "twoview2d", "mpwtsvm": "twoview2d", "jointsvm": "multilabel2d", "indepsvm": "multilabel2d"} {
		s, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.DefaultGenerator(); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
}
