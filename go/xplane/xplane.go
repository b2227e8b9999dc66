// Package xplane writes tensorflow.profiler.XSpace protobufs, the trace
// format JAX's profiler (jax.profiler.trace) collects from PJRT plugins and
// TensorBoard and Perfetto open. Only what gojax emits is modelled.
//
// Field numbers (xplane.proto):
//
//	XSpace         { repeated XPlane planes = 1 }
//	XPlane         { int64 id = 1; string name = 2; repeated XLine lines = 3;
//	                 map<int64, XEventMetadata> event_metadata = 4;
//	                 map<int64, XStatMetadata> stat_metadata = 5 }
//	XLine          { int64 id = 1; string name = 2; int64 timestamp_ns = 3;
//	                 repeated XEvent events = 4; int64 duration_ps = 9;
//	                 int64 display_id = 10; string display_name = 11 }
//	XEvent         { int64 metadata_id = 1; int64 offset_ps = 2;
//	                 int64 duration_ps = 3; repeated XStat stats = 4 }
//	XStat          { int64 metadata_id = 1; uint64 uint64_value = 3;
//	                 string str_value = 5 }
//	XEventMetadata { int64 id = 1; string name = 2; string display_name = 4 }
//	XStatMetadata  { int64 id = 1; string name = 2 }
package xplane

import "encoding/binary"

// Space is an XSpace.
type Space struct{ Planes []*Plane }

// Plane is an XPlane. Event and stat metadata are interned by name: use
// EventMetadata and StatMetadata to get their ids.
type Plane struct {
	ID    int64
	Name  string
	Lines []*Line

	events   []string // event metadata id i+1 has name events[i]
	eventIDs map[string]int64
	stats    []string
	statIDs  map[string]int64
}

// Line is an XLine: one timeline row.
type Line struct {
	ID          int64
	Name        string
	TimestampNS int64 // start of the line, ns since the Unix epoch
	DurationPS  int64
	Events      []Event
}

// Event is an XEvent; OffsetPS is relative to its line's TimestampNS.
type Event struct {
	MetadataID int64
	OffsetPS   int64
	DurationPS int64
	Stats      []Stat
}

// Stat is an XStat holding a string or an unsigned value.
type Stat struct {
	MetadataID int64
	Str        string
	Uint       uint64
	IsStr      bool
}

// StrStat and UintStat build stats.
func StrStat(id int64, s string) Stat  { return Stat{MetadataID: id, Str: s, IsStr: true} }
func UintStat(id int64, v uint64) Stat { return Stat{MetadataID: id, Uint: v} }

// EventMetadata returns the id of the event metadata named name, adding it.
func (p *Plane) EventMetadata(name string) int64 {
	return intern(&p.events, &p.eventIDs, name)
}

// StatMetadata returns the id of the stat metadata named name, adding it.
func (p *Plane) StatMetadata(name string) int64 {
	return intern(&p.stats, &p.statIDs, name)
}

func intern(names *[]string, ids *map[string]int64, name string) int64 {
	if *ids == nil {
		*ids = map[string]int64{}
	}
	if id, ok := (*ids)[name]; ok {
		return id
	}
	*names = append(*names, name)
	id := int64(len(*names)) // ids start at 1: 0 reads as "unset"
	(*ids)[name] = id
	return id
}

// Marshal encodes the space in protobuf wire format.
func (s *Space) Marshal() []byte {
	var b []byte
	for _, p := range s.Planes {
		b = appendMsg(b, 1, p.marshal())
	}
	return b
}

func (p *Plane) marshal() []byte {
	var b []byte
	b = appendInt(b, 1, p.ID)
	b = appendStr(b, 2, p.Name)
	for _, l := range p.Lines {
		b = appendMsg(b, 3, l.marshal())
	}
	for i, name := range p.events {
		var md []byte
		md = appendInt(md, 1, int64(i+1))
		md = appendStr(md, 2, name)
		md = appendStr(md, 4, name)
		b = appendMsg(b, 4, mapEntry(int64(i+1), md))
	}
	for i, name := range p.stats {
		var md []byte
		md = appendInt(md, 1, int64(i+1))
		md = appendStr(md, 2, name)
		b = appendMsg(b, 5, mapEntry(int64(i+1), md))
	}
	return b
}

// mapEntry is a map<int64, message> entry: key = 1, value = 2.
func mapEntry(key int64, value []byte) []byte {
	var e []byte
	e = appendInt(e, 1, key)
	return appendMsg(e, 2, value)
}

func (l *Line) marshal() []byte {
	var b []byte
	b = appendInt(b, 1, l.ID)
	b = appendStr(b, 2, l.Name)
	b = appendInt(b, 3, l.TimestampNS)
	for i := range l.Events {
		b = appendMsg(b, 4, l.Events[i].marshal())
	}
	b = appendInt(b, 9, l.DurationPS)
	b = appendInt(b, 10, l.ID)
	b = appendStr(b, 11, l.Name)
	return b
}

func (e *Event) marshal() []byte {
	var b []byte
	b = appendInt(b, 1, e.MetadataID)
	// offset_ps is in a oneof: written even when zero, so it is set.
	b = appendTag(b, 2, 0)
	b = binary.AppendUvarint(b, uint64(e.OffsetPS))
	b = appendInt(b, 3, e.DurationPS)
	for _, s := range e.Stats {
		b = appendMsg(b, 4, s.marshal())
	}
	return b
}

func (s *Stat) marshal() []byte {
	var b []byte
	b = appendInt(b, 1, s.MetadataID)
	if s.IsStr {
		b = appendTag(b, 5, 2)
		b = binary.AppendUvarint(b, uint64(len(s.Str)))
		return append(b, s.Str...)
	}
	b = appendTag(b, 3, 0)
	return binary.AppendUvarint(b, s.Uint)
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// appendInt writes an int64 field (proto3: zero is the default, omitted).
func appendInt(b []byte, field int, v int64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, field, 0)
	return binary.AppendUvarint(b, uint64(v))
}

func appendStr(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, field, 2)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendMsg(b []byte, field int, m []byte) []byte {
	b = appendTag(b, field, 2)
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}
