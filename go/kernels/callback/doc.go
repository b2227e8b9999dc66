// Package callback runs JAX host callbacks (jax.pure_callback,
// jax.experimental.io_callback, jax.debug.print and jax.debug.callback) on
// gojax.
//
// JAX lowers a callback to the custom call xla_ffi_python_cpu_callback whose
// backend config holds an index into the Python callables it attached to the
// loaded executable. JAX passes those callables to each execution through the
// PJRT execute context (FFI user data); the runtime installs them in the
// executable's kernel.HostCallbacks table, and the step here calls the one it
// names through gojax._callbacks.call, a Python function that wraps operand
// memory as NumPy arrays, calls the callable and writes its results back.
// The operands are copied before the callable sees them (it may keep them),
// as jaxlib does.
package callback
