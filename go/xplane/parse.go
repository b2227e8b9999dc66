package xplane

import (
	"encoding/binary"
	"fmt"
)

// Parse decodes what Marshal writes (the fields modelled here; others are
// skipped), so traces can be checked without the protobuf runtime.
func Parse(b []byte) (*Space, error) {
	s := &Space{}
	err := fields(b, func(f int, v uint64, m []byte) error {
		if f == 1 {
			p, err := parsePlane(m)
			if err != nil {
				return err
			}
			s.Planes = append(s.Planes, p)
		}
		return nil
	})
	return s, err
}

// EventName and StatName resolve metadata ids ("" when unknown).
func (p *Plane) EventName(id int64) string { return name(p.events, id) }
func (p *Plane) StatName(id int64) string  { return name(p.stats, id) }

func name(names []string, id int64) string {
	if id < 1 || id > int64(len(names)) {
		return ""
	}
	return names[id-1]
}

func parsePlane(b []byte) (*Plane, error) {
	p := &Plane{}
	events, stats := map[int64]string{}, map[int64]string{}
	err := fields(b, func(f int, v uint64, m []byte) error {
		switch f {
		case 1:
			p.ID = int64(v)
		case 2:
			p.Name = string(m)
		case 3:
			l, err := parseLine(m)
			if err != nil {
				return err
			}
			p.Lines = append(p.Lines, l)
		case 4, 5:
			var id int64
			var name string
			err := fields(m, func(f int, v uint64, m []byte) error {
				if f == 2 {
					return fields(m, func(f int, v uint64, m []byte) error {
						switch f {
						case 1:
							id = int64(v)
						case 2:
							name = string(m)
						}
						return nil
					})
				}
				return nil
			})
			if err != nil {
				return err
			}
			if f == 4 {
				events[id] = name
			} else {
				stats[id] = name
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range []struct {
		m     map[int64]string
		names *[]string
		ids   *map[string]int64
	}{{events, &p.events, &p.eventIDs}, {stats, &p.stats, &p.statIDs}} {
		*t.names = make([]string, len(t.m))
		*t.ids = map[string]int64{}
		for id, n := range t.m {
			if id < 1 || id > int64(len(t.m)) {
				return nil, fmt.Errorf("xplane: metadata id %d out of 1..%d", id, len(t.m))
			}
			(*t.names)[id-1], (*t.ids)[n] = n, id
		}
	}
	return p, nil
}

func parseLine(b []byte) (*Line, error) {
	l := &Line{}
	err := fields(b, func(f int, v uint64, m []byte) error {
		switch f {
		case 1:
			l.ID = int64(v)
		case 2:
			l.Name = string(m)
		case 3:
			l.TimestampNS = int64(v)
		case 9:
			l.DurationPS = int64(v)
		case 4:
			var e Event
			err := fields(m, func(f int, v uint64, m []byte) error {
				switch f {
				case 1:
					e.MetadataID = int64(v)
				case 2:
					e.OffsetPS = int64(v)
				case 3:
					e.DurationPS = int64(v)
				case 4:
					var s Stat
					if err := fields(m, func(f int, v uint64, m []byte) error {
						switch f {
						case 1:
							s.MetadataID = int64(v)
						case 3:
							s.Uint = v
						case 5:
							s.Str, s.IsStr = string(m), true
						}
						return nil
					}); err != nil {
						return err
					}
					e.Stats = append(e.Stats, s)
				}
				return nil
			})
			if err != nil {
				return err
			}
			l.Events = append(l.Events, e)
		}
		return nil
	})
	return l, err
}

// fields walks a message: varints give v, length-delimited fields m.
func fields(b []byte, visit func(field int, v uint64, m []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("xplane: bad field key")
		}
		b = b[n:]
		var v uint64
		var m []byte
		switch key & 7 {
		case 0:
			if v, n = binary.Uvarint(b); n <= 0 {
				return fmt.Errorf("xplane: bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return fmt.Errorf("xplane: truncated fixed64")
			}
			v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return fmt.Errorf("xplane: truncated field")
			}
			m, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return fmt.Errorf("xplane: truncated fixed32")
			}
			v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return fmt.Errorf("xplane: unsupported wire type %d", key&7)
		}
		if err := visit(int(key>>3), v, m); err != nil {
			return err
		}
	}
	return nil
}
