package svm

import (
	"context"
	"fmt"
	"testing"

	"lupilab/models/kernel"
	"lupilab/models/model"
)

// BenchmarkTrain trains an RBF C-SVM on the noisy 10-D problem (as
// scripts/bench-svm.sh does against svm-train).
func BenchmarkTrain(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		X, y := noisy(42, n, 10, 0.8)
		for _, single := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/float32=%v", n, single), func(b *testing.B) {
				p := Params{Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.1}, C: 1, Eps: 1e-3, Shrinking: true, CacheMB: 100, Float32: single}
				for i := 0; i < b.N; i++ {
					if _, err := Train(context.Background(), X, y, p, model.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
