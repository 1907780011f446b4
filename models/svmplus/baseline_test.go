package svmplus

// The tests compare SVM2+ and SVM1+ with the plain and the squared-hinge
// SVM of package svm, which registers them.
import _ "lupilab/models/svm"
