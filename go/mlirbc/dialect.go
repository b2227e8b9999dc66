package mlirbc

import "slices"

// Dialect is one dialect entry.
type Dialect struct {
	Name string
	// Version holds the dialect-defined version payload (format >= 1), or nil.
	Version []byte
}

// OpName is one operation-name entry.
type OpName struct {
	Dialect int    // index into File.Dialects
	Name    string // without the dialect prefix
	// Registered is whether the op was registered when written (format >= 5;
	// true for older files). Unregistered ops store properties as an attribute.
	Registered bool
	// FullName is "dialect.name".
	FullName string
}

func (f *File) readDialects() error {
	r := f.sections[SectionDialect].reader()
	n, err := r.Count(1)
	if err != nil {
		return err
	}
	f.Dialects = make([]Dialect, n)
	for i := range f.Dialects {
		if f.Version < VersionDialectVersioning {
			if f.Dialects[i].Name, err = f.ReadString(r); err != nil {
				return err
			}
			continue
		}
		idx, hasVersion, err := r.VarIntWithFlag()
		if err != nil {
			return err
		}
		if f.Dialects[i].Name, err = f.StringAt(r, idx); err != nil {
			return err
		}
		if hasVersion {
			s, err := readSection(r)
			if err != nil {
				return err
			}
			if s.id != SectionDialectVersions {
				return r.Errorf("expected a dialect version section, got %s", SectionName(s.id))
			}
			f.Dialects[i].Version = s.data
		}
	}
	if f.Version >= VersionElideUnknownBlockArgLoc {
		// Total op-name count: only a capacity hint, validated loosely.
		if _, err := r.VarInt(); err != nil {
			return err
		}
	}
	for !r.Empty() {
		d, err := r.VarInt()
		if err != nil {
			return err
		}
		if d >= uint64(len(f.Dialects)) {
			return r.Errorf("dialect index %d out of range (%d dialects)", d, len(f.Dialects))
		}
		cnt, err := r.Count(1)
		if err != nil {
			return err
		}
		f.OpNames = slices.Grow(f.OpNames, cnt) // cnt is bounded by the bytes left
		for j := 0; j < cnt; j++ {
			o := OpName{Dialect: int(d), Registered: true}
			if f.Version < VersionNativePropertiesEncoding {
				if o.Name, err = f.ReadString(r); err != nil {
					return err
				}
			} else {
				idx, reg, err := r.VarIntWithFlag()
				if err != nil {
					return err
				}
				if o.Name, err = f.StringAt(r, idx); err != nil {
					return err
				}
				o.Registered = reg
			}
			o.FullName = f.Dialects[o.Dialect].Name
			if o.Name != "" {
				o.FullName += "." + o.Name
			}
			f.OpNames = append(f.OpNames, o)
		}
	}
	return nil
}
