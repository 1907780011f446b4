package data

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzLimits are the readers' real limits (the defaults): fuzzing under
// smaller ones would never reach the code paths near them.
var fuzzLimits = ReadOptions{}

func addSeeds(f *testing.F, exts ...string) {
	files, _ := filepath.Glob("testdata/*")
	for _, p := range files {
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				b, err := os.ReadFile(p)
				if err == nil {
					f.Add(b)
				}
			}
		}
	}
}

// checkRead asserts the reader's contract: an error is a *ParseError or a
// plain error and never comes with a dataset; a dataset validates, has at
// least two classes or tags, and survives a CSV round trip.
func checkRead(t *testing.T, ds *Dataset, err error) {
	if err != nil {
		if ds != nil {
			t.Fatalf("dataset and error %v", err)
		}
		var pe *ParseError
		if errors.As(err, &pe) && pe.Msg == "" {
			t.Fatalf("ParseError without a message")
		}
		return
	}
	if err := ds.Validate(); err != nil {
		t.Fatalf("reader returned an invalid dataset: %v", err)
	}
	if ds.Y != nil {
		if err := ds.RequireClasses(); err != nil {
			t.Fatalf("reader returned a one-class dataset: %v", err)
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, ds); err != nil {
		t.Fatalf("WriteCSV: %v", err)
	}
	opt := fuzzLimits
	opt.Kind = ds.Kind
	if ds.Kind == KindMultiLabel || ds.Kind == KindPlain {
		opt.Kind = ""
	}
	back, err := ReadCSV(&buf, opt)
	if err != nil {
		t.Fatalf("CSV round trip: %v\n%s", err, buf.String())
	}
	if !mEqual(back.X, ds.X) || back.ZDim() != ds.ZDim() || back.NumTags() != ds.NumTags() || len(back.Classes) != len(ds.Classes) {
		t.Fatalf("CSV round trip changed the data")
	}
}

func FuzzReadCSV(f *testing.F) {
	addSeeds(f, ".csv", ".tsv")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := ReadCSV(bytes.NewReader(b), fuzzLimits)
		checkRead(t, ds, err)
	})
}

func FuzzReadLIBSVM(f *testing.F) {
	addSeeds(f, ".libsvm")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := ReadLIBSVM(bytes.NewReader(b), fuzzLimits)
		checkRead(t, ds, err)
		// The same bytes as a Z file for themselves must read or fail cleanly.
		opt := fuzzLimits
		opt.Z = bytes.NewReader(b)
		ds, err = ReadLIBSVM(bytes.NewReader(b), opt)
		checkRead(t, ds, err)
	})
}

func FuzzReadARFF(f *testing.F) {
	addSeeds(f, ".arff")
	f.Fuzz(func(t *testing.T, b []byte) {
		ds, err := ReadARFF(bytes.NewReader(b), fuzzLimits)
		checkRead(t, ds, err)
	})
}

// TestFuzzSettings pins what issue 29 found wrong with the fuzzing: the
// fuzz targets read under the readers' real limits, and scripts/fuzz.sh
// bounds each minimisation by a count (Go's 60 s default stalls the run).
func TestFuzzSettings(t *testing.T) {
	if fuzzLimits.maxRows() != DefaultMaxRows || fuzzLimits.maxCols() != DefaultMaxCols ||
		fuzzLimits.maxCells() != DefaultMaxCells || fuzzLimits.maxBytes() != DefaultMaxBytes {
		t.Errorf("the fuzz targets cap inputs below the readers' limits: %+v", fuzzLimits)
	}
	b, err := os.ReadFile("../../scripts/fuzz.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `-fuzzminimizetime "$FUZZMINIMIZE"`) || !strings.Contains(string(b), `FUZZMINIMIZE="${FUZZMINIMIZE:-1000x}"`) {
		t.Error("scripts/fuzz.sh does not bound minimisation by a count")
	}
}
