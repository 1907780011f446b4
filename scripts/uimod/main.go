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
// And go-app encrypts values for its optional encrypted storage with
// crypto/aes (crypto.go) and names the device and its state observers with
// github.com/google/uuid, whose random source is crypto/rand: together
// about 110 kB of FIPS cryptography (AES, SHA-2, SHA-3, HMAC, DRBG, MD5,
// SHA-1) in every UI build, although LUPI Lab encrypts nothing and its ids
// need only differ. The copy leaves crypto.go out of wasm builds (its two
// functions then return an error) and names ids with newID, random
// version-4 UUIDs from math/rand/v2 (the runtime's ChaCha8).
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

// serverOnly are go-app's files that only a server needs, and crypto.go,
// which the wasm stubs replace.
var serverOnly = []string{"http.go", "resource.go", "crypto.go"}

// uuidFiles are the files whose uuid.NewString calls become newID, with
// the SHA-256 of go-app v9.8.0's version of each.
var uuidFiles = map[string]string{
	"context.go": "3836100697151f3e6530fbc0e93631c4d6dc0f49756e0cc323c012047b4cb83f",
	"state.go":   "e39450e0918adde572b5405f818a1791ee084d5b11b92f36333b94d1e3dd7117",
}

// idsFile declares newID for the edited files.
const idsFile = `// This file is not part of go-app: LUPI Lab's scripts/uimod adds it when
// it replaces github.com/google/uuid in context.go and state.go.

package app

import (
	"fmt"
	"math/rand/v2"
)

// newID returns a random version-4 UUID string, as uuid.NewString, drawn
// from math/rand/v2 rather than crypto/rand: go-app's device and state
// observer ids only need to differ.
func newID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rand.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
`

// withoutUUID replaces uuid.NewString with newID in one of uuidFiles.
func withoutUUID(name string, b []byte) ([]byte, error) {
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != uuidFiles[name] {
		return nil, fmt.Errorf("go-app's %s is not the v9.8.0 file scripts/uimod edits: review it", name)
	}
	s := strings.Replace(string(b), "\t\"github.com/google/uuid\"\n", "", 1)
	if n := strings.Count(s, "uuid.NewString()"); n != 1 {
		return nil, fmt.Errorf("%s: %d calls of uuid.NewString, want 1", name, n)
	}
	return []byte(strings.Replace(s, "uuid.NewString()", "newID()", 1)), nil
}

// wasmStubs declares what go-app's wasm-only files use from serverOnly.
const wasmStubs = `//go:build wasm

// This file is not part of go-app: LUPI Lab's scripts/uimod adds it when it
// leaves go-app's server-only files (http.go, resource.go) out of the wasm
// build. It declares the three names the wasm side still refers to, with
// the same meaning.

package app

import (
	"errors"
	"strings"
)

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

// errNoEncryption: crypto.go (AES-GCM) is left out of the wasm build.
var errNoEncryption = errors.New("encrypted storage is not in LUPI Lab's UI build")

func encrypt(key string, v []byte) ([]byte, error) { return nil, errNoEncryption }

func decrypt(key string, v []byte) ([]byte, error) { return nil, errNoEncryption }
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
		if _, ok := uuidFiles[name]; patch && ok {
			if b, err = withoutUUID(name, b); err != nil {
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
		if found != len(serverOnly)+1+len(uuidFiles) {
			return fmt.Errorf("found %d of go-app's files %v, route.go, context.go and state.go: go-app changed, review scripts/uimod", found, serverOnly)
		}
		if err := os.WriteFile(filepath.Join(to, "zz_lupilab_ids.go"), []byte(idsFile), 0o644); err != nil {
			return err
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
