//go:build race

// Package racedetect says whether the race detector is built in: under it,
// sync.Pool drops items at random, so allocation counts mean nothing.
package racedetect

// Enabled is true in -race builds.
const Enabled = true
