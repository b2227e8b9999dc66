//go:build !race

package compiler

const raceOn = false
