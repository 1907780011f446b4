package data_test

import (
	"fmt"
	"strings"

	"lupilab/models/data"
)

// ReadFile reads CSV, LIBSVM or ARFF by the file's extension. In a CSV
// header, "z_" columns are privileged information (the Z block) and the
// column named "label" (or "y") holds the classes, in order of first
// appearance.
func ExampleReadFile() {
	ds, err := data.ReadFile("testdata/good.csv", data.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.Rows(), "rows;", "X:", ds.XNames, "Z:", ds.ZNames, "classes:", ds.Classes, "kind:", ds.Kind)
	// Output: 4 rows; X: [x_a x_b] Z: [z_c] classes: [cat dog bird] kind: lupi
}

// Read takes the format by name; a bad value is a *data.ParseError with
// its line and column.
func ExampleRead() {
	_, err := data.Read(strings.NewReader("x_1,label\n1,a\nNaN,b\n"), "csv", data.ReadOptions{})
	fmt.Println(err)
	// Output: data: line 3, column 1: "NaN" is not a finite number (NaN and Inf are not allowed)
}
