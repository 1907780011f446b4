package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReproducible re-runs the generator and compares every output with the
// committed file in web/datasets byte for byte.
func TestReproducible(t *testing.T) {
	for _, p := range []string{DefaultSources.Breast, DefaultSources.Digits, DefaultSources.SegmentChallenge, DefaultSources.SegmentTest} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("source %s is missing (install Debian packages python3-sklearn and weka): %v", p, err)
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
