//go:build race

package compiler

// raceOn: the race detector makes sync.Pool drop items at random, so
// allocation counts mean nothing under -race.
const raceOn = true
