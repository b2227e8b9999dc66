package dataplane

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// frameMagic opens every frame, so a desynchronised stream is caught at
// once instead of being read as a length.
const frameMagic uint32 = 0x31464447 // "GDF1"

const headerSize = 4 + 8 + 8 + 8

// handshakeTimeout bounds how long an unauthenticated connection may take
// to prove itself, so a silent stranger holds nothing for long.
const handshakeTimeout = 10 * time.Second

// Config is what a process needs to join the data plane.
type Config struct {
	Self      int    // this process's id
	Processes int    // processes in the job
	Secret    []byte // the job secret (NewSecret), the same in every process
	// Timeout bounds every wait on a peer: connecting, a message to
	// arrive, a send to drain.
	Timeout time.Duration
	// Logf reports refused connections (nil: standard error).
	Logf func(format string, args ...any)
}

// Plane is one process's end of the data plane.
type Plane struct {
	cfg   Config
	ln    net.Listener
	addrs []string // each process's address, once Connect ran

	mu     sync.Mutex
	out    []*sender // dialed connections by process id
	in     map[int]net.Conn
	fresh  map[net.Conn]bool // accepted, not yet authenticated
	slots  map[msgID]*slot
	failed map[int]error // peers whose connection broke
	gone   map[int]chan struct{}
	xfer   transfers // point-to-point transfers (transfer.go)
	closed bool
	done   chan struct{} // closed by Close
	wg     sync.WaitGroup
}

type msgID struct {
	from     int
	key, seq uint64
}

// slot is one expected message: registered closes when the receiver has
// named its size and destination, filled when the bytes are in.
type slot struct {
	registered chan struct{}
	filled     chan struct{}
	claimed    bool // registered is closed
	dst        []byte
	err        error
}

type sender struct {
	mu   sync.Mutex
	conn net.Conn
}

// Listen opens the process's listening socket on host:port (port 0: any
// free port) and starts accepting peers. Addr says where peers reach it.
func Listen(cfg Config, host string, port int) (*Plane, error) {
	if len(cfg.Secret) != SecretSize {
		return nil, fmt.Errorf("dataplane: job secret has %d bytes, want %d", len(cfg.Secret), SecretSize)
	}
	if cfg.Self < 0 || cfg.Self >= cfg.Processes {
		return nil, fmt.Errorf("dataplane: process id %d out of range for %d processes", cfg.Self, cfg.Processes)
	}
	if cfg.Timeout <= 0 {
		return nil, fmt.Errorf("dataplane: timeout must be positive")
	}
	if cfg.Logf == nil {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("dataplane: cannot listen on %s:%d: %w", host, port, err)
	}
	p := &Plane{
		cfg: cfg, ln: ln, out: make([]*sender, cfg.Processes), in: map[int]net.Conn{}, fresh: map[net.Conn]bool{},
		slots: map[msgID]*slot{}, failed: map[int]error{}, gone: map[int]chan struct{}{}, done: make(chan struct{}),
		xfer: newTransfers(cfg.Processes),
	}
	for i := 0; i < cfg.Processes; i++ {
		p.gone[i] = make(chan struct{})
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Port is the port the plane listens on.
func (p *Plane) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// peerName names process i and its address for error messages.
func (p *Plane) peerName(i int) string {
	if i < len(p.addrs) && p.addrs[i] != "" {
		return fmt.Sprintf("process %d (%s)", i, p.addrs[i])
	}
	return fmt.Sprintf("process %d", i)
}

// Connect dials every other process (addrs[i] is process i's host:port),
// retrying until the timeout while a peer is not listening yet.
func (p *Plane) Connect(addrs []string) error {
	if len(addrs) != p.cfg.Processes {
		return fmt.Errorf("dataplane: %d addresses for %d processes", len(addrs), p.cfg.Processes)
	}
	p.mu.Lock()
	p.addrs = append([]string(nil), addrs...)
	p.mu.Unlock()
	deadline := time.Now().Add(p.cfg.Timeout)
	for i, a := range addrs {
		if i == p.cfg.Self {
			continue
		}
		var conn net.Conn
		var err error
		for {
			conn, err = net.DialTimeout("tcp", a, time.Until(deadline))
			if err == nil {
				_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
				if err = dialHandshake(conn, p.cfg.Secret, uint32(p.cfg.Self), exchangeChannel); err == nil {
					_ = conn.SetDeadline(time.Time{})
					break
				}
				conn.Close()
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("dataplane: cannot connect to %s within %v: %w", p.peerName(i), p.cfg.Timeout, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			conn.Close()
			return fmt.Errorf("dataplane: closed")
		}
		p.out[i] = &sender{conn: conn}
		p.mu.Unlock()
	}
	return nil
}

func (p *Plane) acceptLoop() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return // listener closed
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			conn.Close()
			return
		}
		p.fresh[conn] = true
		p.mu.Unlock()
		p.wg.Add(1)
		go p.admit(conn)
	}
}

// admit authenticates an incoming connection and then reads its frames.
func (p *Plane) admit(conn net.Conn) {
	defer p.wg.Done()
	_ = conn.SetDeadline(time.Now().Add(handshakeTimeout))
	from, channel, err := acceptHandshake(conn, p.cfg.Secret, p.cfg.Processes)
	if err == nil && from == p.cfg.Self {
		err = fmt.Errorf("a connection claims to be this process")
	}
	ins := p.in
	if channel == transferChannel {
		ins = p.xfer.in
	}
	p.mu.Lock()
	delete(p.fresh, conn)
	if err == nil && ins[from] != nil {
		err = fmt.Errorf("process %d is already connected", from)
	}
	if err == nil && p.closed {
		err = fmt.Errorf("data plane closed")
	}
	if err != nil {
		p.mu.Unlock()
		p.cfg.Logf("gojax: data plane of process %d refused a connection from %s: %v", p.cfg.Self, conn.RemoteAddr(), err)
		conn.Close()
		return
	}
	ins[from] = conn
	p.mu.Unlock()
	_ = conn.SetDeadline(time.Time{})
	if channel == transferChannel {
		err = p.readTransfers(from, conn)
	} else {
		err = p.readLoop(from, conn)
	}
	conn.Close()
	p.fail(from, err)
}

// fail records that process i's connections broke and wakes everything
// waiting on it.
func (p *Plane) fail(i int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.failed[i] != nil {
		return
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = fmt.Errorf("closed its connection (exited or was killed)")
	}
	p.failed[i] = fmt.Errorf("%s: %w", p.peerName(i), err)
	close(p.gone[i])
}

// readHeader reads one frame header from process from: the message it
// names and the payload size the sender claims (checked by the caller
// against what it expects, never used to size an allocation).
func readHeader(from int, conn net.Conn) (msgID, uint64, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(conn, h[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return msgID{}, 0, fmt.Errorf("truncated frame header: %w", err)
		}
		return msgID{}, 0, err
	}
	if binary.LittleEndian.Uint32(h[0:]) != frameMagic {
		return msgID{}, 0, fmt.Errorf("bad frame (not a gojax data-plane frame header)")
	}
	id := msgID{from: from, key: binary.LittleEndian.Uint64(h[4:]), seq: binary.LittleEndian.Uint64(h[12:])}
	return id, binary.LittleEndian.Uint64(h[20:]), nil
}

// readLoop reads frames from process from until the connection ends.
func (p *Plane) readLoop(from int, conn net.Conn) error {
	for {
		id, size, err := readHeader(from, conn)
		if err != nil {
			return err
		}
		s := p.slot(id)
		select {
		case <-s.registered:
		case <-time.After(p.cfg.Timeout):
			return fmt.Errorf("sent message %x/%d that this process did not ask for within %v", id.key, id.seq, p.cfg.Timeout)
		case <-p.done:
			return fmt.Errorf("data plane closed")
		}
		if size != uint64(len(s.dst)) {
			err := fmt.Errorf("sent %d bytes for message %x/%d, expected %d (mismatched shapes or programs)", size, id.key, id.seq, len(s.dst))
			s.err = err
			close(s.filled)
			return err
		}
		if _, err := io.ReadFull(conn, s.dst); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = fmt.Errorf("truncated frame (%d bytes announced): %w", size, io.ErrUnexpectedEOF)
			}
			s.err = err
			close(s.filled)
			return err
		}
		close(s.filled)
	}
}

func (p *Plane) slot(id msgID) *slot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.slots[id]
	if s == nil {
		s = &slot{registered: make(chan struct{}), filled: make(chan struct{})}
		p.slots[id] = s
	}
	return s
}

// register names the destination of message id; false when another call
// already did.
func (p *Plane) register(id msgID, dst []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.slots[id]
	if s == nil {
		s = &slot{registered: make(chan struct{}), filled: make(chan struct{})}
		p.slots[id] = s
	}
	if s.claimed {
		return false
	}
	s.claimed, s.dst = true, dst
	close(s.registered)
	return true
}

// Exchange sends payload to every process in recv and receives each one's
// message (key, seq) into recv[i], whose length is the size that process
// must send. It fails, naming the peer, when a peer's connection breaks,
// it sends another size, or nothing arrives within the timeout.
func (p *Plane) Exchange(key, seq uint64, payload []byte, recv map[int][]byte) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return fmt.Errorf("data plane closed")
	}
	p.mu.Unlock()
	ids := make(map[int]msgID, len(recv)) // the slots this call registered
	defer func() {
		p.mu.Lock()
		for _, id := range ids {
			delete(p.slots, id)
		}
		p.mu.Unlock()
	}()
	for i, dst := range recv {
		id := msgID{from: i, key: key, seq: seq}
		if !p.register(id, dst) {
			return fmt.Errorf("message %x/%d from %s is already expected", key, seq, p.peerName(i))
		}
		ids[i] = id
	}
	errs := make(chan error, len(recv))
	for i := range recv {
		go func() { errs <- p.send(i, key, seq, payload) }()
	}
	// Wait for every peer at once, so the first failure ends the wait.
	type result struct {
		from int
		err  error
	}
	results := make(chan result, len(ids))
	stop := make(chan struct{})
	defer close(stop)
	for i, id := range ids {
		p.mu.Lock()
		s, gone := p.slots[id], p.gone[i]
		p.mu.Unlock()
		go func() {
			select {
			case <-s.filled:
				if s.err != nil {
					results <- result{i, fmt.Errorf("%s: %w", p.peerName(i), s.err)}
					return
				}
				results <- result{i, nil}
			case <-gone:
				results <- result{i, p.failure(i)}
			case <-stop:
			}
		}()
	}
	timer := time.NewTimer(p.cfg.Timeout)
	defer timer.Stop()
	var first error
	pending := make(map[int]bool, len(ids))
	for i := range ids {
		pending[i] = true
	}
	for len(pending) > 0 && first == nil {
		select {
		case r := <-results:
			delete(pending, r.from)
			first = r.err
		case <-timer.C:
			missing := make([]string, 0, len(pending))
			for i := 0; i < p.cfg.Processes; i++ {
				if pending[i] {
					missing = append(missing, p.peerName(i))
				}
			}
			first = fmt.Errorf("%s sent nothing within %v (GOJAX_COLLECTIVE_TIMEOUT)", strings.Join(missing, ", "), p.cfg.Timeout)
		case <-p.done:
			first = fmt.Errorf("data plane closed")
		}
	}
	if first != nil {
		// Sends still under way end by their write deadline; the
		// caller does not reuse payload.
		return first
	}
	for range recv {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *Plane) failure(i int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed[i]
}

// send writes one frame to process i.
func (p *Plane) send(i int, key, seq uint64, payload []byte) error {
	p.mu.Lock()
	s, failed := p.out[i], p.failed[i]
	p.mu.Unlock()
	if failed != nil {
		return failed
	}
	if s == nil {
		return fmt.Errorf("%s is not connected", p.peerName(i))
	}
	return p.write(s, i, key, seq, payload)
}

// write sends one frame to process i on s.
func (p *Plane) write(s *sender, i int, key, seq uint64, payload []byte) error {
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:], frameMagic)
	binary.LittleEndian.PutUint64(h[4:], key)
	binary.LittleEndian.PutUint64(h[12:], seq)
	binary.LittleEndian.PutUint64(h[20:], uint64(len(payload)))
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(p.cfg.Timeout))
	bufs := net.Buffers{h[:], payload}
	if _, err := bufs.WriteTo(s.conn); err != nil {
		err = fmt.Errorf("sending to %s: %w", p.peerName(i), err)
		p.fail(i, err)
		return err
	}
	return nil
}

// Close shuts the listener and every connection and waits for the plane's
// goroutines to end; pending and later exchanges fail.
func (p *Plane) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.done)
	p.ln.Close()
	for _, s := range p.out {
		if s != nil {
			s.conn.Close()
		}
	}
	for _, c := range p.in {
		c.Close()
	}
	p.xfer.closeAll()
	for c := range p.fresh {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
