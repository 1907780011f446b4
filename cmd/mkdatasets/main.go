// Command mkdatasets builds the datasets shipped in web/datasets from files
// that Debian packages install (python3-sklearn, weka): it writes one CSV per
// dataset (header roles x_*, z_*, tag_*, y as data.ReadCSV expects) and
// index.json. It is deterministic: re-running it reproduces the committed
// files byte for byte (see main_test.go).
//
//	go run ./cmd/mkdatasets [-out web/datasets] [-breast …] [-digits …] [-segment-challenge …] [-segment-test …]
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
)

// Sources are the input files.
type Sources struct {
	Breast           string // sklearn breast_cancer.csv
	Digits           string // sklearn digits.csv.gz
	SegmentChallenge string // weka segment-challenge.arff
	SegmentTest      string // weka segment-test.arff
}

// DefaultSources are the Debian paths.
var DefaultSources = Sources{
	Breast:           "/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv",
	Digits:           "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz",
	SegmentChallenge: "/usr/share/doc/weka/examples/segment-challenge.arff",
	SegmentTest:      "/usr/share/doc/weka/examples/segment-test.arff",
}

func main() {
	src := DefaultSources
	out := flag.String("out", "web/datasets", "output directory")
	flag.StringVar(&src.Breast, "breast", src.Breast, "sklearn breast_cancer.csv")
	flag.StringVar(&src.Digits, "digits", src.Digits, "sklearn digits.csv(.gz)")
	flag.StringVar(&src.SegmentChallenge, "segment-challenge", src.SegmentChallenge, "weka segment-challenge.arff(.gz)")
	flag.StringVar(&src.SegmentTest, "segment-test", src.SegmentTest, "weka segment-test.arff(.gz)")
	flag.Parse()
	files, err := Build(src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(*out, name), files[name], 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-24s %8d bytes\n", name, len(files[name]))
	}
}

// Build makes every shipped file (name → contents), index.json included.
func Build(src Sources) (map[string][]byte, error) {
	digits, labels, err := readDigits(src.Digits)
	if err != nil {
		return nil, err
	}
	type made struct {
		ds     *data.Dataset
		entry  data.IndexEntry
		digits int // significant digits in the CSV (-1: exact)
	}
	var all []made
	add := func(ds *data.Dataset, e data.IndexEntry, digits int, err error) error {
		if err != nil {
			return err
		}
		all = append(all, made{ds, e, digits})
		return nil
	}
	if err := add(wdbc(src.Breast)); err != nil {
		return nil, err
	}
	if err := add(digitsLowHigh(digits, labels)); err != nil {
		return nil, err
	}
	if err := add(segmentTwoView(src.SegmentChallenge, src.SegmentTest)); err != nil {
		return nil, err
	}
	if err := add(digitsTwoView(digits, labels)); err != nil {
		return nil, err
	}
	if err := add(digitsTags(digits, labels)); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	var index []data.IndexEntry
	for _, m := range all {
		if err := m.ds.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", m.entry.Name, err)
		}
		var buf bytes.Buffer
		if err := data.WriteCSVDigits(&buf, m.ds, m.digits); err != nil {
			return nil, err
		}
		// Describe the file as the app will read it (class order included).
		back, err := data.ReadCSV(bytes.NewReader(buf.Bytes()), data.ReadOptions{Kind: kindOption(m.ds.Kind)})
		if err != nil {
			return nil, fmt.Errorf("%s: reading back: %w", m.entry.Name, err)
		}
		e := m.entry
		e.File = e.Name + ".csv"
		e.Kind = back.Kind
		e.Rows, e.XColumns, e.ZColumns = back.Rows(), back.Dim(), back.ZDim()
		e.Classes = back.Classes
		e.Tags = back.TagNames
		files[e.File] = buf.Bytes()
		index = append(index, e)
	}
	b, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return nil, err
	}
	files[data.IndexFile] = append(b, '\n')
	return files, nil
}

func kindOption(k data.Kind) data.Kind {
	if k == data.KindLUPI || k == data.KindTwoView {
		return k
	}
	return ""
}

func open(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		return io.ReadAll(zr)
	}
	return b, nil
}

// Licences and sources.
const (
	uciLicence = "CC BY 4.0 (UCI Machine Learning Repository)"
)

var wdbcBase = []string{"radius", "texture", "perimeter", "area", "smoothness", "compactness",
	"concavity", "concave_points", "symmetry", "fractal_dimension"}

// wdbc: 569 rows; sklearn's file has a first line "569,30,malignant,benign"
// and then 30 features and the target (0 = malignant, 1 = benign).
func wdbc(path string) (*data.Dataset, data.IndexEntry, int, error) {
	b, err := open(path)
	if err != nil {
		return nil, data.IndexEntry{}, 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head := strings.Split(strings.TrimSpace(lines[0]), ",")
	if len(head) != 4 || head[1] != "30" {
		return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: unexpected first line %q", path, lines[0])
	}
	n, _ := strconv.Atoi(head[0])
	classNames := head[2:]
	if len(lines)-1 != n {
		return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: %d rows, header says %d", path, len(lines)-1, n)
	}
	x := mat.NewDense(n, 10, nil)
	z := mat.NewDense(n, 20, nil)
	y := make([]int, n)
	for i, line := range lines[1:] {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 31 {
			return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: line %d has %d fields", path, i+2, len(f))
		}
		for j := 0; j < 30; j++ {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: line %d: %w", path, i+2, err)
			}
			if j < 10 {
				x.Set(i, j, v)
			} else {
				z.Set(i, j-10, v)
			}
		}
		c, err := strconv.Atoi(f[30])
		if err != nil || c < 0 || c > 1 {
			return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: line %d: bad target %q", path, i+2, f[30])
		}
		y[i] = c
	}
	var xn, zn []string
	for _, b := range wdbcBase {
		xn = append(xn, "x_mean_"+b)
	}
	for _, b := range wdbcBase {
		zn = append(zn, "z_se_"+b)
	}
	for _, b := range wdbcBase {
		zn = append(zn, "z_worst_"+b)
	}
	ds := &data.Dataset{Name: "wdbc", Kind: data.KindLUPI, X: x, XNames: xn, Z: z, ZNames: zn, Y: y, Classes: classNames}
	e := data.IndexEntry{
		Name:  "wdbc",
		Title: "Breast cancer (WDBC): mean features, privileged SE + worst",
		Description: "Wisconsin Diagnostic Breast Cancer: 569 fine-needle aspirates of breast masses, each described by ten properties of the cell nuclei in a digitised image (radius, texture, perimeter, area, smoothness, compactness, concavity, concave points, symmetry, fractal dimension). " +
			"X holds the mean of each property over the nuclei; the privileged block Z holds their standard errors and 'worst' values (mean of the three largest), which a pathologist's fuller analysis provides at training time only. " +
			"Classes: malignant (212) and benign (357).",
		Source:  "UCI ML Repository 'Breast Cancer Wisconsin (Diagnostic)' (W. H. Wolberg, W. N. Street, O. L. Mangasarian, 1995), via the copy in scikit-learn (Debian python3-sklearn: sklearn/datasets/data/breast_cancer.csv)",
		Licence: uciLicence + "; the scikit-learn copy is distributed under BSD-3-Clause",
		Blocks:  "X = the 10 'mean' features (sklearn columns 0–9); Z = the 10 'standard error' and 10 'worst' features (columns 10–29); classes in file order: malignant ↦ −1, benign ↦ +1",
	}
	return ds, e, -1, nil
}

// readDigits returns the 1797 sklearn digits (8×8, values 0–16) and labels.
func readDigits(path string) ([][]float64, []int, error) {
	b, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	var imgs [][]float64
	var labels []int
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 65 {
			return nil, nil, fmt.Errorf("%s: line %d has %d fields", path, i+1, len(f))
		}
		img := make([]float64, 64)
		for j := range img {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: line %d: %w", path, i+1, err)
			}
			img[j] = v
		}
		c, err := strconv.ParseFloat(f[64], 64)
		if err != nil || c < 0 || c > 9 || c != math.Trunc(c) {
			return nil, nil, fmt.Errorf("%s: line %d: bad label %q", path, i+1, f[64])
		}
		imgs = append(imgs, img)
		labels = append(labels, int(c))
	}
	return imgs, labels, nil
}

func digitClasses() []string {
	out := make([]string, 10)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

func pixelNames(prefix string, side int) []string {
	var out []string
	for r := 0; r < side; r++ {
		for c := 0; c < side; c++ {
			out = append(out, fmt.Sprintf("%sr%dc%d", prefix, r, c))
		}
	}
	return out
}

// lowRes averages 2×2 blocks of an 8×8 image into a 4×4 one.
func lowRes(img []float64) []float64 {
	out := make([]float64, 16)
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			s := img[(2*r)*8+2*c] + img[(2*r)*8+2*c+1] + img[(2*r+1)*8+2*c] + img[(2*r+1)*8+2*c+1]
			out[r*4+c] = s / 4
		}
	}
	return out
}

const digitsSource = "UCI ML Repository 'Optical Recognition of Handwritten Digits' (E. Alpaydin, C. Kaynak, 1998; test part, 1797 images), via the copy in scikit-learn (Debian python3-sklearn: sklearn/datasets/data/digits.csv.gz)"
const digitsLicence = uciLicence + "; the scikit-learn copy is distributed under BSD-3-Clause"

func digitsLowHigh(imgs [][]float64, labels []int) (*data.Dataset, data.IndexEntry, int, error) {
	n := len(imgs)
	x := mat.NewDense(n, 16, nil)
	z := mat.NewDense(n, 64, nil)
	for i, img := range imgs {
		x.SetRow(i, lowRes(img))
		z.SetRow(i, img)
	}
	ds := &data.Dataset{Name: "digits-lowhigh", Kind: data.KindLUPI, X: x, XNames: pixelNames("x_", 4), Z: z, ZNames: pixelNames("z_", 8),
		Y: append([]int(nil), labels...), Classes: digitClasses()}
	e := data.IndexEntry{
		Name:  "digits-lowhigh",
		Title: "Digits: low resolution, privileged high resolution",
		Description: "Vapnik's classic LUPI setting on handwritten digits: 1797 images of the digits 0–9 written by 13 people. " +
			"X is a coarse 4×4 version of each image (the mean of each 2×2 block of pixels) — what the classifier sees at test time; " +
			"the privileged block Z is the full 8×8 image, available while training only. " +
			"All ten classes are included; the usual binary task is 5 vs 8 (a one-vs-one task).",
		Source:  digitsSource,
		Licence: digitsLicence,
		Blocks:  "X = 4×4 block means of the 8×8 image (values 0–16 in steps of 0.25), row-major x_rRcC; Z = the 8×8 image, row-major z_rRcC; classes 0–9",
	}
	return ds, e, -1, nil
}

// Weka's segment attributes split into shape/texture (view A) and colour
// (view B); region-pixel-count is 9 for every region and is dropped.
var segmentShape = []string{"region-centroid-col", "region-centroid-row", "short-line-density-5", "short-line-density-2",
	"vedge-mean", "vegde-sd", "hedge-mean", "hedge-sd"}
var segmentColour = []string{"intensity-mean", "rawred-mean", "rawblue-mean", "rawgreen-mean", "exred-mean", "exblue-mean",
	"exgreen-mean", "value-mean", "saturation-mean", "hue-mean"}

func segmentTwoView(challenge, test string) (*data.Dataset, data.IndexEntry, int, error) {
	roles := map[string]data.Role{"region-pixel-count": data.RoleIgnore}
	for _, a := range segmentShape {
		roles[a] = data.RoleMain
	}
	for _, a := range segmentColour {
		roles[a] = data.RoleSecond
	}
	var parts []*data.Dataset
	for _, p := range []string{challenge, test} {
		b, err := open(p)
		if err != nil {
			return nil, data.IndexEntry{}, 0, err
		}
		ds, err := data.ReadARFF(bytes.NewReader(b), data.ReadOptions{Roles: roles, Kind: data.KindTwoView})
		if err != nil {
			return nil, data.IndexEntry{}, 0, fmt.Errorf("%s: %w", p, err)
		}
		parts = append(parts, ds)
	}
	a, b := parts[0], parts[1]
	// Merge, with classes in the order the ARFF declares them (the CSV
	// reader orders them by first appearance).
	declared := []string{"brickface", "sky", "foliage", "cement", "window", "path", "grass"}
	pos := map[string]int{}
	for i, c := range declared {
		pos[c] = i
	}
	n := a.Rows() + b.Rows()
	x := mat.NewDense(n, a.Dim(), nil)
	z := mat.NewDense(n, a.ZDim(), nil)
	y := make([]int, n)
	i := 0
	for _, p := range parts {
		if p.Dim() != len(segmentShape) || p.ZDim() != len(segmentColour) {
			return nil, data.IndexEntry{}, 0, fmt.Errorf("segment: unexpected attributes %v %v", p.XNames, p.ZNames)
		}
		for r := 0; r < p.Rows(); r++ {
			x.SetRow(i, p.X.RawRowView(r))
			z.SetRow(i, p.Z.RawRowView(r))
			k, ok := pos[p.Classes[p.Y[r]]]
			if !ok {
				return nil, data.IndexEntry{}, 0, fmt.Errorf("segment: unknown class %q", p.Classes[p.Y[r]])
			}
			y[i] = k
			i++
		}
	}
	var xn, zn []string
	for _, s := range a.XNames {
		xn = append(xn, "x_"+s)
	}
	for _, s := range a.ZNames {
		zn = append(zn, "z_"+s)
	}
	ds := &data.Dataset{Name: "segment-twoview", Kind: data.KindTwoView, X: x, XNames: xn, Z: z, ZNames: zn, Y: y, Classes: declared}
	e := data.IndexEntry{
		Name:  "segment-twoview",
		Title: "Image segmentation: shape view and colour view",
		Description: "2310 3×3 pixel regions cut from seven hand-segmented outdoor images, each to be labelled brickface, sky, foliage, cement, window, path or grass (330 each). " +
			"View A describes shape and texture — where the region is, line densities and edge contrasts; view B describes colour — mean intensity, raw and excess red/green/blue, and value, saturation and hue. " +
			"Both views are available at test time, so this is a two-view problem.",
		Source:  "UCI ML Repository 'Image Segmentation' (Vision Group, University of Massachusetts, 1990), via Weka's segment-challenge.arff (1500 rows) + segment-test.arff (810 rows) in Debian's weka package (/usr/share/doc/weka/examples)",
		Licence: uciLicence + "; the Weka copies are distributed with Weka under GPL-2+",
		Blocks:  "view A (X) = region-centroid-col/row, short-line-density-5/2, vedge-mean/sd, hedge-mean/sd (8 attributes; region-pixel-count, always 9, dropped); view B (Z) = intensity-mean, rawred/rawblue/rawgreen-mean, exred/exblue/exgreen-mean, value/saturation/hue-mean (10 attributes); rows: challenge file then test file",
	}
	return ds, e, -1, nil
}

// descriptors computes view B of digits-twoview from an 8×8 image.
func descriptors(img []float64) []float64 {
	var out []float64
	mass := 0.0
	for _, v := range img {
		mass += v
	}
	m := mass
	if m == 0 {
		m = 1
	}
	// Row and column profiles (fraction of ink per row / column).
	for r := 0; r < 8; r++ {
		s := 0.0
		for c := 0; c < 8; c++ {
			s += img[r*8+c]
		}
		out = append(out, s/m)
	}
	for c := 0; c < 8; c++ {
		s := 0.0
		for r := 0; r < 8; r++ {
			s += img[r*8+c]
		}
		out = append(out, s/m)
	}
	// Centroid and second central moments (pixel units).
	var cr, cc float64
	for r := 0; r < 8; r++ {
		for c := 0; c < 8; c++ {
			cr += float64(r) * img[r*8+c] / m
			cc += float64(c) * img[r*8+c] / m
		}
	}
	var mrr, mcc, mrc float64
	for r := 0; r < 8; r++ {
		for c := 0; c < 8; c++ {
			w := img[r*8+c] / m
			mrr += w * (float64(r) - cr) * (float64(r) - cr)
			mcc += w * (float64(c) - cc) * (float64(c) - cc)
			mrc += w * (float64(r) - cr) * (float64(c) - cc)
		}
	}
	out = append(out, cr, cc, mrr, mcc, mrc)
	// Zoning: ink fraction in each of the 4 quadrants.
	for qr := 0; qr < 2; qr++ {
		for qc := 0; qc < 2; qc++ {
			s := 0.0
			for r := 4 * qr; r < 4*qr+4; r++ {
				for c := 4 * qc; c < 4*qc+4; c++ {
					s += img[r*8+c]
				}
			}
			out = append(out, s/m)
		}
	}
	// Crossings: ink/background transitions (threshold 8) along each row and column.
	for r := 0; r < 8; r++ {
		out = append(out, crossings(func(k int) float64 { return img[r*8+k] }))
	}
	for c := 0; c < 8; c++ {
		out = append(out, crossings(func(k int) float64 { return img[k*8+c] }))
	}
	out = append(out, mass/64)
	return out
}

func crossings(at func(k int) float64) float64 {
	n := 0
	prev := false
	for k := 0; k < 8; k++ {
		on := at(k) >= 8
		if k > 0 && on != prev {
			n++
		}
		prev = on
	}
	return float64(n)
}

func descriptorNames() []string {
	var out []string
	for r := 0; r < 8; r++ {
		out = append(out, fmt.Sprintf("z_rowprofile%d", r))
	}
	for c := 0; c < 8; c++ {
		out = append(out, fmt.Sprintf("z_colprofile%d", c))
	}
	out = append(out, "z_centroid_row", "z_centroid_col", "z_moment_rr", "z_moment_cc", "z_moment_rc")
	for _, q := range []string{"tl", "tr", "bl", "br"} {
		out = append(out, "z_zone_"+q)
	}
	for r := 0; r < 8; r++ {
		out = append(out, fmt.Sprintf("z_rowcross%d", r))
	}
	for c := 0; c < 8; c++ {
		out = append(out, fmt.Sprintf("z_colcross%d", c))
	}
	return append(out, "z_ink")
}

func digitsTwoView(imgs [][]float64, labels []int) (*data.Dataset, data.IndexEntry, int, error) {
	n := len(imgs)
	names := descriptorNames()
	x := mat.NewDense(n, 64, nil)
	z := mat.NewDense(n, len(names), nil)
	for i, img := range imgs {
		x.SetRow(i, img)
		z.SetRow(i, descriptors(img))
	}
	ds := &data.Dataset{Name: "digits-twoview", Kind: data.KindTwoView, X: x, XNames: pixelNames("x_", 8), Z: z, ZNames: names,
		Y: append([]int(nil), labels...), Classes: digitClasses()}
	e := data.IndexEntry{
		Name:  "digits-twoview",
		Title: "Digits: pixels and shape descriptors",
		Description: "The 1797 handwritten digits seen two ways, in the spirit of UCI's multiple-features digits: view A is the 8×8 pixel image; " +
			"view B is 42 descriptors computed from it — the share of ink in each row and column, the centre of mass and second moments, the ink in each quadrant, the number of ink/background crossings along each row and column, and the total ink. " +
			"Both views are available at test time; ten classes.",
		Source:  digitsSource + "; view B computed from the pixels by LUPI Lab",
		Licence: digitsLicence,
		Blocks:  "view A (X) = 8×8 pixels (0–16), row-major; view B (Z) = 8 row + 8 column ink profiles (fractions of the total), centroid (row, col) and central moments rr, cc, rc in pixel units, 4 quadrant ink fractions (tl, tr, bl, br), 8 + 8 crossing counts at threshold 8, mean ink; rounded to 6 significant digits",
	}
	return ds, e, 6, nil
}

// Families of digits that tend to appear together in digits-tags.
var tagFamilies = [][]int{{0, 6, 8, 9}, {1, 4, 7}, {2, 3, 5}}

func familyOf(d int) []int {
	for _, f := range tagFamilies {
		for _, x := range f {
			if x == d {
				return f
			}
		}
	}
	return nil
}

// digitsTags builds 2×2 mosaics (16×16 pixels) of 1–3 digits with
// correlated co-occurrence; tags are the digits shown.
func digitsTags(imgs [][]float64, labels []int) (*data.Dataset, data.IndexEntry, int, error) {
	const n = 1200
	rng := data.NewRand(20261122)
	pools := make([][]int, 10)
	for i, c := range labels {
		pools[c] = append(pools[c], i)
	}
	next := make([]int, 10)
	draw := func(c int) []float64 {
		if next[c] == 0 {
			rng.Shuffle(len(pools[c]), func(i, j int) { pools[c][i], pools[c][j] = pools[c][j], pools[c][i] })
		}
		img := imgs[pools[c][next[c]]]
		next[c] = (next[c] + 1) % len(pools[c])
		return img
	}
	x := mat.NewDense(n, 256, nil)
	tags := mat.NewDense(n, 10, nil)
	for i := 0; i < n; i++ {
		k := 1
		switch u := rng.Float64(); {
		case u < 0.45:
			k = 2
		case u < 0.70:
			k = 3
		}
		first := rng.IntN(10)
		set := []int{first}
		for len(set) < k {
			var d int
			if rng.Float64() < 0.7 {
				f := familyOf(first)
				d = f[rng.IntN(len(f))]
			} else {
				d = rng.IntN(10)
			}
			dup := false
			for _, s := range set {
				dup = dup || s == d
			}
			if !dup {
				set = append(set, d)
			}
		}
		cells := rng.Perm(4)
		for t, d := range set {
			img := draw(d)
			cr, cc := cells[t]/2, cells[t]%2
			for r := 0; r < 8; r++ {
				for c := 0; c < 8; c++ {
					x.Set(i, (8*cr+r)*16+8*cc+c, img[r*8+c])
				}
			}
			tags.Set(i, d, 1)
		}
	}
	tagNames := make([]string, 10)
	for d := range tagNames {
		tagNames[d] = "tag_" + strconv.Itoa(d)
	}
	ds := &data.Dataset{Name: "digits-tags", Kind: data.KindMultiLabel, X: x, XNames: pixelNames("x_", 16), Tags: tags, TagNames: tagNames}
	e := data.IndexEntry{
		Name:  "digits-tags",
		Title: "Digit mosaics tagged with the digits they show",
		Description: "1200 composite 16×16 images, each a 2×2 mosaic holding one to three handwritten digits (30% one, 45% two, 25% three) in random cells, the other cells blank. " +
			"The tags are the digits the image shows — what the image contains, not a single class. " +
			"Digits co-occur in families ({0, 6, 8, 9}, {1, 4, 7}, {2, 3, 5}): after the first digit, each further digit comes from the first one's family with probability 0.7, so tags are correlated and a method that shares information between tags can gain.",
		Source:  digitsSource + "; mosaics composed by LUPI Lab (seed 20261122)",
		Licence: digitsLicence,
		Blocks:  "X = 16×16 mosaic pixels (0–16), row-major; tags tag_0 … tag_9 = digits present; each source image is used about 1.3 times on average (drawn without replacement per class, the pool reshuffled when exhausted)",
	}
	return ds, e, -1, nil
}
