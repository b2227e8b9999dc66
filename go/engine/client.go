// Package engine is gojax's device runtime behind the PJRT C API: a client
// with CPU devices, their memory spaces, buffers in off-heap memory, events and
// asynchronous execution of compiled programs. It knows nothing about C.
package engine

import (
	"fmt"
	"strings"

	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/internal/workers"
)

// Version is the gojax version reported in the platform version.
const Version = "0.1.0"

// PlatformName is what JAX sees as the backend platform; "cpu" selects CPU
// lowering rules, donation and DLPack support in JAX.
const PlatformName = "cpu"

// maxDevices bounds the device count to something sane.
const maxDevices = config.MaxNumDevices

// Options configure a client.
type Options struct {
	// NumDevices is the number of CPU devices (0 = DefaultNumDevices).
	NumDevices int
	// JAXNumCPUDevices is JAX's jax_num_cpu_devices (0 = not set), the
	// standard way to ask a CPU backend for host devices.
	JAXNumCPUDevices int
	// MaxConcurrentRuns bounds how many executions run at once (0 = GOMAXPROCS).
	MaxConcurrentRuns int
}

// Client owns the devices and runs executables.
type Client struct {
	devices  []*Device
	memories []*Memory
	slots    *runSlots
}

// Device is one CPU device.
type Device struct {
	client          *Client
	ID              int
	LocalHardwareID int
	ProcessIndex    int
	// memories are the device's spaces in MemoryKinds order; the first is
	// the default.
	memories []*Memory
}

// Memory is one memory space of a device.
type Memory struct {
	ID      int
	kind    int // index into MemoryKinds
	device  *Device
	devices []*Device
}

// MemoryKinds are the kinds of every device's memory spaces, in the order
// (and with the ids, device*len+index) XLA:CPU gives them. All are the same
// host RAM for gojax: the kinds exist so that JAX can place arrays, program
// results and offloaded residuals where the program asks.
var MemoryKinds = [...]string{"device", "pinned_host", "unpinned_host"}

// DefaultMemoryKind is the kind of a device's default memory.
const DefaultMemoryKind = "device"

// memoryNames are the parts of each kind's String and DebugString, as
// XLA:CPU spells them.
var memoryNames = [len(MemoryKinds)]struct{ short, long string }{
	{"CPU_DEVICE", "CpuDeviceMemory"},
	{"PINNED_HOST", "PinnedHostMemory"},
	{"UNPINNED_HOST", "UnpinnedHostMemorySpace"},
}

// DeviceKind is the kind of every gojax device.
const DeviceKind = "cpu"

// NewClient creates a client with opts.NumDevices devices. It fails while
// any GOJAX_* variable held an invalid value at load, so a plugin loaded
// without Python reports it too.
func NewClient(opts Options) (*Client, error) {
	if err := config.EnvErr(); err != nil {
		return nil, Errorf(CodeInvalidArgument, "gojax: %v", err)
	}
	n := opts.NumDevices
	if n == 0 {
		n = NumDevicesFor(opts.JAXNumCPUDevices)
	}
	if n < 1 || n > maxDevices {
		return nil, Errorf(CodeInvalidArgument, "num_devices must be between 1 and %d, got %d", maxDevices, n)
	}
	slots := opts.MaxConcurrentRuns
	if slots <= 0 {
		slots = workers.Count()
	}
	c := &Client{slots: newRunSlots(slots)}
	for i := 0; i < n; i++ {
		d := &Device{client: c, ID: i, LocalHardwareID: i}
		for k := range MemoryKinds {
			m := &Memory{ID: i*len(MemoryKinds) + k, kind: k, device: d, devices: []*Device{d}}
			d.memories = append(d.memories, m)
			c.memories = append(c.memories, m)
		}
		c.devices = append(c.devices, d)
	}
	return c, nil
}

// DefaultNumDevices is the device count of a client created without a
// num_devices option and without jax_num_cpu_devices: GOJAX_NUM_DEVICES at
// load, else 1.
func DefaultNumDevices() int { return config.Env().NumDevices }

// NumDevicesFor is the device count of a client created without a
// num_devices option when JAX asks for jaxCPU host devices (< 1: JAX does
// not say): GOJAX_NUM_DEVICES when set, gojax's own override, else jaxCPU,
// else 1.
func NumDevicesFor(jaxCPU int) int { return config.Env().DevicesFor(jaxCPU) }

// PlatformName returns "cpu".
func (c *Client) PlatformName() string { return PlatformName }

// PlatformVersion returns "gojax <version>".
func (c *Client) PlatformVersion() string { return "gojax " + Version }

// ProcessIndex is always 0 (single process).
func (c *Client) ProcessIndex() int { return 0 }

// Devices lists all devices (all are addressable).
func (c *Client) Devices() []*Device { return c.devices }

// Memories lists all memory spaces, each device's in turn.
func (c *Client) Memories() []*Memory { return c.memories }

// LookupDevice finds a device by global id.
func (c *Client) LookupDevice(id int) (*Device, error) {
	if id < 0 || id >= len(c.devices) {
		return nil, Errorf(CodeInvalidArgument, "no device with id %d (have %d devices)", id, len(c.devices))
	}
	return c.devices[id], nil
}

// LookupAddressableDevice finds a device by local hardware id.
func (c *Client) LookupAddressableDevice(local int) (*Device, error) {
	for _, d := range c.devices {
		if d.LocalHardwareID == local {
			return d, nil
		}
	}
	return nil, Errorf(CodeInvalidArgument, "no addressable device with local hardware id %d", local)
}

// Client returns the owning client.
func (d *Device) Client() *Client { return d.client }

// DefaultMemory is the device's memory of kind "device".
func (d *Device) DefaultMemory() *Memory { return d.memories[0] }

// Memories lists the device's memory spaces, the default first.
func (d *Device) Memories() []*Memory { return d.memories }

// Memory returns the device's memory of a kind; "" is the default.
func (d *Device) Memory(kind string) (*Memory, error) {
	if kind == "" {
		return d.DefaultMemory(), nil
	}
	if k := kindIndex(kind); k >= 0 {
		return d.memories[k], nil
	}
	return nil, Errorf(CodeInvalidArgument, "device %d has no memory of kind %q (kinds: %s)", d.ID, kind, strings.Join(MemoryKinds[:], ", "))
}

// Kind is "cpu".
func (d *Device) Kind() string { return DeviceKind }

// String is the short form JAX shows in reprs.
func (d *Device) String() string { return fmt.Sprintf("CpuDevice(id=%d)", d.ID) }

// DebugString is the long form.
func (d *Device) DebugString() string { return fmt.Sprintf("gojax_cpu_%d", d.ID) }

// Kind is one of MemoryKinds.
func (m *Memory) Kind() string { return MemoryKinds[m.kind] }

// KindID identifies the kind as XLA does: the kind name's 32-bit
// fingerprint.
func (m *Memory) KindID() int { return int(kindID(m.Kind())) }

// Device returns the device this memory belongs to.
func (m *Memory) Device() *Device { return m.device }

// Devices lists the devices that can address this memory.
func (m *Memory) Devices() []*Device { return m.devices }

// String is the short form (JAX's repr), e.g. PINNED_HOST_1.
func (m *Memory) String() string { return fmt.Sprintf("%s_%d", memoryNames[m.kind].short, m.ID) }

// DebugString is the long form (JAX's str).
func (m *Memory) DebugString() string {
	return fmt.Sprintf("%s(id=%d, process_index=%d, client=%s)", memoryNames[m.kind].long, m.ID, m.device.ProcessIndex, PlatformName)
}
