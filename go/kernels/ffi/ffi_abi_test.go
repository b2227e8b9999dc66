package ffi

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/stretchr/testify/require"
)

// abiFields are the struct fields handlers and gojax exchange; every one's
// offset and size in xla_ffi.h must equal XLA's c_api.h.
var abiFields = map[string][]string{
	"XLA_FFI_InternalExtension":                {"struct_size", "type", "next"},
	"XLA_FFI_ExtensionId":                      {"extension_type", "major_version", "minor_version"},
	"XLA_FFI_Extension":                        {"struct_size", "id", "next"},
	"XLA_FFI_Api_Version":                      {"struct_size", "extension_start", "major_version", "minor_version"},
	"XLA_FFI_Error_Create_Args":                {"struct_size", "extension_start", "message", "errc"},
	"XLA_FFI_Error_GetDetails_Args":            {"struct_size", "extension_start", "error", "message", "errc"},
	"XLA_FFI_Error_Destroy_Args":               {"struct_size", "extension_start", "error"},
	"XLA_FFI_Buffer":                           {"struct_size", "extension_start", "dtype", "data", "rank", "dims"},
	"XLA_FFI_ByteSpan":                         {"ptr", "len"},
	"XLA_FFI_Scalar":                           {"dtype", "value"},
	"XLA_FFI_Array":                            {"dtype", "size", "data"},
	"XLA_FFI_TypeId":                           {"type_id"},
	"XLA_FFI_TypeInfo":                         {"struct_size", "extension_start", "deleter"},
	"XLA_FFI_Args":                             {"struct_size", "extension_start", "size", "types", "args"},
	"XLA_FFI_Rets":                             {"struct_size", "extension_start", "size", "types", "rets"},
	"XLA_FFI_Attrs":                            {"struct_size", "extension_start", "size", "types", "names", "attrs"},
	"XLA_FFI_CallFrame":                        {"struct_size", "extension_start", "api", "ctx", "stage", "args", "rets", "attrs", "future"},
	"XLA_FFI_Handler_Bundle":                   {"instantiate", "prepare", "initialize", "execute", "record"},
	"XLA_FFI_Handler_Register_Args":            {"struct_size", "extension_start", "name", "platform", "bundle", "traits"},
	"XLA_FFI_Type_Register_Args":               {"struct_size", "extension_start", "name", "type_id", "type_info"},
	"XLA_FFI_InvokeContext_FindExtension_Args": {"struct_size", "extension_start", "ctx", "extension_type", "extension"},
	"XLA_FFI_InvokeContext_Get_Args":           {"struct_size", "extension_start", "ctx", "type_id", "data"},
	"XLA_FFI_CustomOptions_Get_Args":           {"struct_size", "extension_start", "ctx", "attrs"},
	"XLA_FFI_State_Set_Args":                   {"struct_size", "extension_start", "ctx", "stage", "type_id", "state"},
	"XLA_FFI_State_Get_Args":                   {"struct_size", "extension_start", "ctx", "stage", "type_id", "state"},
	"XLA_FFI_Stream_Get_Args":                  {"struct_size", "extension_start", "ctx", "stream"},
	"XLA_FFI_DeviceMemory_Allocate_Args":       {"struct_size", "extension_start", "ctx", "size", "alignment", "data"},
	"XLA_FFI_DeviceMemory_Free_Args":           {"struct_size", "extension_start", "ctx", "size", "data"},
	"XLA_FFI_ThreadPool_Schedule_Args":         {"struct_size", "extension_start", "ctx", "task", "data"},
	"XLA_FFI_ThreadPool_NumThreads_Args":       {"struct_size", "extension_start", "ctx", "num_threads"},
	"XLA_FFI_RunId_Get_Args":                   {"struct_size", "extension_start", "ctx", "run_id"},
	"XLA_FFI_DeviceOrdinal_Get_Args":           {"struct_size", "extension_start", "ctx", "device_ordinal"},
	"XLA_FFI_Future_Create_Args":               {"struct_size", "extension_start", "future"},
	"XLA_FFI_Future_SetAvailable_Args":         {"struct_size", "extension_start", "future"},
	"XLA_FFI_Future_SetError_Args":             {"struct_size", "extension_start", "future", "error"},
	"XLA_FFI_Metadata":                         {"struct_size", "api_version", "traits", "state_type_id"},
	"XLA_FFI_Metadata_Extension":               {"extension_base", "metadata"},
	"XLA_FFI_Api": {"struct_size", "extension_start", "api_version", "internal_api",
		"XLA_FFI_Error_Create", "XLA_FFI_Error_GetDetails", "XLA_FFI_Error_Destroy", "XLA_FFI_Handler_Register",
		"XLA_FFI_Stream_Get", "XLA_FFI_Type_Register", "XLA_FFI_InvokeContext_Get", "XLA_FFI_State_Set",
		"XLA_FFI_State_Get", "XLA_FFI_DeviceMemory_Allocate", "XLA_FFI_DeviceMemory_Free",
		"XLA_FFI_ThreadPool_Schedule", "XLA_FFI_ThreadPool_NumThreads", "XLA_FFI_Future_Create",
		"XLA_FFI_Future_SetAvailable", "XLA_FFI_Future_SetError", "XLA_FFI_RunId_Get",
		"XLA_FFI_DeviceOrdinal_Get", "XLA_FFI_InvokeContext_FindExtension", "XLA_FFI_CustomOptions_Get"},
}

// abiSizes are the struct_size values callers write: (last field).
var abiSizes = map[string]string{
	"XLA_FFI_Api": "XLA_FFI_CustomOptions_Get", "XLA_FFI_CallFrame": "attrs", "XLA_FFI_Buffer": "dims",
	"XLA_FFI_Args": "args", "XLA_FFI_Rets": "rets", "XLA_FFI_Attrs": "attrs", "XLA_FFI_Api_Version": "minor_version",
	"XLA_FFI_Metadata": "traits", "XLA_FFI_Metadata_Extension": "metadata",
}

// abiConstants pairs XLA's enum constants with gojax's.
var abiConstants = [][2]string{
	{"XLA_FFI_API_MAJOR", "GOJAX_FFI_API_MAJOR"}, {"XLA_FFI_API_MINOR", "GOJAX_FFI_API_MINOR"},
	{"XLA_FFI_Extension_Metadata", "GOJAX_FFI_EXTENSION_METADATA"},
	{"XLA_FFI_Error_Code_OK", "GOJAX_FFI_OK"}, {"XLA_FFI_Error_Code_INVALID_ARGUMENT", "GOJAX_FFI_INVALID_ARGUMENT"},
	{"XLA_FFI_Error_Code_NOT_FOUND", "GOJAX_FFI_NOT_FOUND"}, {"XLA_FFI_Error_Code_ALREADY_EXISTS", "GOJAX_FFI_ALREADY_EXISTS"},
	{"XLA_FFI_Error_Code_RESOURCE_EXHAUSTED", "GOJAX_FFI_RESOURCE_EXHAUSTED"},
	{"XLA_FFI_Error_Code_FAILED_PRECONDITION", "GOJAX_FFI_FAILED_PRECONDITION"},
	{"XLA_FFI_Error_Code_UNIMPLEMENTED", "GOJAX_FFI_UNIMPLEMENTED"}, {"XLA_FFI_Error_Code_INTERNAL", "GOJAX_FFI_INTERNAL"},
	{"XLA_FFI_DataType_PRED", "GOJAX_FFI_PRED"}, {"XLA_FFI_DataType_S8", "GOJAX_FFI_S8"},
	{"XLA_FFI_DataType_S16", "GOJAX_FFI_S16"}, {"XLA_FFI_DataType_S32", "GOJAX_FFI_S32"},
	{"XLA_FFI_DataType_S64", "GOJAX_FFI_S64"}, {"XLA_FFI_DataType_U8", "GOJAX_FFI_U8"},
	{"XLA_FFI_DataType_U16", "GOJAX_FFI_U16"}, {"XLA_FFI_DataType_U32", "GOJAX_FFI_U32"},
	{"XLA_FFI_DataType_U64", "GOJAX_FFI_U64"}, {"XLA_FFI_DataType_F16", "GOJAX_FFI_F16"},
	{"XLA_FFI_DataType_F32", "GOJAX_FFI_F32"}, {"XLA_FFI_DataType_F64", "GOJAX_FFI_F64"},
	{"XLA_FFI_DataType_BF16", "GOJAX_FFI_BF16"}, {"XLA_FFI_DataType_C64", "GOJAX_FFI_C64"},
	{"XLA_FFI_DataType_C128", "GOJAX_FFI_C128"}, {"XLA_FFI_DataType_TOKEN", "GOJAX_FFI_TOKEN"},
	{"XLA_FFI_DataType_F8E5M2", "GOJAX_FFI_F8E5M2"}, {"XLA_FFI_DataType_F8E4M3FN", "GOJAX_FFI_F8E4M3FN"},
	{"XLA_FFI_DataType_F8E4M3B11FNUZ", "GOJAX_FFI_F8E4M3B11FNUZ"}, {"XLA_FFI_DataType_F8E5M2FNUZ", "GOJAX_FFI_F8E5M2FNUZ"},
	{"XLA_FFI_DataType_F8E4M3FNUZ", "GOJAX_FFI_F8E4M3FNUZ"}, {"XLA_FFI_DataType_F8E4M3", "GOJAX_FFI_F8E4M3"},
	{"XLA_FFI_DataType_F8E3M4", "GOJAX_FFI_F8E3M4"}, {"XLA_FFI_DataType_F8E8M0FNU", "GOJAX_FFI_F8E8M0FNU"},
	{"XLA_FFI_ArgType_BUFFER", "GOJAX_FFI_ARG_BUFFER"}, {"XLA_FFI_RetType_BUFFER", "GOJAX_FFI_RET_BUFFER"},
	{"XLA_FFI_AttrType_ARRAY", "GOJAX_FFI_ATTR_ARRAY"}, {"XLA_FFI_AttrType_DICTIONARY", "GOJAX_FFI_ATTR_DICTIONARY"},
	{"XLA_FFI_AttrType_SCALAR", "GOJAX_FFI_ATTR_SCALAR"}, {"XLA_FFI_AttrType_STRING", "GOJAX_FFI_ATTR_STRING"},
	{"XLA_FFI_ExecutionStage_INSTANTIATE", "GOJAX_FFI_STAGE_INSTANTIATE"},
	{"XLA_FFI_ExecutionStage_PREPARE", "GOJAX_FFI_STAGE_PREPARE"},
	{"XLA_FFI_ExecutionStage_INITIALIZE", "GOJAX_FFI_STAGE_INITIALIZE"},
	{"XLA_FFI_ExecutionStage_EXECUTE", "GOJAX_FFI_STAGE_EXECUTE"},
}

// TestHeaderMatchesXLA compiles one program against jaxlib's c_api.h and one
// against xla_ffi.h, each printing the same layout facts, and compares them:
// a handler built against jaxlib's headers must read gojax's structs as its
// own.
func TestHeaderMatchesXLA(t *testing.T) {
	out, err := exec.Command(testenv.Python(t), "-c", "import jax; print(jax.ffi.include_dir())").Output()
	require.NoError(t, err, "the oracle Python must have jax (for jaxlib's XLA FFI headers)")
	include := strings.TrimSpace(string(out))
	wd, err := os.Getwd()
	require.NoError(t, err)
	xla := run(t, "#include \"xla/ffi/api/c_api.h\"", include, 0)
	ours := run(t, "#include \"xla_ffi.h\"", wd, 1)
	require.Equal(t, xla, ours)
	require.Greater(t, len(strings.Split(xla, "\n")), 200)
}

// run builds and runs the layout program; side 0 names XLA's constants and
// struct sizes, side 1 gojax's.
func run(t *testing.T, include, dir string, side int) string {
	var prog strings.Builder
	prog.WriteString("#include <stdio.h>\n#include <stddef.h>\n" + include + "\nint main(void) {\n")
	for _, s := range sortedKeys(abiFields) {
		fmt.Fprintf(&prog, "  printf(\"sizeof %s %%zu\\n\", sizeof(%s));\n", s, s)
		for _, f := range abiFields[s] {
			fmt.Fprintf(&prog, "  printf(\"%s.%s %%zu %%zu\\n\", offsetof(%s, %s), sizeof(((%s*)0)->%s));\n", s, f, s, f, s, f)
		}
	}
	for _, s := range sortedKeys(abiSizes) {
		expr := s + "_STRUCT_SIZE"
		if side == 1 {
			expr = fmt.Sprintf("GOJAX_FFI_SIZE(%s, %s)", s, abiSizes[s])
		}
		fmt.Fprintf(&prog, "  printf(\"struct_size %s %%zu\\n\", (size_t)(%s));\n", s, expr)
	}
	for _, c := range abiConstants {
		fmt.Fprintf(&prog, "  printf(\"%s %%lld\\n\", (long long)(%s));\n", c[0], c[side])
	}
	prog.WriteString("  return 0;\n}\n")
	tmp := t.TempDir()
	src := filepath.Join(tmp, "abi.c")
	require.NoError(t, os.WriteFile(src, []byte(prog.String()), 0o644))
	bin := filepath.Join(tmp, "abi")
	cc := "cc"
	if f := strings.Fields(os.Getenv("CC")); len(f) > 0 {
		cc = f[0]
	}
	b, err := exec.Command(cc, "-std=c11", "-Wall", "-Werror", "-I", dir, "-o", bin, src).CombinedOutput()
	require.NoError(t, err, string(b))
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	return string(got)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
