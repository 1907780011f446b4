package main

import (
	"bufio"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"lupilab/models/data"
)

// readSpec says how to read one data file.
type readSpec struct {
	path, zpath string
	kind        data.Kind // the kind to give a second block (KindTwoView for view B)
	tags        tagSpec   // the label columns of a multi-label file
	oneClassOK  bool      // test and prediction files may hold one class
	unlabelled  bool      // prediction files may hold none
}

// readData reads a file the way `lupi tune` and older callers do.
func readData(path, zpath string, twoview, oneClassOK bool) (*data.Dataset, error) {
	rs := readSpec{path: path, zpath: zpath, oneClassOK: oneClassOK}
	if twoview {
		rs.kind = data.KindTwoView
	}
	return readDataset(rs)
}

// readDataset reads a data file (and its LIBSVM Z file); an error names the
// file it concerns (the Z file for a problem of the Z file).
func readDataset(rs readSpec) (*data.Dataset, error) {
	opt := data.ReadOptions{ZPath: rs.zpath, AllowOneClass: rs.oneClassOK, AllowUnlabelled: rs.unlabelled, Kind: rs.kind}
	format := data.FormatOf(rs.path)
	if rs.zpath != "" && format != "libsvm" {
		return nil, fmt.Errorf("a separate Z file is only for LIBSVM files (CSV: name the columns z_*)")
	}
	if err := rs.tags.apply(rs.path, format, &opt); err != nil {
		return nil, fmt.Errorf("%s: -tags: %w", rs.path, err)
	}
	ds, err := data.ReadFile(rs.path, opt)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, filepath.Base(rs.path)) || (rs.zpath != "" && strings.Contains(msg, filepath.Base(rs.zpath))) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", rs.path, err)
	}
	return ds, nil
}

// tagSpec is the value of -tags: which columns of a file are the 0/1 tags
// of a multi-label target.
//
//	last:N, first:N   the last (first) N columns (ARFF: attributes), as MEKA's -C
//	a,b,c             the columns named a, b and c
//	labels.xml        the label names of Mulan's XML label file
type tagSpec struct {
	raw   string
	names []string // by name (a list or a Mulan XML file)
	count int      // first |count| (count > 0) or last |count| (count < 0)
}

func (t *tagSpec) String() string { return t.raw }

// Set implements flag.Value.
func (t *tagSpec) Set(v string) error {
	v = strings.TrimSpace(v)
	*t = tagSpec{raw: v}
	switch {
	case v == "":
		return errors.New("-tags: empty (last:N, first:N, a,b,c or a Mulan labels.xml)")
	case strings.HasPrefix(v, "last:") || strings.HasPrefix(v, "first:"):
		where, num, _ := strings.Cut(v, ":")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 {
			return fmt.Errorf("-tags %q: want %s:N with N ≥ 1", v, where)
		}
		t.count = n
		if where == "last" {
			t.count = -n
		}
	case strings.EqualFold(filepath.Ext(v), ".xml"):
		names, err := mulanLabels(v)
		if err != nil {
			return fmt.Errorf("-tags %s: %w", v, err)
		}
		t.names = names
	default:
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				t.names = append(t.names, n)
			}
		}
		if len(t.names) == 0 {
			return fmt.Errorf("-tags %q: no column names", v)
		}
	}
	return nil
}

func (t tagSpec) set() bool { return t.raw != "" }

// apply turns the spec into reader options for a file of the given format.
func (t tagSpec) apply(path, format string, opt *data.ReadOptions) error {
	if !t.set() {
		return nil
	}
	switch format {
	case "arff":
		if len(t.names) > 0 {
			opt.ARFFLabels = t.names
		} else {
			opt.ARFFLabelCount = t.count
		}
		if len(t.names) == 1 || t.count == 1 || t.count == -1 {
			return errors.New("one label attribute is the class of an ARFF file, not a tag: name it (or omit -tags) for a classifier")
		}
		return nil
	case "csv":
		header, err := csvHeader(path)
		if err != nil {
			return err
		}
		names := t.names
		if t.count != 0 {
			k := t.count
			if k < 0 {
				k = -k
			}
			if k > len(header) {
				return fmt.Errorf("%d tag columns asked for, the file has %d columns", k, len(header))
			}
			if t.count > 0 {
				names = header[:k]
			} else {
				names = header[len(header)-k:]
			}
		}
		known := map[string]bool{}
		for _, h := range header {
			known[h] = true
		}
		opt.Roles = map[string]data.Role{}
		for _, n := range names {
			if !known[n] {
				return fmt.Errorf("no column %q in the header (%s)", n, strings.Join(firstN(header, 12), ", "))
			}
			opt.Roles[n] = data.RoleTag
		}
		return nil
	}
	return errors.New("-tags is for CSV and ARFF files (a LIBSVM file gives each row's tags as comma-separated labels)")
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "…")
}

// csvHeader reads the header row of a CSV file with the delimiter rule of
// data.ReadCSV (a comma, else a tab, else a semicolon).
func csvHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, data.DefaultMaxBytes), 1<<16).ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, err
	}
	line = strings.TrimPrefix(line, "\xef\xbb\xbf")
	cr := csv.NewReader(strings.NewReader(line))
	switch {
	case strings.Contains(line, ","):
	case strings.Contains(line, "\t"):
		cr.Comma = '\t'
	case strings.Contains(line, ";"):
		cr.Comma = ';'
	}
	cr.TrimLeadingSpace = true
	rec, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("cannot read the header: %w", err)
	}
	for i := range rec {
		rec[i] = strings.TrimSpace(rec[i])
	}
	return rec, nil
}

// mulanLabels reads the label names of a Mulan XML label file
// (<labels><label name="…"/>…</labels>, labels nested in hierarchies
// included).
func mulanLabels(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type label struct {
		Name     string  `xml:"name,attr"`
		Children []label `xml:"label"`
	}
	var doc struct {
		XMLName xml.Name
		Labels  []label `xml:"label"`
	}
	if err := xml.NewDecoder(io.LimitReader(f, 16<<20)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a Mulan label file: %w", err)
	}
	var names []string
	var walk func([]label)
	walk = func(ls []label) {
		for _, l := range ls {
			if l.Name != "" {
				names = append(names, l.Name)
			}
			walk(l.Children)
		}
	}
	walk(doc.Labels)
	if len(names) == 0 {
		return nil, errors.New("no <label name=…> in the file")
	}
	return names, nil
}

// nonFinitePath returns " at <path>" for the first NaN or ±Inf in v (a
// result about to be written as JSON), "" when it finds none.
func nonFinitePath(v any) string {
	var walk func(x reflect.Value, path string) string
	walk = func(x reflect.Value, path string) string {
		switch x.Kind() {
		case reflect.Pointer, reflect.Interface:
			if x.IsNil() {
				return ""
			}
			return walk(x.Elem(), path)
		case reflect.Float32, reflect.Float64:
			if f := x.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				return path
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < x.Len(); i++ {
				if p := walk(x.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
		case reflect.Map:
			keys := x.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
			for _, k := range keys {
				if p := walk(x.MapIndex(k), join(path, fmt.Sprint(k))); p != "" {
					return p
				}
			}
		case reflect.Struct:
			t := x.Type()
			for i := 0; i < x.NumField(); i++ {
				if !t.Field(i).IsExported() {
					continue
				}
				name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
				if name == "" {
					name = t.Field(i).Name
				}
				if p := walk(x.Field(i), join(path, name)); p != "" {
					return p
				}
			}
		}
		return ""
	}
	if p := walk(reflect.ValueOf(v), ""); p != "" {
		return " at " + p
	}
	return ""
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
