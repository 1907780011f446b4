package joint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lupilab/models/experiment"
)

// TestExperimentQuick runs the browser-sized experiment on the multilabel2d
// generator (the shipped data may be absent in a bare checkout) and checks
// the table's shape and that the joint SVM learns something.
func TestExperimentQuick(t *testing.T) {
	e, err := experiment.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), experiment.Config{Quick: true, Seed: 1, Args: map[string]string{"dataset": "multilabel2d", "n": "400", "gamma": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 2 || len(res.Tables[0].Rows) != 3 || len(res.Tables[1].Rows) != 7 {
		t.Fatalf("tables: %+v", res.Tables)
	}
	md := res.Markdown()
	if !strings.Contains(md, "6285.11") || !strings.Contains(md, "Joint SVM (Gaussian)") {
		t.Error("the paper's row is missing")
	}
	t.Log("\n" + md)
}

// TestExperimentShipped runs the experiment on the shipped digits-tags data:
// the browser-sized run always (when the data are present), the full run when
// JOINT_FULL=1 (it prints the markdown table).
func TestExperimentShipped(t *testing.T) {
	dir := "../../web/datasets"
	if _, err := os.Stat(filepath.Join(dir, "digits-tags.csv")); err != nil {
		t.Skip("web/datasets/digits-tags.csv not present")
	}
	e, err := experiment.Lookup("jointsvm")
	if err != nil {
		t.Fatal(err)
	}
	quick := os.Getenv("JOINT_FULL") == ""
	t0 := time.Now()
	res, err := e.Run(context.Background(), experiment.Config{Quick: quick, Seed: 1, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quick=%v, %.1f s\n%s", quick, time.Since(t0).Seconds(), res.Markdown())
}
