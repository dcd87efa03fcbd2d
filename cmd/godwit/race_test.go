//go:build race

package main

// raceEnabled: the tests run under the race detector. Tests whose work is
// in other processes (the cluster's) gain nothing from it and run once,
// without it.
const raceEnabled = true
