package arrowx

/*
#include <stdlib.h>
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/cdata"
)

// Errors Import wraps, so callers can tell a type mismatch (ErrType) and
// unfilled nulls (ErrNulls) from malformed input.
var (
	ErrType  = errors.New("no JAX dtype")
	ErrNulls = errors.New("unfilled nulls")
)

// Alignment of the copies Import makes (gojax's allocator alignment, at which
// the runtime aliases host memory).
const Alignment = 64

// Imported is a dense tensor read from an Arrow array: either the producer's
// memory itself (Copied false; the producer's array is held until Release) or
// one copy in C memory that Import made (nulls filled, booleans unpacked).
type Imported struct {
	DType  string
	Shape  []int64
	Data   uintptr // address of element 0; 0 when the tensor is empty
	Copied bool

	arr  arrow.Array
	copy unsafe.Pointer
	once sync.Once
}

// Release lets go of the producer's array (its release callback runs now if
// nothing else holds it) or frees the copy. It is safe to call more than once.
func (im *Imported) Release() {
	im.once.Do(func() {
		if im.arr != nil {
			im.arr.Release()
			im.arr = nil
		}
		if im.copy != nil {
			C.free(im.copy)
			im.copy = nil
		}
	})
}

// layout returns the dtype of an imported field and, for tensors, the shape of
// one row: a fixed_size_list<T>[n] is rows of n; the fixed-shape tensor
// extension (which v15's cdata imports as its storage plus metadata) is rows
// of its shape.
func layout(field arrow.Field) (dtype string, row []int64, err error) {
	value := field.Type
	if name, ok := field.Metadata.GetValue("ARROW:extension:name"); ok {
		if name != ExtensionName {
			return "", nil, fmt.Errorf("arrowx: Arrow extension type %q has %w", name, ErrType)
		}
		meta, _ := field.Metadata.GetValue("ARROW:extension:metadata")
		ext, err := (*TensorType)(nil).Deserialize(field.Type, meta)
		if err != nil {
			return "", nil, err
		}
		tt := ext.(*TensorType)
		value, row = tt.value(), tt.Shape
	} else if fsl, ok := field.Type.(*arrow.FixedSizeListType); ok {
		value, row = fsl.Elem(), []int64{int64(fsl.Len())}
	}
	dtype, ok := dtypeOf(value)
	if !ok {
		return "", nil, fmt.Errorf("arrowx: Arrow type %s has %w", field.Type, ErrType)
	}
	return dtype, row, nil
}

// Import takes ownership of the ArrowArray at arrayAddr and releases the
// ArrowSchema at schemaAddr (both C Data Interface structs, moved in as
// cdata.ImportCArray does). A primitive array becomes a 1-D tensor, a
// fixed_size_list or fixed-shape tensor array an N-D one. Without nulls, and
// for every dtype but bool, the result aliases the producer's values. Nulls
// are an ErrNulls error unless fill is given: then the values are copied once
// and each null element (or element of a null row) becomes the low bytes of
// *fill (its little-endian bit pattern in the tensor's dtype).
func Import(arrayAddr, schemaAddr uintptr, fill *uint64) (*Imported, error) {
	if arrayAddr == 0 || schemaAddr == 0 {
		return nil, fmt.Errorf("arrowx: NULL ArrowArray or ArrowSchema")
	}
	if SchemaReleased(schemaAddr) || ArrayReleased(arrayAddr) {
		cdata.ReleaseCArrowSchema(cdata.SchemaFromPtr(schemaAddr))
		cdata.ReleaseCArrowArray(cdata.ArrayFromPtr(arrayAddr))
		return nil, fmt.Errorf("arrowx: the ArrowArray or ArrowSchema to import is released")
	}
	carr := cdata.ArrayFromPtr(arrayAddr)
	field, err := importField(schemaAddr)
	if err == nil {
		var dtype string
		var row []int64
		if dtype, row, err = layout(field); err == nil {
			var a arrow.Array
			if a, err = cdata.ImportCArrayWithType(carr, field.Type); err == nil {
				defer a.Release()
				return fromArray(a, dtype, row, fill)
			}
		}
	}
	cdata.ReleaseCArrowArray(carr) // never imported: the producer may free it now
	return nil, err
}

// importField is cdata.ImportCArrowField (which releases the schema, even when
// it panics), turning a panic into an error: Arrow Go v15 panics on types it
// cannot represent, such as fixed_size_list<T>[0].
func importField(schemaAddr uintptr) (field arrow.Field, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrowx: this Arrow type has %w: Arrow Go v15 cannot import it (%v)", ErrType, r)
		}
	}()
	return cdata.ImportCArrowField(cdata.SchemaFromPtr(schemaAddr))
}

func fromArray(a arrow.Array, dtype string, row []int64, fill *uint64) (*Imported, error) {
	rows := int64(a.Len())
	shape := append([]int64{rows}, row...)
	total, inner, err := checkShape(shape)
	if err != nil {
		return nil, err
	}
	values := a
	var list *array.FixedSizeList
	if l, ok := a.(*array.FixedSizeList); ok {
		list = l
		start := int64(l.Data().Offset()) * inner
		values = array.NewSlice(l.ListValues(), start, start+total)
		defer values.Release()
	}
	rowNulls := 0
	if list != nil {
		rowNulls = list.NullN()
	}
	if fill == nil && rowNulls > 0 {
		return nil, fmt.Errorf("arrowx: %w: the tensor array has %d null element(s); pass fill_value= to replace them (this copies)", ErrNulls, rowNulls)
	}
	if fill == nil && values.NullN() > 0 {
		return nil, fmt.Errorf("arrowx: %w: the array has %d null(s); JAX arrays cannot hold nulls: pass fill_value= to replace them (this copies)", ErrNulls, values.NullN())
	}
	im := &Imported{DType: dtype, Shape: shape}
	width := int64(1) // bool: one byte per element
	var src []byte
	if dt, ok := dtypes[dtype]; ok {
		width = byteWidth(dt)
		if total > 0 {
			src = values.Data().Buffers()[1].Bytes()[int64(values.Data().Offset())*width:][:total*width]
		}
	}
	if dtype != "bool" && rowNulls == 0 && values.NullN() == 0 {
		if total > 0 {
			im.Data = uintptr(unsafe.Pointer(&src[0]))
		}
		a.Retain()
		im.arr = a
		return im, nil
	}
	im.Copied = true
	if total == 0 {
		return im, nil
	}
	im.copy = C.aligned_alloc(Alignment, C.size_t((total*width+Alignment-1)/Alignment*Alignment))
	if im.copy == nil {
		return nil, fmt.Errorf("arrowx: out of memory copying %d bytes", total*width)
	}
	im.Data = uintptr(im.copy)
	dst := unsafe.Slice((*byte)(im.copy), total*width)
	if b, ok := values.(*array.Boolean); ok {
		for i := range dst {
			dst[i] = 0
			if b.Value(i) {
				dst[i] = 1
			}
		}
	} else {
		copy(dst, src)
	}
	var pattern [8]byte
	if fill != nil {
		binary.LittleEndian.PutUint64(pattern[:], *fill)
	}
	for i := int64(0); i < total; i++ {
		if values.IsNull(int(i)) || (rowNulls > 0 && list.IsNull(int(i/inner))) {
			copy(dst[i*width:(i+1)*width], pattern[:width])
		}
	}
	return im, nil
}
