package dataplane

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sendLater runs Send on a goroutine and returns its error channel.
func sendLater(p *Plane, to int, key int64, payload []byte) chan error {
	c := make(chan error, 1)
	go func() { c <- p.Send(to, key, payload) }()
	return c
}

func TestTransferAnyOrder(t *testing.T) {
	planes := job(t, 3, 10*time.Second, nil)
	a := bytes.Repeat([]byte{1, 2, 3}, 1000)
	b := bytes.Repeat([]byte{9}, 70000)
	// Two transfers between the same pair, sent in one order and taken
	// in the other.
	s7 := sendLater(planes[0], 2, 7, a)
	s8 := sendLater(planes[0], 2, 8, b)
	got8 := make([]byte, len(b))
	require.NoError(t, planes[2].Receive(0, 8, got8))
	got7 := make([]byte, len(a))
	require.NoError(t, planes[2].Receive(0, 7, got7))
	require.NoError(t, <-s7)
	require.NoError(t, <-s8)
	require.Equal(t, a, got7)
	require.Equal(t, b, got8)

	// Receiver first.
	got := make([]byte, len(a))
	r := make(chan error, 1)
	go func() { r <- planes[1].Receive(2, -5, got) }()
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, planes[2].Send(1, -5, a))
	require.NoError(t, <-r)
	require.Equal(t, a, got)

	// The key is free again once received.
	s7 = sendLater(planes[0], 2, 7, b[:len(a)])
	require.NoError(t, planes[2].Receive(0, 7, got7))
	require.NoError(t, <-s7)
	require.Equal(t, b[:len(a)], got7)
}

func TestTransferDoesNotBlockExchange(t *testing.T) {
	planes := job(t, 2, 10*time.Second, nil)
	payload := []byte("transfer")
	// A transfer pending in both directions while the processes
	// exchange: neither holds up the exchange's frames.
	dst := make([]byte, len(payload))
	r := make(chan error, 1)
	go func() { r <- planes[1].Receive(0, 3, dst) }()
	s := sendLater(planes[1], 0, 4, payload)
	got, errs := allExchange(planes, 3, 0, 16)
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, bytes.Repeat([]byte{1}, 16), got[1][0])
	require.Equal(t, bytes.Repeat([]byte{2}, 16), got[0][1])
	require.NoError(t, planes[0].Send(1, 3, payload))
	require.NoError(t, <-r)
	require.Equal(t, payload, dst)
	back := make([]byte, len(payload))
	require.NoError(t, planes[0].Receive(1, 4, back))
	require.NoError(t, <-s)
	require.Equal(t, payload, back)
}

func TestTransferErrors(t *testing.T) {
	planes := job(t, 3, 300*time.Millisecond, nil)
	require.ErrorContains(t, planes[0].Send(0, 1, nil), "no peer process 0")
	require.ErrorContains(t, planes[0].Receive(3, 1, nil), "no peer process 3")

	// Nothing sent: the timeout names the peer, on both sides.
	err := planes[1].Receive(0, 11, make([]byte, 4))
	require.ErrorContains(t, err, "process 0 (127.0.0.1:")
	require.ErrorContains(t, err, "sent nothing for transfer 11")
	err = planes[1].Send(2, 13, make([]byte, 4))
	require.ErrorContains(t, err, "process 2 (127.0.0.1:")
	require.ErrorContains(t, err, "did not ask for transfer 13")

	// A wrong size fails the receiver, naming the peer, without reading
	// the announced bytes into anything; the connection stays usable.
	s := sendLater(planes[2], 1, 12, make([]byte, 10))
	err = planes[1].Receive(2, 12, make([]byte, 4))
	require.ErrorContains(t, err, "process 2 (127.0.0.1:")
	require.ErrorContains(t, err, "sent 10 bytes, expected 4")
	require.NoError(t, <-s)
	s = sendLater(planes[2], 1, 14, []byte{5, 6})
	two := make([]byte, 2)
	require.NoError(t, planes[1].Receive(2, 14, two))
	require.NoError(t, <-s)
	require.Equal(t, []byte{5, 6}, two)
}

func TestTransferPeerExits(t *testing.T) {
	planes := job(t, 2, 20*time.Second, nil)
	done := make(chan error, 1)
	go func() { done <- planes[1].Receive(0, 1, make([]byte, 8)) }()
	time.Sleep(10 * time.Millisecond)
	planes[0].Close()
	select {
	case err := <-done:
		require.ErrorContains(t, err, "process 0 (127.0.0.1:")
		require.ErrorContains(t, err, "closed its connection")
	case <-time.After(15 * time.Second):
		t.Fatal("Receive still waits after its peer closed")
	}
	require.Error(t, planes[0].Send(1, 1, nil))
	planes[1].Close()
	require.ErrorContains(t, planes[1].Receive(0, 2, nil), "closed")
}

// Process 0 enters an exchange that process 1 reaches only after it has
// received a transfer that process 0 sends after the exchange's frame: the
// transfer must not queue behind that frame.
func TestTransferPassesPendingExchange(t *testing.T) {
	planes := job(t, 2, 10*time.Second, nil)
	ex := make(chan error, 1)
	got0 := map[int][]byte{1: make([]byte, 2)}
	go func() { ex <- planes[0].Exchange(5, 0, []byte{1, 2}, got0) }()
	time.Sleep(20 * time.Millisecond)
	s := sendLater(planes[0], 1, 9, []byte("after the exchange"))
	dst := make([]byte, len("after the exchange"))
	require.NoError(t, planes[1].Receive(0, 9, dst))
	require.NoError(t, <-s)
	require.Equal(t, "after the exchange", string(dst))
	got1 := map[int][]byte{0: make([]byte, 2)}
	require.NoError(t, planes[1].Exchange(5, 0, []byte{3, 4}, got1))
	require.NoError(t, <-ex)
	require.Equal(t, []byte{1, 2}, got1[0])
	require.Equal(t, []byte{3, 4}, got0[1])
}
