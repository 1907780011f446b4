// Package models is the root of LUPI Lab's numerics. It holds no code itself;
// the sub-packages do:
//
//   - data: the Dataset type, file readers/writers, splits, scaling, generators
//   - spec: the model catalogue — every model's metadata (paper, equations,
//     parameters with ranges and help, the outputs its fits report), standard
//     library only, so the browser's UI build carries it without numerics
//   - model: binds implementations to the catalogue (model.Register), the
//     fitted-model contracts, multi-class wrappers and model (de)serialisation
//   - kernel, solver/...: kernels and the solvers every model calls;
//     solver/decomp is the decomposition engine (the loop, the row cache,
//     the Newton polish) under smo (SVM-form duals) and gsmo (SVM1+)
//   - svm, svmplus, gp, joint, twin, multiview: the models of the four papers
//     and their baselines
//   - all: imports every model package so that its implementations are
//     registered; its tests check the catalogue and the implementations agree
//
// Caches that fits on the same data share (kernel rows, SVM2+'s Qλ) belong
// to a model.Workspace that the caller creates and passes in model.Options
// (one per one-vs-rest family, experiment or grid search), not to package
// variables.
//
// Nothing under models imports syscall/js or go-app: it builds natively and
// for GOOS=js GOARCH=wasm alike.
package models
