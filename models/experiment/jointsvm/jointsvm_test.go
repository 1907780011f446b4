package jointsvm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lupilab/models/experiment"
	"lupilab/models/experiment/exptest"
)

// TestExperimentQuick runs the browser-sized experiment on the multilabel2d
// generator, checks the table's shape, that the result does not depend on
// the number of parallel tasks and that each task reruns from its JSON.
func TestExperimentQuick(t *testing.T) {
	e, err := experiment.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	res := exptest.Reproducible(t, e, experiment.Config{Quick: true, Seed: 1, Args: map[string]string{"dataset": "multilabel2d", "n": "400", "gamma": "1"}}, 3)
	if len(res.Tables) != 2 || len(res.Tables[0].Rows) != 3 || len(res.Tables[1].Rows) != 7 {
		t.Fatalf("tables: %+v", res.Tables)
	}
	md := res.Markdown()
	if !strings.Contains(md, "6285.11") || !strings.Contains(md, "Joint SVM (Gaussian)") {
		t.Error("the paper's row is missing")
	}
	// the joint SVM learns something on an easy generated problem
	for _, row := range res.Tables[0].Rows[1:] {
		if row[5] < "0.5" {
			t.Errorf("%s: F1 %s", row[0], row[5])
		}
	}
	t.Log("\n" + md)
}

// TestExperimentShipped runs the browser-sized experiment on the shipped
// digits-tags data (the full run is `lupi experiment jointsvm`).
func TestExperimentShipped(t *testing.T) {
	dir := "../../../web/datasets"
	if _, err := os.Stat(filepath.Join(dir, "digits-tags.csv")); err != nil {
		t.Fatalf("web/datasets/digits-tags.csv: %v", err)
	}
	e, err := experiment.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), experiment.Config{Quick: true, Seed: 1, DataDir: dir, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Markdown())
}

// Bad settings are refused before anything runs.
func TestBadSettings(t *testing.T) {
	e, err := experiment.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]string{
		{"test": "1.5"}, {"gamma": "-1"}, {"osigma2": "x"}, {"nope": "1"}, {"dataset": "wdbc"},
	} {
		if _, err := e.Run(context.Background(), experiment.Config{Quick: true, DataDir: "../../../web/datasets", Args: args}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	if _, err := e.Run(context.Background(), experiment.Config{Quick: true, Repeats: 3, Args: map[string]string{"dataset": "multilabel2d"}}); err == nil {
		t.Error("repeats accepted by a one-split experiment")
	}
}
