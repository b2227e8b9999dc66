package dataplane

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// job starts n planes on loopback that share a secret.
func job(t *testing.T, n int, timeout time.Duration, logs *logSink) []*Plane {
	t.Helper()
	secret, err := NewSecret()
	require.NoError(t, err)
	planes := make([]*Plane, n)
	addrs := make([]string, n)
	for i := range planes {
		cfg := Config{Self: i, Processes: n, Secret: secret, Timeout: timeout}
		if logs != nil {
			cfg.Logf = logs.logf
		}
		planes[i], err = Listen(cfg, "127.0.0.1", 0)
		require.NoError(t, err)
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", planes[i].Port())
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range planes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = planes[i].Connect(addrs) }()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, p := range planes {
			p.Close()
		}
	})
	return planes
}

type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logSink) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// allExchange has every plane send its id, repeated size times, to all
// others and returns what each received.
func allExchange(planes []*Plane, key, seq uint64, size int) ([]map[int][]byte, []error) {
	n := len(planes)
	got := make([]map[int][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, p := range planes {
		got[i] = map[int][]byte{}
		for j := range planes {
			if j != i {
				got[i][j] = make([]byte, size)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.Exchange(key, seq, bytes.Repeat([]byte{byte(i + 1)}, size), got[i])
		}()
	}
	wg.Wait()
	return got, errs
}

func TestExchange(t *testing.T) {
	planes := job(t, 3, 20*time.Second, nil)
	for seq, size := range []int{0, 1, 1 << 20, 3<<20 + 5} {
		got, errs := allExchange(planes, 42, uint64(seq), size)
		for i := range planes {
			require.NoError(t, errs[i])
			for j, b := range got[i] {
				require.Equal(t, bytes.Repeat([]byte{byte(j + 1)}, size), b, "plane %d from %d", i, j)
			}
		}
	}
}

func TestStrangerRefused(t *testing.T) {
	logs := &logSink{}
	planes := job(t, 2, 20*time.Second, logs)
	addr := fmt.Sprintf("127.0.0.1:%d", planes[0].Port())

	// Someone with another secret.
	other, err := NewSecret()
	require.NoError(t, err)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.Error(t, dialHandshake(c, other, 1, exchangeChannel))
	c.Close()
	// Someone speaking another protocol, then hanging up.
	c, err = net.Dial("tcp", addr)
	require.NoError(t, err)
	_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 100)))
	c.Close()
	require.Eventually(t, func() bool { return strings.Count(logs.text(), "refused a connection") >= 2 }, 10*time.Second, 10*time.Millisecond)
	require.Contains(t, logs.text(), "wrong job secret")
	require.Contains(t, logs.text(), "not a gojax data-plane hello")

	// The job goes on.
	got, errs := allExchange(planes, 7, 0, 100)
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, bytes.Repeat([]byte{2}, 100), got[0][1])
}

func TestPeerGone(t *testing.T) {
	planes := job(t, 3, 20*time.Second, nil)
	planes[2].Close()
	got := map[int][]byte{1: make([]byte, 8), 2: make([]byte, 8)}
	start := time.Now()
	err := planes[0].Exchange(1, 0, make([]byte, 8), got)
	require.Error(t, err)
	require.Contains(t, err.Error(), "process 2 (127.0.0.1:")
	require.Less(t, time.Since(start), 15*time.Second)
}

func TestTimeout(t *testing.T) {
	planes := job(t, 2, 300*time.Millisecond, nil)
	err := planes[0].Exchange(1, 0, []byte{1}, map[int][]byte{1: make([]byte, 1)})
	require.ErrorContains(t, err, "process 1 (127.0.0.1:")
	require.ErrorContains(t, err, "sent nothing within")
}

func TestWrongSize(t *testing.T) {
	planes := job(t, 2, 5*time.Second, nil)
	errs := make(chan error, 2)
	go func() { errs <- planes[0].Exchange(1, 0, make([]byte, 4), map[int][]byte{1: make([]byte, 4)}) }()
	go func() { errs <- planes[1].Exchange(1, 0, make([]byte, 5), map[int][]byte{0: make([]byte, 4)}) }()
	e1, e2 := <-errs, <-errs
	require.True(t, e1 != nil || e2 != nil)
	msg := fmt.Sprint(e1, e2)
	require.Contains(t, msg, "sent 5 bytes")
}

// A frame whose bytes stop short is an error naming the peer, not a hang.
func TestTruncatedFrame(t *testing.T) {
	secret, err := NewSecret()
	require.NoError(t, err)
	p, err := Listen(Config{Self: 0, Processes: 2, Secret: secret, Timeout: 5 * time.Second}, "127.0.0.1", 0)
	require.NoError(t, err)
	defer p.Close()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p.Port()))
	require.NoError(t, err)
	require.NoError(t, dialHandshake(c, secret, 1, exchangeChannel))
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:], frameMagic)
	binary.LittleEndian.PutUint64(h[4:], 9)
	binary.LittleEndian.PutUint64(h[20:], 16)
	_, _ = c.Write(append(h[:], 1, 2, 3))
	c.Close()
	err = p.Exchange(9, 0, nil, map[int][]byte{1: make([]byte, 16)})
	require.ErrorContains(t, err, "truncated frame")
}

// After Close nothing listens and the plane's goroutines are gone.
func TestCloseReleases(t *testing.T) {
	secret, err := NewSecret()
	require.NoError(t, err)
	p, err := Listen(Config{Self: 0, Processes: 2, Secret: secret, Timeout: time.Second}, "127.0.0.1", 0)
	require.NoError(t, err)
	addr := fmt.Sprintf("127.0.0.1:%d", p.Port())
	silent, err := net.Dial("tcp", addr) // a stranger that never speaks
	require.NoError(t, err)
	defer silent.Close()
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on an unauthenticated connection")
	}
	_, err = net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err)
}

// BenchmarkExchange measures an exchange of 16 MiB between two processes'
// planes over loopback (both directions at once).
func BenchmarkExchange(b *testing.B) {
	secret, _ := NewSecret()
	var planes [2]*Plane
	addrs := make([]string, 2)
	for i := range planes {
		p, err := Listen(Config{Self: i, Processes: 2, Secret: secret, Timeout: time.Minute}, "127.0.0.1", 0)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		planes[i] = p
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", p.Port())
	}
	for _, p := range planes {
		if err := p.Connect(addrs); err != nil {
			b.Fatal(err)
		}
	}
	const size = 16 << 20
	payload := make([]byte, size)
	recv := [2][]byte{make([]byte, size), make([]byte, size)}
	b.SetBytes(size)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var wg sync.WaitGroup
		for i, p := range planes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.Exchange(1, uint64(n), payload, map[int][]byte{1 - i: recv[i]}); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}

// A job's planes, once closed, leave no goroutine behind, even with an
// exchange in flight and a stranger mid-handshake.
func TestCloseEndsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	secret, err := NewSecret()
	require.NoError(t, err)
	var planes []*Plane
	var addrs []string
	for i := 0; i < 3; i++ {
		p, err := Listen(Config{Self: i, Processes: 3, Secret: secret, Timeout: 30 * time.Second}, "127.0.0.1", 0)
		require.NoError(t, err)
		planes = append(planes, p)
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", p.Port()))
	}
	var wg sync.WaitGroup
	for _, p := range planes {
		wg.Add(1)
		go func() { defer wg.Done(); require.NoError(t, p.Connect(addrs)) }()
	}
	wg.Wait()
	stranger, err := net.Dial("tcp", addrs[0])
	require.NoError(t, err)
	defer stranger.Close()
	inflight := make(chan error, 1)
	go func() { inflight <- planes[0].Exchange(5, 0, []byte{1}, map[int][]byte{1: make([]byte, 1)}) }()
	time.Sleep(50 * time.Millisecond)
	for _, p := range planes {
		p.Close()
	}
	require.Error(t, <-inflight)
	// (Not require.Eventually: it counts its own goroutine.)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if runtime.NumGoroutine() > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
