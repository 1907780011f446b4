//go:build !unix

package main

func addressSpaceLimit() float64 { return 0 }
