package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUIBuildWithoutServer prepares the UI module setup and checks, with
// go list, that the UI build it gives links go-app but none of the server
// packages go-app's handler brings (the point of the copy), while the
// module as published does link them (so the test notices when go-app
// stops needing the patch).
func TestUIBuildWithoutServer(t *testing.T) {
	out := t.TempDir()
	if err := prepare("../..", out); err != nil {
		t.Fatal(err)
	}
	deps := func(args ...string) string {
		cmd := exec.Command("go", append([]string{"list", "-deps"}, args...)...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	server := []string{"net/http", "crypto/tls", "crypto/x509", "text/template", "regexp",
		"crypto/aes", "crypto/rand", "crypto/sha256", "github.com/google/uuid"}
	patched := deps("-modfile", filepath.Join(out, "go.mod"), "./wasm/ui")
	if !strings.Contains(patched, goApp+"/pkg/app\n") {
		t.Fatalf("the patched UI build does not link go-app:\n%s", patched)
	}
	for _, p := range server {
		if strings.Contains(patched, p+"\n") {
			t.Errorf("the patched UI build still links %s", p)
		}
	}
	plain := deps("./wasm/ui")
	if !strings.Contains(plain, "net/http\n") || !strings.Contains(plain, "regexp\n") {
		t.Error("go-app as published no longer links net/http or regexp in wasm: scripts/uimod may be unnecessary")
	}
	stub, err := os.ReadFile(filepath.Join(out, "go-app/pkg/app/zz_lupilab_wasm.go"))
	if err != nil || !strings.HasPrefix(string(stub), "//go:build wasm") {
		t.Errorf("stub file: %v", err)
	}
}
