package dataplane

import (
	"fmt"
	"io"
	"net"
	"time"
)

// Point-to-point transfers (PJRT's cross-host device transfers): one
// process sends one array to one other, which knows its size. The receiver
// asks first (an empty frame under askKey), and the sender writes the data
// (under dataKey) only once asked, so a data frame always finds its
// destination ready and the connection's reader never waits on it: frames
// behind it, Exchange's included, keep flowing whatever order the two
// processes issue their transfers in. The sequence number of both frames
// is the framework's transfer key. Exchange keys are 64-bit program hashes;
// these two are fixed values among them.
const (
	dataKey uint64 = 0x5846524e53464552 // "XFRNSFER"
	askKey  uint64 = 0x5846524e4153534b // "XFRNASSK"
)

func isTransfer(key uint64) bool { return key == dataKey || key == askKey }

// Send writes payload to process to as transfer key once that process
// asked for it. It returns when the bytes are handed to the connection (the
// peer need not have read them yet); it fails, naming the peer, when the
// peer does not ask within the timeout or its connection breaks.
func (p *Plane) Send(to int, key int64, payload []byte) error {
	if err := p.checkPeer(to); err != nil {
		return err
	}
	id := msgID{from: to, key: askKey, seq: uint64(key)}
	p.mu.Lock()
	asked, gone := p.ask(id), p.gone[to]
	p.mu.Unlock()
	timer := time.NewTimer(p.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-asked:
	case <-gone:
		select {
		case <-asked:
		default:
			return fmt.Errorf("transfer %d: %w", key, p.failure(to))
		}
	case <-timer.C:
		return fmt.Errorf("%s did not ask for transfer %d within %v (GOJAX_COLLECTIVE_TIMEOUT)", p.peerName(to), key, p.cfg.Timeout)
	case <-p.done:
		return fmt.Errorf("data plane closed")
	}
	p.mu.Lock()
	delete(p.asks, id)
	p.mu.Unlock()
	return p.send(to, dataKey, uint64(key), payload)
}

// ask is the channel closed when id's go-ahead arrives (p.mu held).
func (p *Plane) ask(id msgID) chan struct{} {
	if p.asks == nil {
		p.asks = map[msgID]chan struct{}{}
	}
	c := p.asks[id]
	if c == nil {
		c = make(chan struct{})
		p.asks[id] = c
	}
	return c
}

// Receive fills dst with process from's transfer key, whose size the
// caller knows (a frame of another size is an error, never a larger
// allocation). It fails, naming the peer, when the peer's connection
// breaks, it sends another size, nothing arrives within the timeout, or the
// plane closes. After a failure dst may still be written; the caller drops it.
func (p *Plane) Receive(from int, key int64, dst []byte) error {
	if err := p.checkPeer(from); err != nil {
		return err
	}
	id := msgID{from: from, key: dataKey, seq: uint64(key)}
	if !p.register(id, dst) {
		return fmt.Errorf("transfer %d from %s is already expected", key, p.peerName(from))
	}
	p.mu.Lock()
	s, gone := p.slots[id], p.gone[from]
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.slots[id] == s {
			delete(p.slots, id)
		}
		p.mu.Unlock()
	}()
	if err := p.send(from, askKey, uint64(key), nil); err != nil {
		return fmt.Errorf("transfer %d: %w", key, err)
	}
	filled := func() error {
		if s.err != nil {
			return fmt.Errorf("%s: transfer %d: %w", p.peerName(from), key, s.err)
		}
		return nil
	}
	timer := time.NewTimer(p.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-s.filled:
		return filled()
	case <-gone:
		// The connection's reader ends before the peer counts as gone,
		// so bytes it delivered are in by now.
		select {
		case <-s.filled:
			return filled()
		default:
		}
		return fmt.Errorf("transfer %d: %w", key, p.failure(from))
	case <-timer.C:
		return fmt.Errorf("%s sent nothing for transfer %d within %v (GOJAX_COLLECTIVE_TIMEOUT)", p.peerName(from), key, p.cfg.Timeout)
	case <-p.done:
		return fmt.Errorf("data plane closed")
	}
}

// readTransfer handles one transfer frame on the connection from id.from.
// It never waits: a go-ahead is recorded; data goes to its receiver, or is
// read and dropped when no receiver waits for it any more (it gave up) or
// it has another size (the receiver then fails, naming the peer).
func (p *Plane) readTransfer(conn net.Conn, id msgID, size uint64) error {
	if id.key == askKey {
		if size != 0 {
			return fmt.Errorf("sent a transfer request with %d bytes of payload", size)
		}
		p.mu.Lock()
		c := p.ask(id)
		select {
		case <-c:
			p.mu.Unlock()
			return fmt.Errorf("asked twice for transfer %d", int64(id.seq))
		default:
			close(c)
		}
		p.mu.Unlock()
		return nil
	}
	p.mu.Lock()
	s := p.slots[id]
	p.mu.Unlock()
	if s != nil {
		// Only this connection's reader closes filled, so the check
		// cannot race: a repeated frame finds its slot filled.
		select {
		case <-s.filled:
			s = nil
		default:
		}
	}
	if s == nil || !s.claimed || size != uint64(len(s.dst)) {
		if s != nil && s.claimed {
			s.err = fmt.Errorf("sent %d bytes, expected %d (mismatched shapes)", size, len(s.dst))
			close(s.filled)
		}
		if _, err := io.CopyN(io.Discard, conn, int64(size)); err != nil {
			return fmt.Errorf("truncated frame (%d bytes announced): %w", size, io.ErrUnexpectedEOF)
		}
		return nil
	}
	if _, err := io.ReadFull(conn, s.dst); err != nil {
		s.err = fmt.Errorf("truncated frame (%d bytes announced): %w", size, io.ErrUnexpectedEOF)
		close(s.filled)
		return s.err
	}
	close(s.filled)
	return nil
}

// checkPeer rejects this process, ids out of range and a closed plane.
func (p *Plane) checkPeer(i int) error {
	if i < 0 || i >= p.cfg.Processes || i == p.cfg.Self {
		return fmt.Errorf("dataplane: no peer process %d (this is process %d of %d)", i, p.cfg.Self, p.cfg.Processes)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("data plane closed")
	}
	return nil
}
