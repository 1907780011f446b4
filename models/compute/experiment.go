package compute

import (
	"context"
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
	out := &wire.ExpResult{Name: r.Name, Paper: r.Paper, Seconds: time.Since(start).Seconds()}
	conv := func(ts []experiment.Table) []wire.ExpTable {
		var o []wire.ExpTable
		for _, t := range ts {
			o = append(o, wire.ExpTable{Title: t.Title, Columns: t.Columns, Rows: t.Rows, Notes: t.Notes})
		}
		return o
	}
	out.Tables, out.PaperTables = conv(r.Tables), conv(r.PaperTables)
	return out, nil
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
