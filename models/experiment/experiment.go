// Package experiment is the registry of the papers' experiments: each paper's
// package registers a runnable experiment ("svm2plus", "mpwtsvm", "gpcplus",
// "jointsvm") that the CLI runs in full (`lupi experiment NAME`) and the app
// runs at a browser-sized scale. Both use the same code.
package experiment

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"lupilab/models/data"
	"lupilab/models/model"
)

// Config controls the size of a run.
type Config struct {
	// Quick asks for a browser-sized run (fewer repeats, smaller grids, fewer
	// tasks); the full protocol otherwise.
	Quick bool
	// Repeats overrides the number of repeats when > 0.
	Repeats int
	// Seed seeds every random choice (splits, CV folds).
	Seed int64
	// DataDir is where the shipped datasets live (web/datasets). The app,
	// which has no file system, sets FS instead (the datasets it fetched).
	DataDir string
	// FS, when set, holds the shipped datasets (index.json and the CSVs)
	// and takes precedence over DataDir.
	FS fs.FS
	// Args holds experiment-specific settings (name=value).
	Args map[string]string
	// Progress is called with the fraction done; may be nil.
	Progress func(model.Progress)
}

// Load returns a shipped dataset by name, from FS when set, else from
// DataDir (default "web/datasets").
func (c Config) Load(name string) (*data.Dataset, error) {
	if c.FS != nil {
		return data.LoadShippedFS(c.FS, name)
	}
	dir := c.DataDir
	if dir == "" {
		dir = "web/datasets"
	}
	return data.LoadShipped(dir, name)
}

// Table is one results table.
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
}

// Result is an experiment's output: tables for people (markdown) and the raw
// numbers for machines (JSON).
type Result struct {
	Name   string         `json:"name"`
	Paper  string         `json:"paper"`
	Config map[string]any `json:"config"`
	Tables []Table        `json:"tables"`
	// Paper's numbers beside ours, as a table of their own.
	PaperTables []Table        `json:"paper_tables,omitempty"`
	Raw         map[string]any `json:"raw,omitempty"`
}

// Markdown renders the result.
func (r *Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", r.Name, r.Paper)
	for _, group := range [][]Table{r.Tables, r.PaperTables} {
		for _, t := range group {
			fmt.Fprintf(&b, "## %s\n\n", t.Title)
			b.WriteString("| " + strings.Join(t.Columns, " | ") + " |\n")
			b.WriteString("|" + strings.Repeat(" --- |", len(t.Columns)) + "\n")
			for _, row := range t.Rows {
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			}
			for _, n := range t.Notes {
				b.WriteString("\n" + n + "\n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Experiment is a registered experiment.
type Experiment struct {
	Name  string
	Title string
	Paper string
	Run   func(ctx context.Context, cfg Config) (*Result, error)
}

var (
	mu  sync.RWMutex
	reg = map[string]*Experiment{}
)

// Register adds an experiment; it panics on a duplicate name.
func Register(e *Experiment) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := reg[e.Name]; dup {
		panic("experiment: duplicate " + e.Name)
	}
	reg[e.Name] = e
}

// Lookup finds an experiment by name.
func Lookup(name string) (*Experiment, error) {
	mu.RLock()
	defer mu.RUnlock()
	if e, ok := reg[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(namesLocked(), ", "))
}

// All returns the registered experiments by name.
func All() []*Experiment {
	mu.RLock()
	defer mu.RUnlock()
	var out []*Experiment
	for _, n := range namesLocked() {
		out = append(out, reg[n])
	}
	return out
}

func namesLocked() []string {
	var n []string
	for k := range reg {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
