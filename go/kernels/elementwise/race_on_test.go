//go:build race

package elementwise

// raceOn: the race detector makes sync.Pool drop items at random, so
// allocation counts mean nothing under -race.
const raceOn = true
