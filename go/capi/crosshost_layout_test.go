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

// crossHostLayout is the LP64 layout of the cross-host transfers extension
// (version 8) as derived from XLA's public
// pjrt_c_api_cross_host_transfers_extension.h: the extension's four calls
// after its 24-byte base, and the send/receive args with and without the
// version-8 task snapshot.
var crossHostLayout = []struct {
	strct, field string
	offset, size int
}{
	{"gojax_CrossHostTransfersExtension", "base", 0, 24},
	{"gojax_CrossHostTransfersExtension", "make_receive_buffers", 24, 8},
	{"gojax_CrossHostTransfersExtension", "copy_to_remote_device", 32, 8},
	{"gojax_CrossHostTransfersExtension", "receive_buffers", 40, 8},
	{"gojax_CrossHostTransfersExtension", "send_buffers", 48, 8},
	{"gojax_CrossHostSend_Args", "client", 16, 8},
	{"gojax_CrossHostSend_Args", "num_buffers", 24, 8},
	{"gojax_CrossHostSend_Args", "buffers", 32, 8},
	{"gojax_CrossHostSend_Args", "dst_global_device_ids", 40, 8},
	{"gojax_CrossHostSend_Args", "transfer_keys", 48, 8},
	{"gojax_CrossHostSend_Args", "send_events", 56, 8},
	{"gojax_CrossHostSend_Args", "num_tasks", 64, 8},
	{"gojax_CrossHostSend_Args", "incarnation_ids", 80, 8},
	{"gojax_CrossHostReceive_Args", "num_shapes", 24, 8},
	{"gojax_CrossHostReceive_Args", "shape_num_dims", 32, 8},
	{"gojax_CrossHostReceive_Args", "num_dims", 40, 8},
	{"gojax_CrossHostReceive_Args", "element_types", 48, 8},
	{"gojax_CrossHostReceive_Args", "layouts", 56, 8},
	{"gojax_CrossHostReceive_Args", "device", 64, 8},
	{"gojax_CrossHostReceive_Args", "src_global_device_ids", 72, 8},
	{"gojax_CrossHostReceive_Args", "transfer_keys", 80, 8},
	{"gojax_CrossHostReceive_Args", "buffers", 88, 8},
	{"gojax_CrossHostReceive_Args", "num_tasks", 96, 8},
	{"gojax_CrossHostReceive_Args", "incarnation_ids", 112, 8},
	{"gojax_CrossHostCopyToRemote_Args", "buffer", 16, 8},
	{"gojax_CrossHostCopyToRemote_Args", "event", 24, 8},
	{"gojax_CrossHostCopyToRemote_Args", "on_done", 48, 16},
}

func TestCrossHostExtensionLayout(t *testing.T) {
	cc := cCompiler(t)
	var prog, want strings.Builder
	prog.WriteString("#include <stdio.h>\n#include \"gojax_capi.h\"\nint main(void) {\n")
	for _, f := range crossHostLayout {
		fmt.Fprintf(&prog, "  printf(\"%s.%s %%zu %%zu\\n\", offsetof(%s, %s), sizeof(((%s*)0)->%s));\n",
			f.strct, f.field, f.strct, f.field, f.strct, f.field)
		fmt.Fprintf(&want, "%s.%s %d %d\n", f.strct, f.field, f.offset, f.size)
	}
	// The smallest args gojax accepts end before the task snapshot.
	prog.WriteString("  printf(\"%zu %zu %zu %zu %zu\\n\", sizeof(gojax_CrossHostTransfersExtension), " +
		"(size_t)gojax_CrossHostSend_Args_STRUCT_SIZE, sizeof(gojax_CrossHostSend_Args), " +
		"(size_t)gojax_CrossHostReceive_Args_STRUCT_SIZE, sizeof(gojax_CrossHostReceive_Args));\n  return 0;\n}\n")
	want.WriteString("56 64 88 96 120\n")
	dir := t.TempDir()
	src := filepath.Join(dir, "crosshost.c")
	require.NoError(t, os.WriteFile(src, []byte(prog.String()), 0o644))
	wd, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(dir, "crosshost")
	out, err := exec.Command(cc, "-std=c11", "-Wall", "-Werror", "-I", wd, "-o", bin, src).CombinedOutput()
	require.NoError(t, err, string(out))
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))
}
