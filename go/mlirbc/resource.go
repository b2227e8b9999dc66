package mlirbc

// Resource kinds (AsmResourceEntryKind).
const (
	ResourceBlob   = 0
	ResourceBool   = 1
	ResourceString = 2
)

// Resource is one dialect resource entry. Dialect resources are numbered in
// file order; DenseResourceElementsAttr handles index this list.
type Resource struct {
	Group    string // dialect name, or external group key
	External bool
	Key      string
	Kind     byte
	Blob     []byte // kind Blob: the data (alignment already skipped)
	Align    uint64
	Bool     bool
	String   string
}

func (f *File) readResources() error {
	rs, ro := f.sections[SectionResource], f.sections[SectionResourceOffset]
	if rs == nil {
		return nil
	}
	data := rs.reader()
	r := ro.reader()
	nExt, err := r.Count(1)
	if err != nil {
		return err
	}
	group := func(name string, external bool) error {
		n, err := r.Count(3) // key, size, kind
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			key, err := f.ReadString(r)
			if err != nil {
				return err
			}
			size, err := r.VarInt()
			if err != nil {
				return err
			}
			kind, err := r.Byte()
			if err != nil {
				return err
			}
			er, err := data.Sub(size, "resource")
			if err != nil {
				return err
			}
			res := Resource{Group: name, External: external, Key: key, Kind: kind}
			if !external {
				if err := f.decodeResource(er, &res); err != nil {
					return err
				}
			}
			if !external {
				f.Resources = append(f.Resources, res)
			}
		}
		return nil
	}
	for i := 0; i < nExt; i++ {
		key, err := f.ReadString(r)
		if err != nil {
			return err
		}
		if err := group(key, true); err != nil {
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
		if err := group(f.Dialects[d].Name, false); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) decodeResource(r *Reader, res *Resource) error {
	if r.Empty() {
		return nil // declaration only
	}
	var err error
	switch res.Kind {
	case ResourceBlob:
		if res.Align, err = r.VarInt(); err != nil {
			return err
		}
		size, err := r.VarInt()
		if err != nil {
			return err
		}
		if err := r.AlignTo(res.Align); err != nil {
			return err
		}
		if res.Blob, err = r.Bytes(size); err != nil {
			return err
		}
	case ResourceBool:
		b, err := r.Byte()
		if err != nil {
			return err
		}
		res.Bool = b != 0
	case ResourceString:
		if res.String, err = f.ReadString(r); err != nil {
			return err
		}
	default:
		return r.Errorf("unknown resource kind %d for %q", res.Kind, res.Key)
	}
	if !r.Empty() {
		return r.Errorf("%d trailing bytes in resource %q", r.Len(), res.Key)
	}
	return nil
}
