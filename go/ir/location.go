package ir

import "fmt"

// Location is where an op came from. JAX records the Python file:line:col of
// the traced call and a name such as "jit(f)/jit(main)/add"; errors quote both.
//
// Ops and functions hold a *Location: the reader hands out one per location
// attribute, shared by every op that carries it, and a compiler pass may
// build an op with none (nil). The methods accept a nil receiver, which is
// the unknown location.
type Location struct {
	Name string
	File string
	Line int
	Col  int
}

// Known reports whether any part of the location is set.
func (l *Location) Known() bool { return l != nil && (l.Name != "" || l.File != "") }

func (l *Location) String() string {
	switch {
	case l == nil:
	case l.File != "" && l.Name != "":
		return fmt.Sprintf("%s (%s:%d:%d)", l.Name, l.File, l.Line, l.Col)
	case l.File != "":
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
	case l.Name != "":
		return l.Name
	}
	return "unknown location"
}
