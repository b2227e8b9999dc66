package pyapi

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

var interopSink [][]int32

func TestArrowExportImportHandles(t *testing.T) {
	data := make([]int32, 6)
	interopSink = append(interopSink, data) // on the heap: exported memory must not move
	ptr := uintptr(unsafe.Pointer(&data[0]))
	arr, sc := ArrowNewArray(), ArrowNewSchema()
	defer ArrowFreeArray(arr)
	defer ArrowFreeSchema(sc)
	require.NoError(t, ArrowExportArray(arr, sc, ptr, "int32", "2,3", 1, 0))

	live := ArrowLiveImports()
	h, err := ArrowImport(arr, sc, false, 0)
	require.NoError(t, err)
	require.Equal(t, live+1, ArrowLiveImports())
	require.Equal(t, ptr, ArrowImportData(h))
	require.Equal(t, "int32", ArrowImportDType(h))
	require.Equal(t, "2,3", ArrowImportShape(h))
	require.False(t, ArrowImportCopied(h))
	ArrowImportRelease(h)
	ArrowImportRelease(h) // unknown handles are ignored
	require.Equal(t, live, ArrowLiveImports())
	require.Equal(t, "", ArrowImportDType(h))
}

func TestArrowImportErrorKinds(t *testing.T) {
	arr, sc := ArrowNewArray(), ArrowNewSchema()
	defer ArrowFreeArray(arr)
	defer ArrowFreeSchema(sc)
	_, err := ArrowImport(arr, sc, false, 0) // released structs
	require.ErrorContains(t, err, "released")
	require.NotContains(t, err.Error(), "Error: ")
}
