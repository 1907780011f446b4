// Package models is the root of LUPI Lab's numerics. It holds no code itself;
// the sub-packages do:
//
//   - data: the Dataset type, file readers/writers, splits, scaling, generators
//   - model: the model registry, parameter specs, fitted-model contracts,
//     multi-class wrappers and model (de)serialisation
//   - kernel, solver/...: kernels and the solvers every model calls
//   - svm, svmplus, gp, joint, twin, multiview: the models of the four papers
//     and their baselines
//   - all: imports every model package so that its specs are registered
//
// Nothing under models imports syscall/js or go-app: it builds natively and
// for GOOS=js GOARCH=wasm alike.
package models
