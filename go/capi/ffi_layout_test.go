package capi

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ffiLayout is the x86-64/arm64 (LP64) layout of the PJRT FFI extension as
// derived from XLA's public pjrt_c_api_ffi_extension.h of the PJRT 0.114 era
// (the ABI table does not cover extensions). jaxlib 0.12.0.1 fills
// PJRT_FFI_UserData_Add_Args with struct_size 40 (user data without a
// deleter, observed); headers of FFI extension version 2 add the deleter
// (48 bytes), which gojax also accepts. PJRT_FFI_Register_Handler_Args
// is 52 bytes by its struct-size rule; its older form with api_version, 56.
var ffiLayout = []struct {
	strct, field string
	offset, size int
}{
	{"gojax_FFI_TypeRegister_Args", "struct_size", 0, 8},
	{"gojax_FFI_TypeRegister_Args", "extension_start", 8, 8},
	{"gojax_FFI_TypeRegister_Args", "type_name", 16, 8},
	{"gojax_FFI_TypeRegister_Args", "type_name_size", 24, 8},
	{"gojax_FFI_TypeRegister_Args", "type_id", 32, 8},
	{"gojax_FFI_TypeRegister_Args", "type_info", 40, 8},
	{"gojax_FFI_UserDataAdd_Args", "struct_size", 0, 8},
	{"gojax_FFI_UserDataAdd_Args", "extension_start", 8, 8},
	{"gojax_FFI_UserDataAdd_Args", "context", 16, 8},
	{"gojax_FFI_UserDataAdd_Args", "type_id", 24, 8},
	{"gojax_FFI_UserDataAdd_Args", "data", 32, 8},
	{"gojax_FFI_UserDataAdd_Args", "deleter", 40, 8},
	{"gojax_FFI_RegisterHandler_Args", "struct_size", 0, 8},
	{"gojax_FFI_RegisterHandler_Args", "target_name", 8, 8},
	{"gojax_FFI_RegisterHandler_Args", "target_name_size", 16, 8},
	{"gojax_FFI_RegisterHandler_Args", "handler", 24, 8},
	{"gojax_FFI_RegisterHandler_Args", "platform_name", 32, 8},
	{"gojax_FFI_RegisterHandler_Args", "platform_name_size", 40, 8},
	{"gojax_FFI_RegisterHandler_Args", "traits", 48, 4},
	{"gojax_FFI_RegisterHandlerV1_Args", "api_version", 24, 4},
	{"gojax_FFI_RegisterHandlerV1_Args", "handler", 32, 8},
	{"gojax_FFI_RegisterHandlerV1_Args", "platform_name", 40, 8},
	{"gojax_FFI_RegisterHandlerV1_Args", "platform_name_size", 48, 8},
	{"gojax_FFIExtension", "base", 0, 24},
	{"gojax_FFIExtension", "type_register", 24, 8},
	{"gojax_FFIExtension", "user_data_add", 32, 8},
	{"gojax_FFIExtension", "register_handler", 40, 8},
}

var ffiSizes = map[string]int{
	"gojax_FFI_TypeRegister_Args": 48,
	"gojax_FFI_UserDataAdd_Args":  48,
	"gojax_FFIExtension":          48,
}

// TestFFIExtensionLayout compiles a C program against gojax_capi.h and checks
// the FFI extension structs against the layout derived from XLA's header.
func TestFFIExtensionLayout(t *testing.T) {
	cc := cCompiler(t)
	var prog, want strings.Builder
	prog.WriteString("#include <stdio.h>\n#include \"gojax_capi.h\"\nint main(void) {\n")
	for _, f := range ffiLayout {
		fmt.Fprintf(&prog, "  printf(\"%s.%s %%zu %%zu\\n\", offsetof(%s, %s), sizeof(((%s*)0)->%s));\n",
			f.strct, f.field, f.strct, f.field, f.strct, f.field)
		fmt.Fprintf(&want, "%s.%s %d %d\n", f.strct, f.field, f.offset, f.size)
	}
	for _, s := range sortedKeys(ffiSizes) {
		fmt.Fprintf(&prog, "  printf(\"sizeof %s %%zu\\n\", sizeof(%s));\n", s, s)
		fmt.Fprintf(&want, "sizeof %s %d\n", s, ffiSizes[s])
	}
	prog.WriteString("  printf(\"min UserDataAdd %zu\\n\", (size_t)gojax_FFI_UserDataAdd_Args_MIN_SIZE);\n")
	prog.WriteString("  printf(\"RegisterHandler %zu %zu\\n\", (size_t)gojax_FFI_RegisterHandler_Args_STRUCT_SIZE, (size_t)gojax_FFI_RegisterHandlerV1_Args_STRUCT_SIZE);\n  return 0;\n}\n")
	want.WriteString("min UserDataAdd 40\nRegisterHandler 52 56\n")

	dir := t.TempDir()
	src := filepath.Join(dir, "ffi.c")
	require.NoError(t, os.WriteFile(src, []byte(prog.String()), 0o644))
	wd, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(dir, "ffi")
	out, err := exec.Command(cc, "-std=c11", "-Wall", "-Werror", "-I", wd, "-o", bin, src).CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))
}
