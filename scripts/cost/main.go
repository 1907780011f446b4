// Command cost measures what fits cost and calibrates the catalogue's cost
// model (models/spec/cost.go).
//
//	go run ./scripts/cost measure -model ID -data SRC [-n N] [-set k=v]…
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cost measure|calibrate|table|wasm …")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "calibrate":
		err = calibrateMain(os.Args[2:])
	case "measure":
		err = measureMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}
