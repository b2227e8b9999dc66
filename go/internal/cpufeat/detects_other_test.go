//go:build !amd64 || purego

package cpufeat

const detects = false
