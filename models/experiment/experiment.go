package experiment

import (
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
	// Progress is called with the fraction done (once per finished task,
	// and with the fits' own reports in between); may be nil. With Jobs > 1
	// the calls come from several goroutines, one at a time.
	Progress func(model.Progress)
	// Jobs is how many tasks run at once (≤ 1: one after the other, as in
	// the browser's single thread). The result does not depend on it.
	Jobs int
	// NoTiming skips every clock: the timings are left out (zero), so the
	// output is a function of the settings and the seed alone (what the
	// tests that compare runs use).
	NoTiming bool
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
