// Package exptest checks the harness's promises for an experiment: the same
// Result whatever the number of parallel tasks, and every task reproducible
// from its serialised form alone (a fresh Env, as a Web Worker has).
package exptest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"testing/fstest"

	"lupilab/models/data"

	"lupilab/models/experiment"
)

// Reproducible runs e under cfg (timing off) with one task at a time and
// with jobs at a time and fails unless both Results are identical; then it
// reruns every task from its JSON in a fresh Env through
// experiment.RunTaskJSON and fails unless each output is identical. It
// returns the Result.
func Reproducible(t *testing.T, e *experiment.Experiment, cfg experiment.Config, jobs int) *experiment.Result {
	t.Helper()
	ctx := context.Background()
	cfg.NoTiming = true
	run := func(j int) (*experiment.Result, []experiment.Done, []byte) {
		t.Helper()
		c := cfg
		c.Jobs = j
		env, err := experiment.NewEnv(e, c)
		if err != nil {
			t.Fatal(err)
		}
		done, err := env.RunPlan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := env.Aggregate(done)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return res, done, b
	}
	res, done, one := run(1)
	_, _, many := run(jobs)
	if !bytes.Equal(one, many) {
		t.Errorf("%s: the result with %d jobs differs from the result with 1:\n%s\n%s", e.Name, jobs, one, many)
	}
	for _, d := range done {
		tb, err := json.Marshal(d.Task)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := experiment.RunTaskJSON(ctx, e.Name, cfg, tb)
		if err != nil {
			t.Fatalf("task %s from JSON: %v", d.ID, err)
		}
		again, err := experiment.Decode[experiment.Done](ob)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Out, d.Out) {
			t.Errorf("task %s from JSON gave %s, in the run %s", d.ID, again.Out, d.Out)
		}
	}
	return res
}

// FS returns an in-memory file system that holds the datasets as shipped
// datasets do (index.json and one CSV each), for Config.FS: tests run the
// experiments on generated data exactly as on the shipped files.
func FS(t *testing.T, sets ...*data.Dataset) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	var idx []data.IndexEntry
	for _, ds := range sets {
		var b bytes.Buffer
		if err := data.WriteCSV(&b, ds); err != nil {
			t.Fatal(err)
		}
		file := ds.Name + ".csv"
		fsys[file] = &fstest.MapFile{Data: b.Bytes()}
		idx = append(idx, data.IndexEntry{Name: ds.Name, Kind: ds.Kind, File: file, Rows: ds.Rows(), XColumns: ds.Dim(), ZColumns: ds.ZDim()})
	}
	b, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	fsys[data.IndexFile] = &fstest.MapFile{Data: b}
	return fsys
}
