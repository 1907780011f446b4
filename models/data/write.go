package data

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// WriteCSV writes a dataset as CSV with a header that ReadCSV maps back to
// the same roles: main columns are named "x_…", second-block columns "z_…",
// tags "tag_…" (a prefix is added when a name lacks it) and the class column
// "y" comes last. Numbers are written with the fewest digits that read back
// to the same float64.
func WriteCSV(w io.Writer, ds *Dataset) error {
	return WriteCSVDigits(w, ds, -1)
}

// WriteCSVDigits is WriteCSV with numbers rounded to the given number of
// significant digits (-1: exact round trip).
func WriteCSVDigits(w io.Writer, ds *Dataset, digits int) error {
	if err := ds.Validate(); err != nil {
		return err
	}
	n, dx, dz, nt := ds.Rows(), ds.Dim(), ds.ZDim(), ds.NumTags()
	header := make([]string, 0, dx+dz+nt+1)
	header = append(header, prefixed("x_", ds.XNames, dx)...)
	header = append(header, prefixed("z_", ds.ZNames, dz)...)
	header = append(header, prefixed("tag_", ds.TagNames, nt)...)
	if ds.Y != nil {
		header = append(header, "y")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	format := func(v float64) string {
		if v == 0 {
			return "0"
		}
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	for i := 0; i < n; i++ {
		k := 0
		for j := 0; j < dx; j++ {
			rec[k] = format(ds.X.At(i, j))
			k++
		}
		for j := 0; j < dz; j++ {
			rec[k] = format(ds.Z.At(i, j))
			k++
		}
		for j := 0; j < nt; j++ {
			rec[k] = format(ds.Tags.At(i, j))
			k++
		}
		if ds.Y != nil {
			rec[k] = ds.Classes[ds.Y[i]]
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// prefixed returns column names carrying the role prefix, numbering columns
// without a name. Names made equal by prefixing are disambiguated.
func prefixed(prefix string, names []string, d int) []string {
	out := make([]string, d)
	seen := map[string]bool{}
	for j := 0; j < d; j++ {
		name := ""
		if j < len(names) {
			name = strings.TrimSpace(names[j])
		}
		if name == "" {
			name = strconv.Itoa(j + 1)
		}
		if !strings.HasPrefix(strings.ToLower(name), prefix) {
			name = prefix + name
		}
		base := name
		for k := 2; seen[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		seen[name] = true
		out[j] = name
	}
	return out
}

// UnprefixNames undoes WriteCSV's role prefixes on a dataset read back from
// it: "x_f1" is named "f1" again, while a numbered column ("x_3") and a
// name that is only the prefix keep theirs. Names that would then clash
// keep their prefix.
func UnprefixNames(ds *Dataset) {
	ds.XNames = unprefixed("x_", ds.XNames)
	ds.ZNames = unprefixed("z_", ds.ZNames)
	ds.TagNames = unprefixed("tag_", ds.TagNames)
}

func unprefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for j, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		if _, err := strconv.Atoi(rest); !ok || rest == "" || err == nil {
			rest = name
		}
		out[j] = rest
		seen[rest] = true
	}
	if len(seen) < len(names) {
		return names
	}
	return out
}
