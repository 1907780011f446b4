//go:build js && wasm

// Command wasm is the Go side of the in-browser SMO benchmark: it exposes
// lupiTrain(xBytes, yBytes, n, d, C, gamma, eps, cacheMB) to the page, which
// trains LUPI Lab's RBF C-SVM (lupilab/models/svm) on the given data, the
// same way the app does, and returns {nsv, obj, iter, converged}.
package main

import (
	"context"
	"encoding/binary"
	"math"
	"syscall/js"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/svm"
)

func floats(v js.Value, n int) []float64 {
	b := make([]byte, 8*n)
	js.CopyBytesToGo(b, v)
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func main() {
	js.Global().Set("lupiTrain", js.FuncOf(func(_ js.Value, a []js.Value) any {
		n, d := a[2].Int(), a[3].Int()
		X := mat.NewDense(n, d, floats(a[0], n*d))
		y := floats(a[1], n)
		p := svm.Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: a[5].Float()}, C: a[4].Float(),
			Eps: a[6].Float(), CacheMB: a[7].Float(), Shrinking: true, Float32: true}
		m, err := svm.Train(context.Background(), X, y, p, model.Options{})
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		r := m.Report()
		return map[string]any{"nsv": r.NSupport, "obj": r.Objective, "iter": r.Iterations, "converged": r.Converged}
	}))
	js.Global().Set("lupiReady", true)
	select {}
}
