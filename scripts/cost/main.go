// Command cost measures what fits cost and calibrates the catalogue's cost
// model (models/spec/cost.go, coefficients in models/spec/costs.go).
//
//	go run ./scripts/cost calibrate [-budget S] [-max-n N] [-models a,b] [-save F.jsonl] [-in F.jsonl] [-w models/spec/costs.go]
//	    Fits every model (each in a fresh process, one thread) on generated
//	    data at doubling sizes until a fit takes more than -budget CPU
//	    seconds, fits each model's formula by least squares on relative
//	    errors, prints the fit quality and the coefficients as Go source
//	    (-w writes costs.go). -in refits saved measurements without
//	    measuring.
//	go run ./scripts/cost table [-budget S] [-models a,b]      (make cost-table)
//	    Predicted against measured time and memory for every model on every
//	    shipped dataset it suits and on its default generated set.
//	go run ./scripts/cost wasm [-repeats R]
//	    The same fits natively and as WebAssembly under Node.js: the
//	    median ratio is spec.WasmFactor.
//	go run ./scripts/cost penalty [-n N] [-noise X] [-ratios 10,100,1000] [-models a,b] [-w models/spec/penalties.go]
//	    How each model's time grows with its penalty parameters (C…) on
//	    heavily overlapping classes; fits the factor spec.Penalty (-w
//	    writes penalties.go).
//	go run ./scripts/cost measure -model ID -data SRC [-n N] [-set k=v]…
//	    One fit in this process: a JSON line of its shape, CPU and wall
//	    seconds and peak resident memory (what the others run in children).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cost measure|calibrate|table|wasm|penalty …")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "calibrate":
		err = calibrateMain(os.Args[2:])
	case "table":
		err = tableMain(os.Args[2:])
	case "wasm":
		err = wasmMain(os.Args[2:])
	case "measure":
		err = measureMain(os.Args[2:])
	case "penalty":
		err = penaltyMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}
