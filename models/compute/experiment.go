package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"time"

	"lupilab/models/experiment"
	"lupilab/models/wire"
)

// experiments lists the papers' experiments.
func (e *Engine) experiments() []wire.ExpInfo {
	var out []wire.ExpInfo
	for _, x := range experiment.All() {
		out = append(out, wire.ExpInfo{Name: x.Name, Title: x.Title, Paper: x.Paper})
	}
	return out
}

// runExperiment runs one experiment on the shipped datasets.
func (e *Engine) runExperiment(ctx context.Context, req wire.ExpRequest, j *job) (*wire.ExpResult, error) {
	x, err := experiment.Lookup(req.Name)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	r, err := x.Run(ctx, experiment.Config{Quick: req.Quick, Seed: req.Seed, FS: fetchFS{e}, Progress: j.progress})
	if err != nil {
		return nil, err
	}
	return expResult(r, time.Since(start).Seconds()), nil
}

// expEnv returns the run of an experiment a request names, kept per
// worker so that its tasks share the memo (splits, loaded data).
func (e *Engine) expEnv(name string, quick bool, seed int64) (*experiment.Env, error) {
	key := fmt.Sprintf("%s|%v|%d", name, quick, seed)
	e.mu.Lock()
	env, ok := e.envs[key]
	e.mu.Unlock()
	if ok {
		return env, nil
	}
	env, err := experiment.NewEnvByName(name, experiment.Config{Quick: quick, Seed: seed, FS: fetchFS{e}, Jobs: 1})
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.envs == nil || len(e.envs) > 4 {
		e.envs = map[string]*experiment.Env{}
	}
	e.envs[key] = env
	e.mu.Unlock()
	return env, nil
}

func decodeDone(raw []json.RawMessage) ([]experiment.Done, error) {
	out := make([]experiment.Done, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("finished task %d: %w", i, err)
		}
	}
	return out, nil
}

// expState is a plan or reduce request's experiment and its finished
// tasks.
func (e *Engine) expState(req wire.ExpPlanRequest) (*experiment.Env, []experiment.Done, error) {
	env, err := e.expEnv(req.Name, req.Quick, req.Seed)
	if err != nil {
		return nil, nil, err
	}
	done, err := decodeDone(req.Done)
	return env, done, err
}

// expPlan returns the next stage of an experiment's plan.
func (e *Engine) expPlan(req wire.ExpPlanRequest) (*wire.ExpStage, error) {
	env, done, err := e.expState(req)
	if err != nil {
		return nil, err
	}
	st, err := env.Plan(done)
	if err != nil {
		return nil, err
	}
	out := &wire.ExpStage{Later: st.Later, Tasks: []json.RawMessage{}}
	for _, t := range st.Tasks {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, b)
	}
	return out, nil
}

// expTask runs one task.
func (e *Engine) expTask(ctx context.Context, req wire.ExpTaskRequest, j *job) (json.RawMessage, error) {
	env, err := e.expEnv(req.Name, req.Quick, req.Seed)
	if err != nil {
		return nil, err
	}
	var t experiment.Task
	if err := json.Unmarshal(req.Task, &t); err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	d, err := env.RunTask(ctx, t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(d)
}

// expReduce builds an experiment's tables from its finished tasks.
func (e *Engine) expReduce(req wire.ExpPlanRequest) (*wire.ExpResult, error) {
	env, done, err := e.expState(req)
	if err != nil {
		return nil, err
	}
	r, err := env.Aggregate(done)
	if err != nil {
		return nil, err
	}
	return expResult(r, 0), nil
}

func expResult(r *experiment.Result, secs float64) *wire.ExpResult {
	out := &wire.ExpResult{Name: r.Name, Paper: r.Paper, Seconds: secs}
	conv := func(ts []experiment.Table) []wire.ExpTable {
		var o []wire.ExpTable
		for _, t := range ts {
			o = append(o, wire.ExpTable{Title: t.Title, Columns: t.Columns, Rows: t.Rows, Notes: t.Notes})
		}
		return o
	}
	out.Tables, out.PaperTables = conv(r.Tables), conv(r.PaperTables)
	return out
}

// fetchFS serves the shipped datasets to the experiments (fs.FS) through
// the engine's Fetch.
type fetchFS struct{ e *Engine }

func (f fetchFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	b, err := f.e.Fetch(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{name: name, b: b}, nil
}

// ReadFile implements fs.ReadFileFS.
func (f fetchFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return f.e.Fetch(name)
}

type memFile struct {
	name string
	b    []byte
	off  int
}

func (m *memFile) Stat() (fs.FileInfo, error) { return memInfo{m}, nil }
func (m *memFile) Close() error               { return nil }
func (m *memFile) Read(p []byte) (int, error) {
	if m.off >= len(m.b) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += n
	return n, nil
}

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return int64(len(i.f.b)) }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
