package mlirbc

// properties is the offset table of the properties section (format >= 5):
// a count then count × (size varint, bytes).
type properties struct {
	blobs [][]byte
	offs  []int // absolute offset of each blob
}

func (f *File) readProperties() error {
	s := f.sections[SectionProperties]
	if s == nil || len(s.data) == 0 {
		f.properties = &properties{}
		return nil
	}
	r := s.reader()
	n, err := r.Count(1)
	if err != nil {
		return err
	}
	p := &properties{blobs: make([][]byte, n), offs: make([]int, n)}
	for i := 0; i < n; i++ {
		size, err := r.VarInt()
		if err != nil {
			return err
		}
		p.offs[i] = r.Offset()
		if p.blobs[i], err = r.Bytes(size); err != nil {
			return err
		}
	}
	if !r.Empty() {
		return r.Errorf("%d trailing bytes after %d property blobs", r.Len(), n)
	}
	f.properties = p
	return nil
}

// NumProperties is the number of property blobs.
func (f *File) NumProperties() int { return len(f.properties.blobs) }
