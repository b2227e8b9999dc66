package dataplane

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Point-to-point transfers (PJRT's cross-host device transfers): one
// process sends one array to one other, which knows its size. They travel
// on connections of their own, dialed on first use, whose reader never
// waits: an exchange frame waits on its connection until its program runs
// in the receiving process, and a transfer behind it could then wait for a
// process that itself waits for the transfer. The receiver asks first (an
// empty frame under askKey) and the sender writes the data (under dataKey)
// only once asked, so data finds its destination ready. The sequence number
// of both frames is the framework's transfer key.
const (
	dataKey uint64 = 0x5846524e53464552 // "XFRNSFER"
	askKey  uint64 = 0x5846524e4153534b // "XFRNASSK"
)

// transfers is the plane's transfer state; p.mu guards it, except dial.
type transfers struct {
	in   map[int]net.Conn        // accepted transfer connections
	out  []*sender               // dialed transfer connections by process
	asks map[msgID]chan struct{} // closed when the peer asked for the key
	dial sync.Mutex              // one dial at a time
}

func newTransfers(n int) transfers {
	return transfers{in: map[int]net.Conn{}, out: make([]*sender, n), asks: map[msgID]chan struct{}{}}
}

// closeAll closes the transfer connections (p.mu held).
func (x *transfers) closeAll() {
	for _, s := range x.out {
		if s != nil {
			s.conn.Close()
		}
	}
	for _, c := range x.in {
		c.Close()
	}
}

// transferSender is the connection that carries transfer frames to
// process i, dialed on first use.
func (p *Plane) transferSender(i int) (*sender, error) {
	p.xfer.dial.Lock()
	defer p.xfer.dial.Unlock()
	p.mu.Lock()
	s, failed := p.xfer.out[i], p.failed[i]
	addr := ""
	if i < len(p.addrs) {
		addr = p.addrs[i]
	}
	p.mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	if s != nil {
		return s, nil
	}
	if addr == "" {
		return nil, fmt.Errorf("%s is not connected", p.peerName(i))
	}
	conn, err := net.DialTimeout("tcp", addr, p.cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s for transfers: %w", p.peerName(i), err)
	}
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := dialHandshake(conn, p.cfg.Secret, uint32(p.cfg.Self), transferChannel); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot connect to %s for transfers: %w", p.peerName(i), err)
	}
	_ = conn.SetDeadline(time.Time{})
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		conn.Close()
		return nil, fmt.Errorf("data plane closed")
	}
	s = &sender{conn: conn}
	p.xfer.out[i] = s
	return s, nil
}

// sendTransfer writes one transfer frame to process i.
func (p *Plane) sendTransfer(i int, key, seq uint64, payload []byte) error {
	s, err := p.transferSender(i)
	if err != nil {
		return err
	}
	return p.write(s, i, key, seq, payload)
}

// readTransfers reads transfer frames from process from until the
// connection ends.
func (p *Plane) readTransfers(from int, conn net.Conn) error {
	for {
		id, size, err := readHeader(from, conn)
		if err != nil {
			return err
		}
		if id.key != dataKey && id.key != askKey {
			return fmt.Errorf("sent a frame that is not a transfer on a transfer connection")
		}
		if err := p.readTransfer(conn, id, size); err != nil {
			return err
		}
	}
}

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
	defer func() {
		p.mu.Lock()
		if p.xfer.asks[id] == asked {
			delete(p.xfer.asks, id)
		}
		p.mu.Unlock()
	}()
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
	return p.sendTransfer(to, dataKey, uint64(key), payload)
}

// ask is the channel closed when id's go-ahead arrives (p.mu held).
func (p *Plane) ask(id msgID) chan struct{} {
	c := p.xfer.asks[id]
	if c == nil {
		c = make(chan struct{})
		p.xfer.asks[id] = c
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
	if err := p.sendTransfer(from, askKey, uint64(key), nil); err != nil {
		if f := p.failure(from); f != nil {
			err = f // the peer's end, rather than its symptom here
		}
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
