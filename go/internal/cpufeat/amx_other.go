//go:build amd64 && !linux && !purego

package cpufeat

// requestAMX: tiles are used only on Linux, the one OS whose permission
// protocol gojax implements.
func requestAMX() bool { return false }
