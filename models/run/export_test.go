package run

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	_ "lupilab/models/all"
	"lupilab/models/data"
	"lupilab/models/model"
)

func readCSV(t *testing.T, b []byte) (header []string, rows [][]string) {
	t.Helper()
	all, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("results CSV does not parse: %v", err)
	}
	if len(all) == 0 {
		t.Fatal("empty results CSV")
	}
	return all[0], all[1:]
}

func col(header []string, name string) int {
	for j, h := range header {
		if h == name {
			return j
		}
	}
	return -1
}

// The CSV lists every train and test sample with the outcome's labels, and
// its feature columns fed to the saved-and-reloaded model reproduce the
// decision values and predictions bit for bit.
func TestResultsCSVBinary(t *testing.T) {
	ds, err := data.GenerateByName("moons", 60, 0.2, 3)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Do(context.Background(), Config{Dataset: ds, TrainFrac: 0.7, Seed: 3, Scale: "standard", Model: "svm",
		Params: model.Values{"probability": "true"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readCSV(t, ResultsCSV(o))
	want := []string{"split", "row", "true", "predicted", "decision", "prob_" + ds.Classes[1], "x:" + ds.XNames[0], "x:" + ds.XNames[1]}
	if strings.Join(header, ",") != strings.Join(want, ",") {
		t.Fatalf("header %v, want %v", header, want)
	}
	if len(rows) != o.Train.Rows()+o.Test.Rows() {
		t.Fatalf("%d rows, want %d", len(rows), o.Train.Rows()+o.Test.Rows())
	}
	raw, err := model.Save(o.Spec.ID, o.Fitted)
	if err != nil {
		t.Fatal(err)
	}
	_, f, err := model.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(len(rows), 2, nil)
	for i, r := range rows {
		split, part, pred := "train", o.Train, o.TrainPred
		k := i
		if i >= o.Train.Rows() {
			split, part, pred, k = "test", o.Test, o.TestPred, i-o.Train.Rows()
		}
		if r[0] != split || r[1] != strconv.Itoa(k+1) {
			t.Fatalf("row %d: split/row %s/%s, want %s/%d", i, r[0], r[1], split, k+1)
		}
		if r[2] != ds.Classes[part.Y[k]] || r[3] != ds.Classes[pred.Labels[k]] {
			t.Fatalf("row %d: true/predicted %s/%s, want %s/%s", i, r[2], r[3], ds.Classes[part.Y[k]], ds.Classes[pred.Labels[k]])
		}
		if d, _ := strconv.ParseFloat(r[4], 64); d != pred.Decision[k] {
			t.Fatalf("row %d: decision %s, want %v", i, r[4], pred.Decision[k])
		}
		if p, _ := strconv.ParseFloat(r[5], 64); p != pred.Prob[k][1] {
			t.Fatalf("row %d: prob %s, want %v", i, r[5], pred.Prob[k][1])
		}
		for j := 0; j < 2; j++ {
			v, err := strconv.ParseFloat(r[6+j], 64)
			if err != nil {
				t.Fatal(err)
			}
			x.Set(i, j, v)
		}
	}
	p, err := f.Predict(&data.Dataset{X: x, Classes: ds.Classes})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if d, _ := strconv.ParseFloat(r[4], 64); p.Decision[i] != d || ds.Classes[p.Labels[i]] != r[3] {
			t.Fatalf("row %d: reloaded model gives %v (%s), the CSV says %s (%s)", i, p.Decision[i], ds.Classes[p.Labels[i]], r[4], r[3])
		}
	}
}

func TestResultsCSVMultiLabel(t *testing.T) {
	ds, err := data.GenerateByName("multilabel2d", 80, 0.1, 2)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Do(context.Background(), Config{Dataset: ds, TrainFrac: 0.7, Seed: 2, Scale: "none", Model: "indepsvm"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readCSV(t, ResultsCSV(o))
	if header[2] != "true_tags" || header[3] != "predicted_tags" || col(header, "decision") >= 0 {
		t.Fatalf("multi-label header %v", header)
	}
	if len(rows) != ds.Rows() {
		t.Fatalf("%d rows, want %d", len(rows), ds.Rows())
	}
	for i, r := range rows {
		part, pred, k := o.Train, o.TrainPred, i
		if i >= o.Train.Rows() {
			part, pred, k = o.Test, o.TestPred, i-o.Train.Rows()
		}
		var tt, pt []string
		for j, name := range ds.TagNames {
			if part.Tags.At(k, j) == 1 {
				tt = append(tt, name)
			}
			if pred.Tags[k][j] {
				pt = append(pt, name)
			}
		}
		if r[2] != strings.Join(tt, " ") || r[3] != strings.Join(pt, " ") {
			t.Fatalf("row %d: tags %q / %q, want %q / %q", i, r[2], r[3], tt, pt)
		}
		if v, _ := strconv.ParseFloat(r[4], 64); v != part.X.At(k, 0) {
			t.Fatalf("row %d: first feature %s, want %v", i, r[4], part.X.At(k, 0))
		}
	}
}

func TestResultsCSVNil(t *testing.T) {
	if ResultsCSV(nil) != nil || ResultsCSV(&Outcome{}) != nil {
		t.Fatal("nil outcome should give nil")
	}
}
