package engine

import "testing"

// BenchmarkInlineExecute is the runtime's share of one dispatch of a tiny
// program: Execute on the calling thread, then deleting the output as the
// framework does when it drops the result.
func BenchmarkInlineExecute(b *testing.B) {
	c := newTestClient(b, 1)
	e, err := NewExecutable(c, plannedProg{&fakeProg{n: 1}, 1}, []byte("code"), nil)
	if err != nil {
		b.Fatal(err)
	}
	x := hostF32(b, c, 1)
	args := [][]*Buffer{{x}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		outs, _, err := e.Execute(args, nil, ExecuteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		outs[0][0].Delete()
	}
}
