package capitest

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/stretchr/testify/require"
)

// exportFFICall has JAX (on its own CPU backend) export y = ffi(target)() + x
// over f32[1] as a portable artifact.
const exportFFICall = `
import sys, jax, jax.numpy as jnp
from jax import export
t = sys.argv[1]
f = lambda x: jax.ffi.ffi_call(t, jax.ShapeDtypeStruct((1,), jnp.float32))() + x
exp = export.export(jax.jit(f), platforms=["cpu"],
                    disabled_checks=[export.DisabledSafetyCheck.custom_call(t)])(jax.ShapeDtypeStruct((1,), jnp.float32))
sys.stdout.buffer.write(exp.mlir_module_serialized)
`

// TestFFIUserDataReachesHandlers registers an FFI handler through the PJRT
// FFI extension, attaches user data to an execute context as a framework
// does, and checks that the handler read it (XLA_FFI_InvokeContext_Get).
func TestFFIUserDataReachesHandlers(t *testing.T) {
	api, c, m, x := userDataProgram(t, "gojax_capitest_user_data")

	for _, v := range []float32{2.5, -7} {
		host := f32Mem(true, 1)
		arg, done, e := api.FromHost(c, m, host.P, typeF32, []int64{1}, nil, semDuringCall)
		require.Nil(t, e)
		require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
		data := f32Mem(true, v) // the framework's memory, never Go's
		var got []float32
		e = api.ExecuteWithUserData(x, []Buffer{arg}, 1, 4242, data.P, func(outs []Buffer, _ Event) {
			ev, e := api.ReadyEvent(outs[0])
			require.Nil(t, e)
			awaitOK(t, api, ev)
			dst := NewCMem(4, true)
			ev, _, e = api.ToHost(outs[0], dst.P, dst.N, nil)
			require.Nil(t, e)
			awaitOK(t, api, ev)
			got = f32s(dst.Bytes())
			require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", outs[0]))
		})
		require.Nil(t, e)
		require.Equal(t, []float32{v + 1}, got)
		require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", arg))
	}
}

// userDataRun runs x (y = ffi() + x over f32[1]) on the argument 1 with
// v as the execute context's user data of type 4242 and returns y.
// userDataProgram registers the user-data handler under target and
// compiles a program calling it on a one-device client.
func userDataProgram(t *testing.T, target string) (*API, Client, Memory, Loaded) {
	t.Helper()
	cmd := exec.Command(testenv.Python(t), "-c", exportFFICall, target)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
	code, err := cmd.Output()
	require.NoError(t, err)
	api := Load()
	require.Nil(t, api.RegisterUserDataHandler(target))
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	x, e := api.CompileExec(c, "mlir", code, nil)
	require.Nil(t, e)
	t.Cleanup(func() { api.DestroyLoaded(x) })
	return api, c, m, x
}

func userDataRun(api *API, c Client, m Memory, x Loaded, v float32) (float32, error) {
	host := f32Mem(true, 1)
	arg, done, e := api.FromHost(c, m, host.P, typeF32, []int64{1}, nil, semDuringCall)
	if e != nil {
		return 0, fmt.Errorf("FromHost: %v", e)
	}
	defer api.BufferCall("PJRT_Buffer_Destroy", arg)
	if e := api.EventCall("PJRT_Event_Destroy", done); e != nil {
		return 0, fmt.Errorf("event: %v", e)
	}
	data := f32Mem(true, v) // the framework's memory, never Go's
	var got []float32
	var werr error
	e = api.ExecuteWithUserData(x, []Buffer{arg}, 1, 4242, data.P, func(outs []Buffer, _ Event) {
		defer api.BufferCall("PJRT_Buffer_Destroy", outs[0])
		dst := NewCMem(4, true)
		ev, _, e := api.ToHost(outs[0], dst.P, dst.N, nil)
		if e == nil {
			e = api.EventCall("PJRT_Event_Await", ev)
			api.EventCall("PJRT_Event_Destroy", ev)
		}
		if e != nil {
			werr = fmt.Errorf("result: %v", e)
			return
		}
		got = f32s(dst.Bytes())
	})
	if e != nil {
		return 0, fmt.Errorf("execute: %v", e)
	}
	if werr != nil {
		return 0, werr
	}
	return got[0], nil
}

// TestFFIUserDataPerExecution runs one executable from two threads at
// once, each execution with its own user data: every handler call reads the
// data of the execution it serves, never the other thread's.
func TestFFIUserDataPerExecution(t *testing.T) {
	api, c, m, x := userDataProgram(t, "gojax_capitest_user_data_concurrent")

	const runs = 200
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for g, v := range []float32{3, -5} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range runs {
				got, err := userDataRun(api, c, m, x, v)
				if err == nil && got != v+1 {
					err = fmt.Errorf("a run with user data %v computed %v, want %v", v, got, v+1)
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
}
