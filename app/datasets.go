package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"lupilab/models/data"
)

// generators are the synthetic datasets (models/data), by name.
var generators = []struct{ id, label, about string }{
	{"moons", "Two moons", "Two interleaved half circles; noise blurs them."},
	{"xor", "XOR", "Four blobs in a chequerboard: no line separates the classes."},
	{"circles", "Circles", "A disc inside a ring."},
	{"spirals", "Spirals", "Two interleaved spirals: hard for wide kernels."},
	{"blobs", "Blobs", "Gaussian blobs, one per class (3 classes)."},
	{"lupi2d", "LUPI 2-D", "X is a noisy view of a latent point; the privileged Z tells which samples are hard."},
	{"twoview2d", "Two views 2-D", "Two different noisy non-linear maps of one latent point: view A and view B."},
	{"multilabel2d", "Tags 2-D", "Overlapping regions with correlated tags."},
}

// shippedInfo is one entry of web/datasets/index.json.
type shippedInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Kind        string `json:"kind"`
	File        string `json:"file"`
	Rows        int    `json:"rows"`
	XColumns    int    `json:"x_columns"`
	ZColumns    int    `json:"z_columns"`
	Classes     int    `json:"classes"`
	Tags        int    `json:"tags"`
	Description string `json:"description"`
	Source      string `json:"source"`
	Licence     string `json:"licence"`
}

// loadIndex fetches the dataset index from the server (or the service
// worker's cache when offline).
func loadIndex(base string) ([]shippedInfo, error) {
	resp, err := http.Get(base + "/web/datasets/index.json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dataset index: %s", resp.Status)
	}
	var idx []shippedInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&idx); err != nil {
		return nil, fmt.Errorf("dataset index: %w", err)
	}
	return idx, nil
}

// loadShipped fetches and parses one shipped dataset.
func loadShipped(base string, info shippedInfo) (*data.Dataset, error) {
	if strings.Contains(info.File, "/") || strings.Contains(info.File, "..") {
		return nil, fmt.Errorf("bad dataset file name %q", info.File)
	}
	resp, err := http.Get(base + "/web/datasets/" + info.File)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", info.File, resp.Status)
	}
	ds, err := data.ReadCSV(resp.Body, data.ReadOptions{})
	if err != nil {
		return nil, err
	}
	ds.Name = info.Name
	ds.Kind = data.Kind(info.Kind)
	ds.Provenance = data.Provenance{Source: info.Source, Licence: info.Licence, Details: info.Description}
	return ds, nil
}
