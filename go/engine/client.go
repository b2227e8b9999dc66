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
	// Job makes the client one process of a multi-process job (nil: the
	// only process). NumDevices is then this process's device count.
	Job *Job
}

// Job describes the processes of a multi-process job (see multiprocess.go).
type Job struct {
	// Self is this process's index.
	Self int
	// Devices is each process's device count (Devices[Self] = NumDevices).
	Devices []int
	// Peers moves argument shards between the processes.
	Peers Exchanger
}

// Client owns the devices and runs executables.
type Client struct {
	devices   []*Device // every device of the job, by process
	local     []*Device // this process's devices
	memories  []*Memory
	localMems []*Memory
	byID      map[int]*Device
	slots     *runSlots
	job       *Job // nil: single process
	self      int  // this process's index
	multiprocess
}

// Device is one CPU device.
type Device struct {
	client *Client
	// ID is the global id: process<<processIDShift | local index, as
	// XLA:CPU numbers a multi-process job's devices.
	ID int
	// Index is the position in the client's device list.
	Index int
	// LocalHardwareID is the index among its process's devices (-1 for
	// another process's device, as XLA reports it).
	LocalHardwareID int
	ProcessIndex    int
	// memories are the device's spaces in MemoryKinds order; the first is
	// the default.
	memories []*Memory
}

// Memory is one memory space of a device.
type Memory struct {
	// ID is device ID * len(MemoryKinds) + kind, as XLA:CPU numbers them.
	ID int
	// Index is the position in the client's memory list.
	Index   int
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
	c := &Client{slots: newRunSlots(slots), byID: map[int]*Device{}}
	counts := []int{n}
	if j := opts.Job; j != nil {
		if j.Self < 0 || j.Self >= len(j.Devices) || j.Devices[j.Self] != n {
			return nil, Errorf(CodeInvalidArgument, "job: process %d of %d with %d devices is inconsistent", j.Self, len(j.Devices), n)
		}
		if len(j.Devices) > 1<<processIDShift {
			return nil, Errorf(CodeInvalidArgument, "job: %d processes is too many", len(j.Devices))
		}
		for p, k := range j.Devices {
			if k < 1 || k > maxDevices {
				return nil, Errorf(CodeInvalidArgument, "job: process %d has %d devices", p, k)
			}
		}
		c.job, c.self, counts = j, j.Self, j.Devices
	}
	for p, k := range counts {
		for i := 0; i < k; i++ {
			d := &Device{client: c, ID: p<<processIDShift | i, Index: len(c.devices), LocalHardwareID: i, ProcessIndex: p}
			if p != c.self {
				d.LocalHardwareID = -1
			}
			for kind := range MemoryKinds {
				m := &Memory{ID: d.ID*len(MemoryKinds) + kind, Index: len(c.memories), kind: kind, device: d, devices: []*Device{d}}
				d.memories = append(d.memories, m)
				c.memories = append(c.memories, m)
				if p == c.self {
					c.localMems = append(c.localMems, m)
				}
			}
			c.devices = append(c.devices, d)
			c.byID[d.ID] = d
			if p == c.self {
				c.local = append(c.local, d)
			}
		}
	}
	return c, nil
}

// processIDShift places the process index in a global device id, as
// XLA:CPU does (process 1's first device is 2048).
const processIDShift = 11

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

// ProcessIndex is this process's index in its job (0 alone).
func (c *Client) ProcessIndex() int { return c.self }

// ProcessCount is the number of processes in the job.
func (c *Client) ProcessCount() int {
	if c.job == nil {
		return 1
	}
	return len(c.job.Devices)
}

// Devices lists every device of the job, process by process.
func (c *Client) Devices() []*Device { return c.devices }

// AddressableDevices lists this process's devices.
func (c *Client) AddressableDevices() []*Device { return c.local }

// Memories lists all memory spaces, each device's in turn (Memory.Index
// is the position here).
func (c *Client) Memories() []*Memory { return c.memories }

// AddressableMemories lists the memory spaces of this process's devices.
func (c *Client) AddressableMemories() []*Memory { return c.localMems }

// Addressable reports whether d belongs to this process.
func (d *Device) Addressable() bool { return d.ProcessIndex == d.client.self }

// LookupDevice finds a device by global id.
func (c *Client) LookupDevice(id int) (*Device, error) {
	d, ok := c.byID[id]
	if !ok {
		return nil, Errorf(CodeInvalidArgument, "no device with id %d (have %d devices)", id, len(c.devices))
	}
	return d, nil
}

// LookupAddressableDevice finds a device by local hardware id.
func (c *Client) LookupAddressableDevice(local int) (*Device, error) {
	for _, d := range c.local {
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
