// Command uimod prepares the module setup `make wasm` builds the UI
// (wasm/ui) with: a copy of go-app's pkg/app and pkg/errors whose
// server-only files are left out of wasm builds, and a go.mod that
// replaces go-app with that copy.
//
// Why: go-app v9 compiles its HTTP handler (http.go, resource.go) into
// every build, wasm included, although a browser never serves pages. That
// handler imports net/http, which brings crypto/tls, crypto/x509,
// text/template and their initialisers into the UI build: 1.8 MB of the
// 9.8 MB app.wasm (0.36 MB of 1.81 MB Brotli), all of it downloaded,
// compiled and initialised before the page is interactive. The copy adds
// a `//go:build !wasm` line to those two files and a small file with the
// three declarations the wasm side of go-app uses from them.
//
// Its router (route.go) also supports routes matched by regular
// expressions, which keeps package regexp and its Unicode tables in every
// build (0.5 MB raw) although LUPI Lab routes exact paths only (app.Route
// for each of app.Pages()). The copy's route.go loses RouteWithRegexp and
// RouteWithRegexpFunc, so a UI that starts using them no longer compiles
// under `make wasm` rather than silently growing.
//
// Nothing else changes, and the native build (server.go's handler, go vet,
// the tests) keeps using the module as published. The copy is made from
// the module cache at the exact version go.mod requires, and each edit
// checks the file it edits is the one it was written for (a SHA-256), so
// a go-app upgrade fails here, loudly, instead of drifting.
//
// Usage (from the repository root):
//
//	go run ./scripts/uimod -out .build/ui
//	GOOS=js GOARCH=wasm go build -modfile .build/ui/go.mod ./wasm/ui
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const goApp = "github.com/maxence-charriere/go-app/v9"

// serverOnly are go-app's files that only a server needs.
var serverOnly = []string{"http.go", "resource.go"}

// wasmStubs declares what go-app's wasm-only files use from serverOnly.
const wasmStubs = `//go:build wasm

// This file is not part of go-app: LUPI Lab's scripts/uimod adds it when it
// leaves go-app's server-only files (http.go, resource.go) out of the wasm
// build. It declares the three names the wasm side still refers to, with
// the same meaning.

package app

import "strings"

// Handler is go-app's HTTP handler; a wasm build never serves, so here it
// is only the type wasm.go's GenerateStaticWebsite (which panics in wasm)
// names.
type Handler struct{}

func isRemoteLocation(path string) bool {
	return strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "http://")
}

func isStaticResourcePath(path string) bool {
	return strings.HasPrefix(path, "/web/") || strings.HasPrefix(path, "web/")
}
`

func main() {
	out := flag.String("out", ".build/ui", "directory to write go.mod, go.sum and the go-app copy to")
	flag.Parse()
	if err := prepare(".", *out); err != nil {
		log.Fatalf("uimod: %v", err)
	}
}

// prepare writes out/go.mod, out/go.sum and out/go-app from the module
// rooted at root.
func prepare(root, out string) error {
	src, err := moduleDir(root, goApp)
	if err != nil {
		return err
	}
	copyDir := filepath.Join(out, "go-app")
	if err := os.RemoveAll(copyDir); err != nil {
		return err
	}
	for _, pkg := range []string{"pkg/app", "pkg/errors"} {
		if err := copyPackage(filepath.Join(src, pkg), filepath.Join(copyDir, pkg), pkg == "pkg/app"); err != nil {
			return err
		}
	}
	if err := copyFile(filepath.Join(src, "go.mod"), filepath.Join(copyDir, "go.mod")); err != nil {
		return err
	}
	abs, err := filepath.Abs(copyDir)
	if err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	mod = append(mod, []byte(fmt.Sprintf("\nreplace %s => %s\n", goApp, abs))...)
	if err := os.WriteFile(filepath.Join(out, "go.mod"), mod, 0o644); err != nil {
		return err
	}
	return copyFile(filepath.Join(root, "go.sum"), filepath.Join(out, "go.sum"))
}

// moduleDir is the module cache directory of the version root's go.mod
// requires, downloaded if need be.
func moduleDir(root, path string) (string, error) {
	dl := exec.Command("go", "mod", "download", path)
	dl.Dir, dl.Stderr = root, os.Stderr
	if err := dl.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s: %v", path, err)
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %v (run go mod download)", path, err)
	}
	dir := strings.TrimSpace(string(b))
	if dir == "" {
		return "", fmt.Errorf("%s is not downloaded: run go mod download", path)
	}
	return dir, nil
}

// copyPackage copies a package's non-test Go files; with patch, the
// server-only files get a !wasm constraint and the stubs file is added.
func copyPackage(from, to string, patch bool) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	found := 0
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if patch && name == "route.go" {
			if b, err = exactRoutes(b); err != nil {
				return err
			}
			found++
		}
		if patch && isServerOnly(name) {
			if bytes.Contains(b, []byte("//go:build")) {
				return fmt.Errorf("%s already has a build constraint: go-app changed, review scripts/uimod", name)
			}
			b = append([]byte("//go:build !wasm\n\n"), b...)
			found++
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			return err
		}
	}
	if patch {
		if found != len(serverOnly)+1 {
			return fmt.Errorf("found %d of go-app's files %v and route.go: go-app changed, review scripts/uimod", found, serverOnly)
		}
		return os.WriteFile(filepath.Join(to, "zz_lupilab_wasm.go"), []byte(wasmStubs), 0o644)
	}
	return nil
}

// routeGoSHA256 is go-app v9.8.0's pkg/app/route.go, the file exactRoutes
// edits.
const routeGoSHA256 = "164adabe8fbf70301f946a60ac22ee4f714b503ea4dbc170e57505057bd41365"

// exactRoutes removes the regular-expression routes from go-app's
// route.go: the two exported functions that declare them, the router's
// method and field that hold them, the loop that matches them, and the
// import. Exact-path routes (app.Route, app.RouteFunc) are untouched.
func exactRoutes(b []byte) ([]byte, error) {
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != routeGoSHA256 {
		return nil, fmt.Errorf("go-app's route.go is not the v9.8.0 file scripts/uimod edits: review it")
	}
	s := string(b)
	cut := func(from, to string) {
		i := strings.Index(s, from)
		j := strings.Index(s, to)
		if i < 0 || j < i {
			panic("scripts/uimod: route.go anchors " + from + " … " + to) // unreachable: the hash is checked
		}
		s = s[:i] + s[j:]
	}
	cut("\t\"regexp\"\n", "\t\"sync\"\n")
	cut("// RouteWithRegexp set", "// RouteFunc set")
	cut("// RouteWithRegexpFunc set", "func newZeroComponentFunc")
	cut("\troutesWithRegexp []regexpRoute\n", "}\n\nfunc makeRouter")
	cut("func (r *router) routeWithRegexp", "func (r *router) createComponent")
	cut("\tif !isRouted {\n\t\tfor _, rwr := range", "\tif !isRouted {\n\t\treturn nil, false")
	i := strings.Index(s, "type regexpRoute struct")
	if i < 0 {
		panic("scripts/uimod: route.go has no regexpRoute") // unreachable: the hash is checked
	}
	return []byte(s[:i]), nil
}

func isServerOnly(name string) bool {
	for _, s := range serverOnly {
		if s == name {
			return true
		}
	}
	return false
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
