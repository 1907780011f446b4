package ui

import (
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
type shippedInfo = data.IndexEntry

// loadIndex fetches the dataset index from the server (or the service
// worker's cache when offline).
func loadIndex(base string) ([]shippedInfo, error) {
	b, err := fetch(base+"/web/datasets/"+data.IndexFile, 1<<20)
	if err != nil {
		return nil, err
	}
	return data.ParseIndex(b)
}

// loadShipped fetches and parses one shipped dataset.
func loadShipped(base string, info shippedInfo) (*data.Dataset, error) {
	if strings.Contains(info.File, "/") || strings.Contains(info.File, "..") {
		return nil, fmt.Errorf("bad dataset file name %q", info.File)
	}
	b, err := fetch(base+"/web/datasets/"+info.File, 64<<20)
	if err != nil {
		return nil, err
	}
	return data.FromIndex(info, b)
}

// fetch GETs a same-origin resource (the browser's fetch under Go's wasm
// net/http), up to limit bytes.
func fetch(url string, limit int64) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", url, limit)
	}
	return b, nil
}
