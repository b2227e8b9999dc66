// Package dataplane moves bytes between the processes of one multi-process
// job over TCP. Every process listens on one port and dials every other
// process once for exchanges (and once more, on first use, for
// point-to-point transfers); a connection carries data one way, from dialer
// to acceptor. Connections are authenticated with a per-job secret that only
// the job's processes know (they get it through the coordination service's
// key-value store), so a stranger cannot join or feed a job data.
//
// A message is identified by (key, seq): the program and how many times the
// job ran it. The receiver names the size it expects before the bytes are
// read, so nothing is allocated from a length the network sent.
package dataplane

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
)

// SecretSize is the length of a job secret.
const SecretSize = 32

// NewSecret returns a fresh random job secret.
func NewSecret() ([]byte, error) {
	s := make([]byte, SecretSize)
	if _, err := rand.Read(s); err != nil {
		return nil, fmt.Errorf("dataplane: cannot make a job secret: %w", err)
	}
	return s, nil
}

// helloMagic opens every connection: it names the protocol and its version.
var helloMagic = [8]byte{'G', 'O', 'J', 'A', 'X', 'D', 'P', '1'}

const nonceSize = 32

const (
	exchangeChannel uint32 = 0
	transferChannel uint32 = 1 << 31
)

// The handshake, dialer D to acceptor A:
//
//	A -> D: nonceA
//	D -> A: magic, D's process id, nonceD, HMAC(secret, "dial"|nonceA|nonceD|id)
//	A -> D: HMAC(secret, "accept"|nonceD|nonceA|id)
//
// Both sides prove they hold the secret over fresh nonces, so a recorded
// handshake cannot be replayed. The id's top bit names the connection's
// channel (exchanges or transfers); the proofs cover it.
func proof(secret []byte, role string, a, b []byte, id uint32) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(role))
	m.Write(a)
	m.Write(b)
	var idb [4]byte
	binary.LittleEndian.PutUint32(idb[:], id)
	m.Write(idb[:])
	return m.Sum(nil)
}

// dialHandshake runs the dialer's side on rw as process self.
func dialHandshake(rw io.ReadWriter, secret []byte, self, channel uint32) error {
	self |= channel
	nonceA := make([]byte, nonceSize)
	if _, err := io.ReadFull(rw, nonceA); err != nil {
		return fmt.Errorf("reading the challenge: %w", err)
	}
	nonceD := make([]byte, nonceSize)
	if _, err := rand.Read(nonceD); err != nil {
		return err
	}
	msg := make([]byte, 0, 8+4+nonceSize+sha256.Size)
	msg = append(msg, helloMagic[:]...)
	msg = binary.LittleEndian.AppendUint32(msg, self)
	msg = append(msg, nonceD...)
	msg = append(msg, proof(secret, "dial", nonceA, nonceD, self)...)
	if _, err := rw.Write(msg); err != nil {
		return fmt.Errorf("sending the response: %w", err)
	}
	got := make([]byte, sha256.Size)
	if _, err := io.ReadFull(rw, got); err != nil {
		return fmt.Errorf("reading the peer's proof (the peer refused us?): %w", err)
	}
	if !hmac.Equal(got, proof(secret, "accept", nonceD, nonceA, self)) {
		return fmt.Errorf("the peer does not hold the job secret")
	}
	return nil
}

// acceptHandshake runs the acceptor's side on rw and returns the dialer's
// process id, which must be below n, and the connection's channel.
func acceptHandshake(rw io.ReadWriter, secret []byte, n int) (int, uint32, error) {
	nonceA := make([]byte, nonceSize)
	if _, err := rand.Read(nonceA); err != nil {
		return 0, 0, err
	}
	if _, err := rw.Write(nonceA); err != nil {
		return 0, 0, err
	}
	var hello [8 + 4 + nonceSize + sha256.Size]byte
	if _, err := io.ReadFull(rw, hello[:]); err != nil {
		return 0, 0, fmt.Errorf("short hello: %w", err)
	}
	if [8]byte(hello[:8]) != helloMagic {
		return 0, 0, fmt.Errorf("not a gojax data-plane hello")
	}
	id := binary.LittleEndian.Uint32(hello[8:12])
	nonceD := hello[12 : 12+nonceSize]
	if !hmac.Equal(hello[12+nonceSize:], proof(secret, "dial", nonceA, nonceD, id)) {
		return 0, 0, fmt.Errorf("wrong job secret")
	}
	channel := id & transferChannel
	if int(id&^transferChannel) >= n {
		return 0, 0, fmt.Errorf("process id %d out of range (the job has %d processes)", id&^transferChannel, n)
	}
	if _, err := rw.Write(proof(secret, "accept", nonceD, nonceA, id)); err != nil {
		return 0, 0, err
	}
	return int(id &^ transferChannel), channel, nil
}
