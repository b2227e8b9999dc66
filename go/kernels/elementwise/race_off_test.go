//go:build !race

package elementwise

const raceOn = false
