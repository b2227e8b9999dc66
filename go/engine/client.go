// Package engine is gojax's device runtime behind the PJRT C API: a client
// with CPU devices, their memory spaces, buffers in off-heap memory, events and
// asynchronous execution of compiled programs. It knows nothing about C.
package engine

import (
	"fmt"

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
	// NumDevices is the number of CPU devices (0 = GOJAX_NUM_DEVICES, else 1).
	NumDevices int
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
	memory          *Memory
}

// Memory is a device's memory space (one per device, kind "device").
type Memory struct {
	ID      int
	device  *Device
	devices []*Device
}

// MemoryKind is the kind of every gojax memory space.
const MemoryKind = "device"

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
		n = DefaultNumDevices()
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
		m := &Memory{ID: i, device: d, devices: []*Device{d}}
		d.memory = m
		c.devices = append(c.devices, d)
		c.memories = append(c.memories, m)
	}
	return c, nil
}

// DefaultNumDevices is the device count of a client created without a
// num_devices option: GOJAX_NUM_DEVICES at load, else 1.
func DefaultNumDevices() int { return config.Env().NumDevices }

// PlatformName returns "cpu".
func (c *Client) PlatformName() string { return PlatformName }

// PlatformVersion returns "gojax <version>".
func (c *Client) PlatformVersion() string { return "gojax " + Version }

// ProcessIndex is always 0 (single process).
func (c *Client) ProcessIndex() int { return 0 }

// Devices lists all devices (all are addressable).
func (c *Client) Devices() []*Device { return c.devices }

// Memories lists all memory spaces.
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

// DefaultMemory is the device's only memory space.
func (d *Device) DefaultMemory() *Memory { return d.memory }

// Kind is "cpu".
func (d *Device) Kind() string { return DeviceKind }

// String is the short form JAX shows in reprs.
func (d *Device) String() string { return fmt.Sprintf("CpuDevice(id=%d)", d.ID) }

// DebugString is the long form.
func (d *Device) DebugString() string { return fmt.Sprintf("gojax_cpu_%d", d.ID) }

// Kind is "device".
func (m *Memory) Kind() string { return MemoryKind }

// KindID identifies the kind; gojax has one kind.
func (m *Memory) KindID() int { return 0 }

// Device returns the device this memory belongs to.
func (m *Memory) Device() *Device { return m.device }

// Devices lists the devices that can address this memory.
func (m *Memory) Devices() []*Device { return m.devices }

// String is the short form.
func (m *Memory) String() string { return fmt.Sprintf("DeviceMemory(id=%d)", m.ID) }

// DebugString is the long form.
func (m *Memory) DebugString() string {
	return fmt.Sprintf("gojax device memory %d of gojax_cpu_%d", m.ID, m.device.ID)
}
