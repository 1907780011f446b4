package gpcplus

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/experiment/exptest"
)

// The experiment runs end to end (quick, one repeat) on a generated LUPI set
// and reports every method, average ranks, the paper's table and the
// deviations of its SVM and SVM+ model selection from the paper's
// (svmCVNote, svmPlusGridNote); the result does not depend on the number of
// parallel tasks, and every task reruns from its JSON alone.
func TestExperimentQuick(t *testing.T) {
	ds, err := data.GenerateByName("lupi2d", 150, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	ds.Name = "lupi2d"
	e, err := experiment.Lookup("gpcplus")
	if err != nil {
		t.Fatal(err)
	}
	fsys := exptest.FS(t, ds)
	cfg := experiment.Config{Quick: true, Repeats: 1, Seed: 1, FS: fsys, Args: map[string]string{"datasets": "lupi2d"}}
	res := exptest.Reproducible(t, e, cfg, 3)
	md := res.Markdown()
	t.Log(md)
	for _, want := range []string{"GPC+", "average ranking", "The GPC+ paper, Table 1", "9.50±0.11", svmCVNote, svmPlusGridNote} {
		if !strings.Contains(md, want) {
			t.Errorf("result lacks %q", want)
		}
	}
	// the errors are rates in % on an easy problem; one repeat has no
	// spread to show
	for _, c := range res.Tables[0].Rows[0][1:] {
		v, err := strconv.ParseFloat(strings.Trim(c, "*"), 64)
		if err != nil || v < 0 || v > 50 {
			t.Errorf("cell %q of one repeat: want an error rate in %% without ±", c)
		}
	}
	bad := cfg
	bad.Args = map[string]string{"datasets": "lupi2d", "train": "x"}
	if _, err := e.Run(context.Background(), bad); err == nil {
		t.Error("bad train argument accepted")
	}
	noZ := *ds
	noZ.Z, noZ.ZNames, noZ.Name = nil, nil, "noz"
	cfg.FS, cfg.Args = exptest.FS(t, &noZ), map[string]string{"datasets": "noz"}
	if _, err := e.Run(context.Background(), cfg); err == nil {
		t.Error("dataset without Z accepted")
	}
}
