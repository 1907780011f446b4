// Package datasets is the catalogue of the data LUPI Lab offers: the schema
// of the shipped datasets' index (web/datasets/index.json) and the
// descriptions of the synthetic generators. Like package spec it is metadata
// only — standard library, no numerics — so the browser's UI build lists the
// datasets without linking the readers; package data reads and generates
// them.
package datasets

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Kind says what a dataset's second block and targets mean.
type Kind string

// Dataset kinds.
const (
	KindPlain      Kind = "plain"      // X and labels only
	KindLUPI       Kind = "lupi"       // Z is privileged (training only)
	KindTwoView    Kind = "twoview"    // Z is a second view (available at test time)
	KindMultiLabel Kind = "multilabel" // Tags instead of Y
)

// IndexEntry describes one shipped dataset in web/datasets/index.json.
type IndexEntry struct {
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Kind        Kind     `json:"kind"`
	File        string   `json:"file"` // CSV file name, relative to the index
	Rows        int      `json:"rows"`
	XColumns    int      `json:"x_columns"`
	ZColumns    int      `json:"z_columns"`
	Classes     []string `json:"classes,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Description string   `json:"description"` // one paragraph for the UI
	Source      string   `json:"source"`
	Licence     string   `json:"licence"`
	Blocks      string   `json:"blocks"` // how X / Z / tags were formed
}

// IndexFile is the name of the index of shipped datasets.
const IndexFile = "index.json"

// ParseIndex decodes an index.json.
func ParseIndex(b []byte) ([]IndexEntry, error) {
	var idx []IndexEntry
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("data: dataset index: %w", err)
	}
	for _, e := range idx {
		if e.File == "" || strings.Contains(e.File, "..") || strings.ContainsAny(e.File, "/\\") {
			return nil, fmt.Errorf("data: dataset index: %q has a bad file name %q", e.Name, e.File)
		}
	}
	return idx, nil
}

// Generator describes a synthetic dataset generator.
type Generator struct {
	Name         string  // id used by data.GenerateByName and in links ("gen:<name>")
	Title        string  // display name
	Kind         Kind    // kind of dataset it makes
	Classes      int     // number of classes (0 for multi-label data)
	DefaultN     int     // a good default size
	DefaultNoise float64 // a good default noise
	// Description is one paragraph for the UI, including the ground truth.
	Description string
}

// MaxGenerated is the largest number of samples a generator makes.
const MaxGenerated = 1_000_000

// Generators lists the synthetic generators in the order a UI shows them.
var Generators = []Generator{
	{Name: "moons", Title: "Two moons", Kind: KindPlain, Classes: 2, DefaultN: 200, DefaultNoise: 0.15,
		Description: "Two interleaved half circles (class 0: (cos t, sin t), class 1: (1 − cos t, ½ − sin t), t uniform in [0, π]) plus Gaussian noise of standard deviation Noise on each coordinate. Ground truth: the two noise-free arcs; the Bayes boundary has no closed form and approaches the curve midway between the arcs as the noise shrinks."},
	{Name: "circles", Title: "Concentric circles", Kind: KindPlain, Classes: 2, DefaultN: 200, DefaultNoise: 0.1,
		Description: "Class 0 on the circle of radius 1, class 1 on the circle of radius ½ (angles uniform), plus Gaussian noise of standard deviation Noise. Ground truth: the distribution is rotation invariant, so the Bayes boundary is a circle ‖x‖ = r* with ½ < r* < 1 (≈ 0.75 for small noise)."},
	{Name: "xor", Title: "XOR", Kind: KindPlain, Classes: 2, DefaultN: 200, DefaultNoise: 0.1,
		Description: "A latent point uniform in [−1, 1]²; class 1 when both coordinates have the same sign (quadrants I and III), class 0 otherwise; X is the latent point plus Gaussian noise of standard deviation Noise. Ground truth: by symmetry the Bayes boundary is exactly the two axes, x₁·x₂ = 0."},
	{Name: "spirals", Title: "Two spirals", Kind: KindPlain, Classes: 2, DefaultN: 300, DefaultNoise: 0.05,
		Description: "Two interleaved spirals r = t, θ = 3πt (+π for class 1), t uniform in [0.05, 1], plus Gaussian noise of standard deviation Noise. Ground truth: the noise-free spiral arms; classes are separable when the noise is small compared with the gap between arms (≈ 1/3)."},
	{Name: "blobs", Title: "Three blobs", Kind: KindPlain, Classes: 3, DefaultN: 300, DefaultNoise: 0.2,
		Description: "Three classes, isotropic Gaussians of standard deviation 0.25 + Noise centred on a circle of radius 1.5 (angles 90°, 210°, 330°), equal sizes. Ground truth: equal covariances and priors, so the Bayes-optimal classifier assigns each point to the nearest centre (linear boundaries through the origin)."},
	{Name: "lupi2d", Title: "LUPI 2-D (privileged clean coordinates)", Kind: KindLUPI, Classes: 2, DefaultN: 200, DefaultNoise: 0.2,
		Description: "A latent point u ~ N(0, I₂) with class 1 when u₁ + u₂ > 0. Each sample is easy (probability ⅔, noise σ = 0.2 + ½·noise) or hard (probability ⅓, σ = 1 + 2·noise), and X = u + σ·ε. The privileged block Z = (u₁, u₂, σ) holds the clean latent point and the sample's noise level: it tells a teacher which samples are hard. Ground truth: the Bayes-optimal rule on X is x₁ + x₂ > 0, with error ⅓·atan(σ_hard)/π + ⅔·atan(σ_easy)/π (≈ 0.16 at noise 0.2); on Z the classes are separable."},
	{Name: "twoview2d", Title: "Two views 2-D", Kind: KindTwoView, Classes: 2, DefaultN: 200, DefaultNoise: 0.1,
		Description: "A latent point u uniform in [−1, 1]² with class 1 when u₂ > ½·sin(πu₁). View A is the warped map (u₁ + 0.3 sin πu₂, u₂ + 0.3 sin πu₁), view B the polar coordinates (radius, angle) of u seen from (−1.5, 0); each view gets its own Gaussian noise of standard deviation Noise. Ground truth: both maps are invertible, so without noise each view alone separates the classes along the image of the sine boundary; with noise the views err on different samples."},
	{Name: "multilabel2d", Title: "Multi-label 2-D", Kind: KindMultiLabel, DefaultN: 300, DefaultNoise: 0.05,
		Description: "A latent point u uniform in [−1, 1]² and four tags given by overlapping regions: a = disc of radius 0.6 at (−0.25, 0), b = disc of radius 0.6 at (0.25, 0), c = the band u₂ > 0.35, d = disc of radius 0.45 at (0.5, 0.5). The overlaps make tags correlated (a and b share about half of their area, d lies mostly inside b ∪ c); some points have no tag. X is u plus Gaussian noise of standard deviation Noise. Ground truth: each tag is the indicator of its region of u."},
}

// GeneratorByName returns a generator's description.
func GeneratorByName(name string) (Generator, bool) {
	for _, g := range Generators {
		if g.Name == strings.ToLower(name) {
			return g, true
		}
	}
	return Generator{}, false
}
