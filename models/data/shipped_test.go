package data

import (
	"path/filepath"
	"reflect"
	"testing"
)

var shippedDir = filepath.Join("..", "..", "web", "datasets")

func TestShippedDatasets(t *testing.T) {
	idx, err := ReadIndex(shippedDir)
	if err != nil {
		t.Fatal(err)
	}
	digits := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	want := map[string]struct {
		kind      Kind
		n, dx, dz int
		classes   []string
		counts    []int
		tags      int
	}{
		"wdbc":            {KindLUPI, 569, 10, 20, []string{"malignant", "benign"}, []int{212, 357}, 0},
		"digits-lowhigh":  {KindLUPI, 1797, 16, 64, digits, []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}, 0},
		"segment-twoview": {KindTwoView, 2310, 8, 10, []string{"path", "grass", "foliage", "window", "sky", "brickface", "cement"}, []int{330, 330, 330, 330, 330, 330, 330}, 0},
		"digits-twoview":  {KindTwoView, 1797, 64, 42, digits, []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}, 0},
		"digits-tags":     {KindMultiLabel, 1200, 256, 0, nil, nil, 10},
	}
	if len(idx) != len(want) {
		t.Errorf("index has %d entries, want %d", len(idx), len(want))
	}
	for _, e := range idx {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("unexpected dataset %q", e.Name)
			continue
		}
		ds, err := LoadShipped(shippedDir, e.Name)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if ds.Kind != w.kind || ds.Rows() != w.n || ds.Dim() != w.dx || ds.ZDim() != w.dz || ds.NumTags() != w.tags {
			t.Errorf("%s: %v", e.Name, Describe(ds))
		}
		if w.classes != nil && (!reflect.DeepEqual(ds.Classes, w.classes) || !reflect.DeepEqual(ds.ClassCounts(), w.counts)) {
			t.Errorf("%s: classes %v counts %v", e.Name, ds.Classes, ds.ClassCounts())
		}
		if ds.Provenance.Source == "" || ds.Provenance.Licence == "" || ds.Provenance.Details == "" || ds.Provenance.Blocks == "" || e.Title == "" {
			t.Errorf("%s: provenance incomplete", e.Name)
		}
	}
	if _, err := LoadShipped(shippedDir, "nope"); err == nil {
		t.Error("unknown dataset: no error")
	}
}

// TestShippedPrivilegedSignal checks on held-out data that a k-NN classifier
// on the privileged block Z beats one on X for the LUPI sets.
func TestShippedPrivilegedSignal(t *testing.T) {
	cases := []struct {
		name     string
		neg, pos string // binary task, "" for all classes
		k        int
	}{
		{"wdbc", "", "", 5},
		{"digits-lowhigh", "5", "8", 3},
		{"digits-lowhigh", "", "", 3},
	}
	for _, c := range cases {
		ds, err := LoadShipped(shippedDir, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if c.neg != "" {
			if ds, err = OneVsOne(ds, c.neg, c.pos); err != nil {
				t.Fatal(err)
			}
		}
		var ax, az float64
		const reps = 10
		for r := 0; r < reps; r++ {
			train, test, err := StratifiedSplit(ds, 0.3, int64(r))
			if err != nil {
				t.Fatal(err)
			}
			ax += blockAccuracy(t, train, test, false, c.k) / reps
			az += blockAccuracy(t, train, test, true, c.k) / reps
		}
		t.Logf("%s %s: %d-NN held-out accuracy (30%% train, mean of %d splits): X %.3f, Z %.3f", c.name, ds.Name, c.k, reps, ax, az)
		if az <= ax {
			t.Errorf("%s: Z (%.3f) does not beat X (%.3f)", ds.Name, az, ax)
		}
	}
}

// TestShippedTwoViews checks that each view of the two-view sets carries
// signal on its own (k-NN well above chance on held-out data).
func TestShippedTwoViews(t *testing.T) {
	for _, name := range []string{"segment-twoview", "digits-twoview"} {
		ds, err := LoadShipped(shippedDir, name)
		if err != nil {
			t.Fatal(err)
		}
		train, test, err := StratifiedSplit(ds, 0.3, 1)
		if err != nil {
			t.Fatal(err)
		}
		aa := blockAccuracy(t, train, test, false, 3)
		ab := blockAccuracy(t, train, test, true, 3)
		t.Logf("%s: 3-NN held-out accuracy (30%% train): view A %.3f, view B %.3f", name, aa, ab)
		chance := 1 / float64(len(ds.Classes))
		if aa < 3*chance || ab < 3*chance {
			t.Errorf("%s: a view is barely informative: %.3f %.3f (chance %.3f)", name, aa, ab, chance)
		}
	}
}
