package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Default limits used when a ReadOptions field is zero.
const (
	DefaultMaxBytes = 64 << 20 // 64 MiB per file
	DefaultMaxRows  = 1_000_000
	DefaultMaxCols  = 100_000
	DefaultMaxCells = 20_000_000 // rows × columns of the dense result (160 MB of float64)
)

// Role is what a column of a file becomes.
type Role string

// Column roles. Columns are assigned by name (see ReadCSV) unless
// ReadOptions.Roles says otherwise.
const (
	RoleClass  Role = "class"  // the class label (at most one column)
	RoleMain   Role = "main"   // a feature of X (view A)
	RoleSecond Role = "second" // a feature of Z (privileged / view B)
	RoleTag    Role = "tag"    // a 0/1 tag of a multi-label target
	RoleIgnore Role = "ignore" // dropped
)

// Roles lists the column roles in the order a UI should offer them.
var Roles = []Role{RoleClass, RoleMain, RoleSecond, RoleTag, RoleIgnore}

// ReadOptions controls the readers. The zero value is valid: limits take
// their defaults, columns get their roles from their names, and a file with
// a single class is an error.
type ReadOptions struct {
	// Format is "csv", "libsvm" (alias "svmlight") or "arff"; empty means by
	// file extension in ReadFile (.csv/.tsv/.txt → csv, .arff → arff,
	// .libsvm/.svm/.svmlight/.dat → libsvm, a trailing .gz is not supported).
	Format string
	// Name is the dataset's name (ReadFile defaults it to the file's base name).
	Name string

	// Limits; zero means the Default… constant, negative means no limit.
	// MaxCols and MaxCells count the whole table — label, X, Z and tag
	// columns (after LIBSVM's sparse rows are made dense and ARFF's nominal
	// attributes one-hot encoded).
	MaxBytes int64
	MaxRows  int
	MaxCols  int
	MaxCells int

	// Roles overrides the role of columns by their exact name (CSV header
	// names, ARFF attribute names). Columns not listed keep their default.
	Roles map[string]Role

	// ARFFLabels names the ARFF label attributes. One name selects a single
	// nominal (or numeric) class attribute; several names select 0/1 tag
	// attributes (Mulan's XML label list).
	ARFFLabels []string
	// ARFFLabelCount selects label attributes by count as MEKA's "-C n" does:
	// n > 0 means the first n attributes, n < 0 the last |n|. One attribute is
	// the class; several are 0/1 tags. When both ARFFLabels and ARFFLabelCount
	// are empty, a "-C n" option in the @relation name is honoured, otherwise
	// the attribute named "class" (any case) or else the last nominal
	// attribute is the class.
	ARFFLabelCount int

	// ZPath is, for LIBSVM files read by ReadFile, an optional second file
	// with the Z block (same rows, same labels, in the same order).
	ZPath string
	// Z is the same for ReadLIBSVM when ZPath is not used.
	Z io.Reader

	// AllowOneClass accepts a file in which every row has the same class.
	AllowOneClass bool
	// AllowUnlabelled accepts a CSV or ARFF file without a class column and
	// without tags (Y and Tags stay nil): data to predict, not to train on.
	AllowUnlabelled bool
	// Kind is the dataset kind to give a file that has a Z block (KindLUPI by
	// default; KindTwoView for a second view).
	Kind Kind
}

func (o *ReadOptions) maxBytes() int64 {
	switch {
	case o.MaxBytes == 0:
		return DefaultMaxBytes
	case o.MaxBytes < 0:
		return math.MaxInt64
	}
	return o.MaxBytes
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return math.MaxInt
	}
	return v
}

func (o *ReadOptions) maxRows() int  { return limit(o.MaxRows, DefaultMaxRows) }
func (o *ReadOptions) maxCols() int  { return limit(o.MaxCols, DefaultMaxCols) }
func (o *ReadOptions) maxCells() int { return limit(o.MaxCells, DefaultMaxCells) }

// ParseError is a problem at a place in a file. Line and Col are 1-based;
// Col is the field (CSV, ARFF: attribute) or token (LIBSVM) number — for CSV
// quoting errors the character position — 0 when the problem concerns a
// whole line, and Line is 0 when it concerns the whole file (empty, too
// big, one class, Z file of another length).
type ParseError struct {
	File string // file name when known
	Line int
	Col  int
	Msg  string
}

// Error implements error.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("data: ")
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ", column %d", e.Col)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func perr(line, col int, format string, args ...any) *ParseError {
	return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// ErrEmpty is wrapped by the error for a file without data rows.
var ErrEmpty = errors.New("the file has no data rows")

// ReadFile reads a dataset from a file, choosing the reader by opt.Format or
// else by the file's extension (see ReadOptions.Format).
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	format := opt.Format
	if format == "" {
		format = FormatOf(path)
		if format == "" {
			return nil, fmt.Errorf("data: %s: unknown file type (use .csv, .arff or .libsvm, or set the format)", path)
		}
	}
	if opt.Name == "" {
		base := filepath.Base(path)
		opt.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	if format == "libsvm" || format == "svmlight" {
		if opt.ZPath != "" && opt.Z == nil {
			zf, err := os.Open(opt.ZPath)
			if err != nil {
				return nil, fmt.Errorf("data: %w", err)
			}
			defer zf.Close()
			opt.Z = zf
		}
	}
	ds, err := Read(f, format, opt)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.File == "" {
			pe.File = filepath.Base(path)
			if opt.ZPath != "" && strings.HasPrefix(pe.Msg, "Z file") {
				// a problem of the Z file (or of it against the main file)
				pe.File = filepath.Base(opt.ZPath)
			}
		}
		return nil, err
	}
	return ds, nil
}

// FormatOf returns the format a file name suggests ("csv", "arff",
// "libsvm"), or "" when the extension is unknown.
func FormatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".tsv", ".txt":
		return "csv"
	case ".arff":
		return "arff"
	case ".libsvm", ".svm", ".svmlight", ".dat", ".t", ".scale":
		return "libsvm"
	}
	return ""
}

// Read reads a dataset in the given format ("csv", "arff", "libsvm").
func Read(r io.Reader, format string, opt ReadOptions) (*Dataset, error) {
	switch strings.ToLower(format) {
	case "csv":
		return ReadCSV(r, opt)
	case "arff":
		return ReadARFF(r, opt)
	case "libsvm", "svmlight":
		return ReadLIBSVM(r, opt)
	}
	return nil, fmt.Errorf("data: unknown format %q (csv, arff or libsvm)", format)
}

// readAll reads at most the byte limit, failing beyond it.
func readAll(r io.Reader, opt *ReadOptions) ([]byte, error) {
	if r == nil {
		return nil, &ParseError{Msg: ErrEmpty.Error()}
	}
	max := opt.maxBytes()
	lim := max
	if lim < math.MaxInt64 {
		lim++
	}
	b, err := io.ReadAll(io.LimitReader(r, lim))
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if int64(len(b)) > max {
		return nil, &ParseError{Msg: fmt.Sprintf("the file is larger than the limit of %d bytes", max)}
	}
	// Strip a UTF-8 byte-order mark.
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	return b, nil
}

// lines splits text into lines (LF or CRLF), keeping 1-based numbers.
func lines(b []byte) []string {
	s := string(b)
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	if len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// parseNumber parses a finite number.
func parseNumber(s string, line, col int) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "?" {
		return 0, perr(line, col, "missing value (empty or \"?\"): every cell needs a number")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, perr(line, col, "%q is out of the range of a float64", short(t))
		}
		return 0, perr(line, col, "%q is not a number", short(t))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, perr(line, col, "%q is not a finite number (NaN and Inf are not allowed)", short(t))
	}
	return v, nil
}

func short(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// classIndex turns label texts into class indices. If every label is a
// number, labels are canonicalised (so "1", "1.0" and "+1" are one class) and
// classes are sorted numerically; otherwise classes keep their text and the
// order in which they first appear.
func classIndex(labels []string) (y []int, classes []string) {
	numeric := len(labels) > 0
	vals := make([]float64, len(labels))
	for i, l := range labels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			numeric = false
			break
		}
		vals[i] = v
	}
	y = make([]int, len(labels))
	idx := map[string]int{}
	if numeric {
		var uniq []float64
		seen := map[float64]bool{}
		for _, v := range vals {
			if v == 0 {
				v = 0 // fold −0 into 0
			}
			if !seen[v] {
				seen[v] = true
				uniq = append(uniq, v)
			}
		}
		sort.Float64s(uniq)
		pos := map[float64]int{}
		for i, v := range uniq {
			pos[v] = i
			classes = append(classes, strconv.FormatFloat(v, 'g', -1, 64))
		}
		for i, v := range vals {
			if v == 0 {
				v = 0
			}
			y[i] = pos[v]
		}
		return y, classes
	}
	for i, l := range labels {
		k, ok := idx[l]
		if !ok {
			k = len(classes)
			idx[l] = k
			classes = append(classes, l)
		}
		y[i] = k
	}
	return y, classes
}

// finish builds and checks a dataset from columns gathered by a reader.
type builder struct {
	n                     int
	x, z, tags            []float64 // row-major
	xNames, zNames, tags_ []string
	labels                []string // nil when there is no class column
}

func (b *builder) dataset(opt *ReadOptions) (*Dataset, error) {
	if b.n == 0 {
		return nil, &ParseError{Msg: ErrEmpty.Error()}
	}
	ds := &Dataset{Name: opt.Name}
	if len(b.xNames) == 0 {
		return nil, &ParseError{Msg: "no main (X) feature columns"}
	}
	ds.X = mat.NewDense(b.n, len(b.xNames), b.x)
	ds.XNames = b.xNames
	if len(b.zNames) > 0 {
		ds.Z = mat.NewDense(b.n, len(b.zNames), b.z)
		ds.ZNames = b.zNames
	}
	if len(b.tags_) > 0 {
		ds.Tags = mat.NewDense(b.n, len(b.tags_), b.tags)
		ds.TagNames = b.tags_
	}
	if b.labels != nil {
		ds.Y, ds.Classes = classIndex(b.labels)
		if len(ds.Classes) < 2 && !opt.AllowOneClass {
			return nil, &ParseError{Msg: fmt.Sprintf("only one class (%q): a classifier needs rows of at least two classes — check that the class column (or label) is the right one, or add rows of another class", short(ds.Classes[0]))}
		}
	}
	if ds.Y == nil && ds.Tags == nil {
		if !opt.AllowUnlabelled {
			return nil, &ParseError{Msg: "no class column (y or label) and no tag columns (tag_*)"}
		}
		ds.Kind = KindPlain
		if ds.Z != nil {
			ds.Kind = KindLUPI
			if opt.Kind != "" {
				ds.Kind = opt.Kind
			}
		}
		if err := ds.validateBlocks(); err != nil {
			return nil, err
		}
		return ds, nil
	}
	switch {
	case ds.Y == nil:
		ds.Kind = KindMultiLabel
	case ds.Z != nil:
		ds.Kind = KindLUPI
		if opt.Kind != "" {
			ds.Kind = opt.Kind
		}
	default:
		ds.Kind = KindPlain
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

// defaultRole gives a column its role from its name: "y" or "label" (any
// case) is the class, "x_*" main, "z_*" second, "tag_*" tag; anything else is
// main.
func defaultRole(name string) Role {
	l := strings.ToLower(strings.TrimSpace(name))
	switch {
	case l == "y" || l == "label":
		return RoleClass
	case strings.HasPrefix(l, "z_"):
		return RoleSecond
	case strings.HasPrefix(l, "tag_"):
		return RoleTag
	}
	return RoleMain
}

func validRole(r Role) bool {
	for _, x := range Roles {
		if r == x {
			return true
		}
	}
	return false
}
