// Package multiview holds the two-view kernel classifiers that paper 001
// (Xu & Wang, "Multi-view learning with privileged weighted twin support
// vector machine", MPWTSVM) compares against, and the `lupi experiment
// mpwtsvm` reproduction of its Table 3:
//
//   - svm2k  — SVM-2K (Farquhar, Hardoon, Meng, Shawe-Taylor & Szedmak, NIPS 2005)
//   - mvtsvm — multi-view twin SVM (Xie & Sun, Intelligent Data Analysis 19(4), 2015)
//   - psvm2v — multi-view privileged SVM (Tang, Tian, Zhang & Liu, IEEE TNNLS 29(8), 2018;
//     paper 001 eq (6))
//   - mcpk   — coupling privileged kernel method (Tang, Tian, Liu & Kou, Information
//     Sciences 481, 2019)
//
// Every model reads view A from Dataset.X and view B from Dataset.Z, at
// training and at test time (model.ZView). Each exposes per-view decisions
// ("A", "B") through model.MultiView and a "rule" parameter choosing the
// decision it reports: sign(f_A), sign(f_B) or sign(½(f_A + f_B)).
//
// The models only build the matrices of their duals; the dense convex QP
// solver (models/solver/qp) solves them. Where a paper leaves a detail open
// the choice is documented next to the code that makes it.
package multiview
