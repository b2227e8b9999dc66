package mlirbc

// readStrings decodes the string section: a count, the sizes in reverse
// order (each including the NUL), then the NUL-terminated strings.
func (f *File) readStrings() error {
	s := f.sections[SectionString]
	r := s.reader()
	n, err := r.Count(2) // each string needs a size byte and a NUL
	if err != nil {
		return err
	}
	sizes := make([]uint64, n)
	for i := n - 1; i >= 0; i-- {
		if sizes[i], err = r.VarInt(); err != nil {
			return err
		}
	}
	f.Strings = make([]string, n)
	// One copy of the whole section; each string is a slice of it.
	all := string(r.data[r.pos:])
	start := r.pos
	for i := 0; i < n; i++ {
		if sizes[i] == 0 {
			return r.Errorf("string %d has size 0 (no room for its NUL)", i)
		}
		b, err := r.Bytes(sizes[i])
		if err != nil {
			return err
		}
		if b[len(b)-1] != 0 {
			return r.Errorf("string %d is not NUL-terminated", i)
		}
		lo := r.pos - len(b) - start
		f.Strings[i] = all[lo : lo+len(b)-1]
	}
	if !r.Empty() {
		return r.Errorf("%d trailing bytes after the strings", r.Len())
	}
	return nil
}
