package capitest

import (
	"os"
	"os/exec"
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
	const target = "gojax_capitest_user_data"
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
	defer api.DestroyLoaded(x)

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
