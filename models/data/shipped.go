package data

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"lupilab/models/datasets"
)

// IndexEntry describes one shipped dataset in web/datasets/index.json.
type IndexEntry = datasets.IndexEntry

// IndexFile is the name of the index of shipped datasets.
const IndexFile = datasets.IndexFile

// ParseIndex decodes an index.json.
func ParseIndex(b []byte) ([]IndexEntry, error) { return datasets.ParseIndex(b) }

// ReadIndex reads dir/index.json.
func ReadIndex(dir string) ([]IndexEntry, error) {
	b, err := os.ReadFile(path.Join(dir, IndexFile))
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return ParseIndex(b)
}

// LoadShipped loads the shipped dataset name from dir (web/datasets): it
// reads index.json and the dataset's CSV and sets Name, Kind and Provenance
// from the index.
func LoadShipped(dir, name string) (*Dataset, error) {
	return LoadShippedFS(os.DirFS(dir), name)
}

// LoadShippedFS is LoadShipped on a file system (e.g. an embed.FS).
func LoadShippedFS(fsys fs.FS, name string) (*Dataset, error) {
	b, err := fs.ReadFile(fsys, IndexFile)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	idx, err := ParseIndex(b)
	if err != nil {
		return nil, err
	}
	for _, e := range idx {
		if e.Name != name {
			continue
		}
		if e.File == "" || strings.Contains(e.File, "..") || strings.HasPrefix(e.File, "/") {
			return nil, fmt.Errorf("data: dataset %q: bad file name %q", name, e.File)
		}
		csv, err := fs.ReadFile(fsys, e.File)
		if err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		return FromIndex(e, csv)
	}
	var names []string
	for _, e := range idx {
		names = append(names, e.Name)
	}
	return nil, fmt.Errorf("data: no shipped dataset %q (have %s)", name, strings.Join(names, ", "))
}

// FromIndex parses a shipped dataset's CSV bytes (e.g. fetched by the
// browser) and applies its index entry, checking the sizes it promises.
func FromIndex(e IndexEntry, csv []byte) (*Dataset, error) {
	kind := e.Kind
	if kind == KindMultiLabel || kind == KindPlain {
		kind = ""
	}
	ds, err := ReadCSV(bytes.NewReader(csv), ReadOptions{Name: e.Name, Kind: kind})
	if err != nil {
		if pe, ok := err.(*ParseError); ok && pe.File == "" {
			pe.File = e.File
		}
		return nil, err
	}
	if ds.Kind != e.Kind {
		return nil, fmt.Errorf("data: dataset %q: the index says kind %s, the file reads as %s", e.Name, e.Kind, ds.Kind)
	}
	if ds.Rows() != e.Rows || ds.Dim() != e.XColumns || ds.ZDim() != e.ZColumns {
		return nil, fmt.Errorf("data: dataset %q: the index promises %d rows × (%d + %d) columns, the file has %d × (%d + %d)",
			e.Name, e.Rows, e.XColumns, e.ZColumns, ds.Rows(), ds.Dim(), ds.ZDim())
	}
	ds.Provenance = Provenance{Source: e.Source, Licence: e.Licence, Blocks: e.Blocks, Details: e.Description}
	return ds, nil
}

// Summary is a short description of a dataset for the UI.
type Summary struct {
	Name        string   `json:"name"`
	Kind        Kind     `json:"kind"`
	Rows        int      `json:"rows"`
	XColumns    int      `json:"x_columns"`
	ZColumns    int      `json:"z_columns"`
	Classes     []string `json:"classes,omitempty"`
	ClassCounts []int    `json:"class_counts,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	TagCounts   []int    `json:"tag_counts,omitempty"`
	// MeanTags is the mean number of tags per row (label cardinality).
	MeanTags float64 `json:"mean_tags,omitempty"`
}

// Describe summarises a dataset.
func Describe(ds *Dataset) Summary {
	s := Summary{Name: ds.Name, Kind: ds.Kind, Rows: ds.Rows(), XColumns: ds.Dim(), ZColumns: ds.ZDim(),
		Classes: ds.Classes, Tags: ds.TagNames}
	if ds.Y != nil {
		s.ClassCounts = ds.ClassCounts()
	}
	if t := ds.NumTags(); t > 0 {
		s.TagCounts = make([]int, t)
		total := 0
		for i := 0; i < ds.Rows(); i++ {
			for j := 0; j < t; j++ {
				if ds.Tags.At(i, j) == 1 {
					s.TagCounts[j]++
					total++
				}
			}
		}
		if s.Rows > 0 {
			s.MeanTags = float64(total) / float64(s.Rows)
		}
	}
	return s
}

// String renders a one-line summary.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d rows, %d main", s.Name, s.Kind, s.Rows, s.XColumns)
	if s.ZColumns > 0 {
		fmt.Fprintf(&b, " + %d second-block", s.ZColumns)
	}
	b.WriteString(" features")
	if len(s.Classes) > 0 {
		fmt.Fprintf(&b, ", %d classes", len(s.Classes))
	}
	if len(s.Tags) > 0 {
		fmt.Fprintf(&b, ", %d tags (%.2f per row)", len(s.Tags), s.MeanTags)
	}
	return b.String()
}
