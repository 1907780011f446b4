package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReproducible re-runs the generator and compares every output with the
// committed file in web/datasets byte for byte. Its sources are files of
// Debian packages that make deps installs; a missing one fails the test
// (naming the package) rather than skipping it.
func TestReproducible(t *testing.T) {
	for _, src := range []struct{ path, pkg string }{
		{DefaultSources.Breast, "python3-sklearn"},
		{DefaultSources.Digits, "python3-sklearn"},
		{DefaultSources.SegmentChallenge, "weka"},
		{DefaultSources.SegmentTest, "weka"},
	} {
		if _, err := os.Stat(src.path); err != nil {
			t.Fatalf("source %s is missing: install the Debian package %s (make deps does); "+
				"if it is installed, check that dpkg does not exclude the path (path-exclude in /etc/dpkg/dpkg.cfg.d): %v", src.path, src.pkg, err)
		}
	}
	files, err := Build(DefaultSources)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "web", "datasets")
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v (run: go run ./cmd/mkdatasets)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the committed file differs from what cmd/mkdatasets makes now", name)
		}
		if len(want) > 2<<20 {
			t.Errorf("%s: %d bytes, more than 2 MB", name, len(want))
		}
	}
}
