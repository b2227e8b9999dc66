package xplane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMarshalRoundTrip(t *testing.T) {
	p := &Plane{ID: 7, Name: "/device:CUSTOM:test"}
	run, src := p.StatMetadata("run"), p.StatMetadata("source")
	require.Equal(t, run, p.StatMetadata("run"), "stat metadata is interned")
	exec, op := p.EventMetadata("jit_f"), p.EventMetadata("stablehlo.add")
	require.Equal(t, int64(1), exec, "ids start at 1")
	p.Lines = []*Line{{ID: 1, Name: "lane", TimestampNS: 1_700_000_000_000_000_000, DurationPS: 5000, Events: []Event{
		{MetadataID: exec, OffsetPS: 0, DurationPS: 5000, Stats: []Stat{UintStat(run, 3)}},
		{MetadataID: op, OffsetPS: 1000, DurationPS: 2000, Stats: []Stat{UintStat(run, 3), StrStat(src, "m.py:3:1")}},
	}}}
	got, err := Parse((&Space{Planes: []*Plane{p}}).Marshal())
	require.NoError(t, err)
	require.Len(t, got.Planes, 1)
	g := got.Planes[0]
	require.Equal(t, int64(7), g.ID)
	require.Equal(t, p.Name, g.Name)
	require.Equal(t, p.Lines, g.Lines)
	require.Equal(t, "jit_f", g.EventName(exec))
	require.Equal(t, "stablehlo.add", g.EventName(op))
	require.Equal(t, "source", g.StatName(src))
	require.Equal(t, "", g.EventName(99))
}

func TestWireBytes(t *testing.T) {
	// XSpace{planes: [XPlane{name: "p"}]}: field 1 (len 3) holding field 2 "p".
	require.Equal(t, []byte{0x0a, 0x03, 0x12, 0x01, 'p'}, (&Space{Planes: []*Plane{{Name: "p"}}}).Marshal())
	// An event at offset 0 still writes offset_ps (a oneof member): 0x10 0x00.
	e := Event{MetadataID: 1}
	require.Equal(t, []byte{0x08, 0x01, 0x10, 0x00}, e.marshal())
}

func TestParseRejectsTruncated(t *testing.T) {
	b := (&Space{Planes: []*Plane{{Name: "plane"}}}).Marshal()
	_, err := Parse(b[:len(b)-2])
	require.Error(t, err)
}
