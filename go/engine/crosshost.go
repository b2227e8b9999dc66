package engine

import (
	"github.com/gojax/gojax/go/devmem"
)

// Cross-host transfers (PJRT's CrossHostSendBuffers/CrossHostReceiveBuffers):
// JAX moves an array between devices of two processes, e.g. device_put to
// a sharding on another process's devices, by calling send in the source
// process and receive in the destination one with the same transfer key.
// The receiver's buffers exist at once and become ready when the bytes
// arrive; a transfer that fails (peer gone, another size, timeout) fails
// the buffer, so JAX raises where the value is used.

// Transferer moves one array's bytes from one process to another (package
// dataplane implements it). Errors name the peer.
type Transferer interface {
	// Send hands payload for transfer key to process to.
	Send(to int, key int64, payload []byte) error
	// Receive fills dst, whose length is the size process from must
	// send, with its transfer key.
	Receive(from int, key int64, dst []byte) error
}

func (c *Client) transferer() (Transferer, error) {
	if c.job == nil {
		return nil, Errorf(CodeFailedPrecondition, "cross-host transfers need a multi-process job (jax.distributed); this process is alone")
	}
	t, ok := c.job.Peers.(Transferer)
	if !ok {
		return nil, Errorf(CodeUnimplemented, "this job's data plane cannot move arrays between two processes")
	}
	return t, nil
}

// remoteDevice finds the device with global id, which must belong to
// another process.
func (c *Client) remoteDevice(id int64, role string) (*Device, error) {
	d, err := c.LookupDevice(int(id))
	if err != nil {
		return nil, err
	}
	if d.Addressable() {
		return nil, Errorf(CodeInvalidArgument, "%s device %d belongs to this process; a cross-host transfer goes between two processes", role, id)
	}
	return d, nil
}

// CrossHostSend sends bufs[i] to the process of device dst[i] as transfer
// keys[i]. events[i] fires once the bytes are handed to the data plane,
// with the error when they cannot be.
func (c *Client) CrossHostSend(bufs []*Buffer, dst, keys []int64) ([]*Event, error) {
	if len(dst) != len(bufs) || len(keys) != len(bufs) {
		return nil, Errorf(CodeInvalidArgument, "%d buffers, %d destination devices and %d transfer keys", len(bufs), len(dst), len(keys))
	}
	t, err := c.transferer()
	if err != nil {
		return nil, err
	}
	devs := make([]*Device, len(bufs))
	for i, b := range bufs {
		if devs[i], err = c.remoteDevice(dst[i], "destination"); err != nil {
			return nil, Errorf(CodeOf(err), "buffer %d: %v", i, err)
		}
		if b.IsToken() {
			return nil, Errorf(CodeInvalidArgument, "buffer %d is a token; only arrays travel between processes", i)
		}
	}
	held := 0
	defer func() {
		for _, b := range bufs[:held] {
			b.unhold()
		}
	}()
	for i, b := range bufs {
		if err := b.hold("cross-host send"); err != nil {
			return nil, Errorf(CodeOf(err), "buffer %d: %v", i, err)
		}
		held++
	}
	events := make([]*Event, len(bufs))
	for i, b := range bufs {
		ev, to, key := NewEvent(), devs[i], keys[i]
		events[i] = ev
		go func() {
			defer b.unhold()
			data, err := b.bytes()
			if err == nil {
				err = t.Send(to.ProcessIndex, key, data)
				if err != nil {
					err = Errorf(CodeUnavailable, "cross-host send to device %d: %v", to.ID, err)
				}
			}
			ev.Set(err)
		}()
	}
	held = 0 // the goroutines release them
	return events, nil
}

// CrossHostReceive makes one buffer per shape on dev (this process's),
// filled by the process of device src[i] with transfer keys[i].
func (c *Client) CrossHostReceive(dev *Device, shapes []Shape, src, keys []int64) ([]*Buffer, error) {
	if len(src) != len(shapes) || len(keys) != len(shapes) {
		return nil, Errorf(CodeInvalidArgument, "%d shapes, %d source devices and %d transfer keys", len(shapes), len(src), len(keys))
	}
	if dev == nil || dev.client != c || !dev.Addressable() {
		return nil, Errorf(CodeInvalidArgument, "the receiving device must be one of this process's")
	}
	t, err := c.transferer()
	if err != nil {
		return nil, err
	}
	devs := make([]*Device, len(shapes))
	for i := range shapes {
		if devs[i], err = c.remoteDevice(src[i], "source"); err != nil {
			return nil, Errorf(CodeOf(err), "shape %d: %v", i, err)
		}
	}
	bufs := make([]*Buffer, 0, len(shapes))
	for i, s := range shapes {
		b, err := newBuffer(dev.DefaultMemory(), s.Elem, false, s.Dims)
		if err != nil {
			for _, b := range bufs {
				b.discard()
			}
			return nil, Errorf(CodeOf(err), "shape %d: %v", i, err)
		}
		bufs = append(bufs, b)
	}
	for i, b := range bufs {
		from, key := devs[i], keys[i]
		go func() {
			// Received into Go memory, not the buffer's own: after a
			// failure the plane may still write into it.
			dst := make([]byte, b.size)
			if err := t.Receive(from.ProcessIndex, key, dst); err != nil {
				b.fail(Errorf(CodeUnavailable, "cross-host receive from device %d: %v", from.ID, err))
				return
			}
			data, err := devmem.Alloc(int(b.size))
			if err != nil {
				b.fail(WithCode(CodeResourceExhausted, err))
				return
			}
			copy(data, dst)
			b.setData(data, ownDevmem, nil)
		}()
	}
	return bufs, nil
}
