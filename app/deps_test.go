package app

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUIBuildHasNoNumerics lists the packages of the browser's UI build
// (wasm/ui): it may use the model and dataset catalogues and the message
// types, never a model, a solver, a reader or gonum — those run in the
// compute workers (wasm/compute).
func TestUIBuildHasNoNumerics(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "../wasm/ui")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{"lupilab/models/spec": true, "lupilab/models/wire": true, "lupilab/models/datasets": true}
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(p, "gonum.org/"):
			t.Errorf("the UI build links %s", p)
		case strings.HasPrefix(p, "lupilab/models/"):
			if !allowed[p] {
				t.Errorf("the UI build links %s", p)
			}
			ours = append(ours, p)
		}
	}
	if len(ours) != len(allowed) {
		t.Errorf("the UI build links %v; expected exactly the catalogues and messages", ours)
	}
	// The compute build has the models.
	cmd = exec.Command("go", "list", "-deps", "../wasm/compute")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, want := range []string{"lupilab/models/solver/smo", "lupilab/models/compute", "lupilab/models/experiment"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("the compute build lacks %s", want)
		}
	}
	if strings.Contains(string(out), "go-app") {
		t.Error("the compute build links go-app")
	}
}
