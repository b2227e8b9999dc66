package engine

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/gojax/gojax/go/kernels/kernel"
	"github.com/stretchr/testify/require"
)

func TestInstallHostCallbacks(t *testing.T) {
	callables := []uintptr{0x10, 0x20, 0x30}
	jaxStruct := struct {
		callbacks *uintptr
		num       uint32
	}{&callables[0], 3}
	empty := struct {
		callbacks *uintptr
		num       uint32
	}{nil, 0}

	tests := []struct {
		name    string
		data    []UserData
		want    []uintptr
		wantErr string
	}{
		{"none attached", nil, nil, "attached none"},
		{"only unusable entries", []UserData{{TypeID: 1}, {TypeID: 2, Data: unsafe.Pointer(&empty)}}, nil, "attached none"},
		{"found after other entries", []UserData{{TypeID: 1}, {TypeID: 7, Data: unsafe.Pointer(&jaxStruct)}}, callables, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var table kernel.HostCallbacks
			table.Require(0)
			err := installHostCallbacks(&table, tt.data)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			for i, want := range tt.want {
				got, ok := table.At(uint64(i))
				require.True(t, ok)
				require.Equal(t, want, got)
			}
			_, ok := table.At(uint64(len(tt.want)))
			require.False(t, ok)
		})
	}
}

// A program whose FFI handlers read user data but which calls no host
// callback takes whatever the framework attached, including nothing.
func TestInstallUserDataWithoutCallbacks(t *testing.T) {
	var table kernel.HostCallbacks
	table.RequireUserData()
	require.True(t, table.Used())
	require.False(t, table.CallbacksUsed())
	x := 5
	data := []UserData{{TypeID: 3, Data: unsafe.Pointer(&x)}}
	require.NoError(t, installHostCallbacks(&table, data))
	require.Equal(t, data, table.UserData())
	require.NoError(t, installHostCallbacks(&table, nil))
	require.Empty(t, table.UserData())
}

func TestSyncRunErrorDeletesOutputsOfAFailedRun(t *testing.T) {
	c := newTestClient(t, 1)
	ok := hostF32(t, c, 1, 2)
	require.NoError(t, syncRunError([][]*Buffer{{ok}}, []*Event{DoneEvent(nil)}))
	require.False(t, ok.IsDeleted())

	out := hostF32(t, c, 3, 4)
	boom := errors.New("callback raised")
	err := syncRunError([][]*Buffer{{ok}, {out}}, []*Event{DoneEvent(nil), DoneEvent(boom)})
	require.ErrorIs(t, err, boom)
	require.True(t, ok.IsDeleted())
	require.True(t, out.IsDeleted())
}
