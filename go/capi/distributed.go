package capi

import (
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/dataplane"
	"github.com/gojax/gojax/go/engine"
)

// A multi-process job (jax.distributed): the framework passes num_nodes,
// node_id and the coordination service's key-value store. Process 0 makes
// the job secret and publishes it; every process opens its data-plane port
// and publishes its device count and address; each reads the others' and
// dials them. Keys are under kvPrefix (the framework also prefixes them
// with the plugin's name).
const kvPrefix = "gojax/"

// jobSetup is what PJRT_Client_Create learned about the job.
type jobSetup struct {
	node, nodes int
	kv          *kvStore
}

// joinJob connects this process to the job's other processes and returns
// the engine's view of the job and the data plane (which the client closes
// when destroyed).
func joinJob(js *jobSetup, numDevices int) (*engine.Job, *dataplane.Plane, error) {
	st := config.Env()
	timeout := time.Duration(st.CollectiveTimeout) * time.Second
	var secret []byte
	if js.node == 0 {
		s, err := dataplane.NewSecret()
		if err != nil {
			return nil, nil, err
		}
		if err := js.kv.Put(kvPrefix+"secret", []byte(hex.EncodeToString(s))); err != nil {
			return nil, nil, err
		}
		secret = s
	} else {
		v, err := js.kv.Get(kvPrefix+"secret", timeout)
		if err != nil {
			return nil, nil, engine.Errorf(engine.CodeUnavailable, "process 0 did not publish the job secret within %v (GOJAX_COLLECTIVE_TIMEOUT): %v", timeout, err)
		}
		if secret, err = hex.DecodeString(string(v)); err != nil || len(secret) != dataplane.SecretSize {
			return nil, nil, engine.Errorf(engine.CodeInvalidArgument, "the job secret in the key-value store is malformed")
		}
	}
	host, listenHost := st.DataplaneHost, st.DataplaneHost
	if host == "auto" {
		host, listenHost = autoHost(), ""
	}
	plane, err := dataplane.Listen(dataplane.Config{Self: js.node, Processes: js.nodes, Secret: secret, Timeout: timeout}, listenHost, st.DataplanePort)
	if err != nil {
		return nil, nil, engine.Errorf(engine.CodeUnavailable, "%v", err)
	}
	ok := false
	defer func() {
		if !ok {
			plane.Close()
		}
	}()
	self := net.JoinHostPort(host, strconv.Itoa(plane.Port()))
	if err := js.kv.Put(kvPrefix+"process/"+strconv.Itoa(js.node), []byte(fmt.Sprintf("devices=%d addr=%s", numDevices, self))); err != nil {
		return nil, nil, err
	}
	job := &engine.Job{Self: js.node, Devices: make([]int, js.nodes), Peers: plane}
	addrs := make([]string, js.nodes)
	job.Devices[js.node], addrs[js.node] = numDevices, self
	for p := 0; p < js.nodes; p++ {
		if p == js.node {
			continue
		}
		v, err := js.kv.Get(kvPrefix+"process/"+strconv.Itoa(p), timeout)
		if err != nil {
			return nil, nil, engine.Errorf(engine.CodeUnavailable, "process %d did not publish its devices within %v (GOJAX_COLLECTIVE_TIMEOUT): %v", p, timeout, err)
		}
		if job.Devices[p], addrs[p], err = parseProcess(string(v)); err != nil {
			return nil, nil, engine.Errorf(engine.CodeInvalidArgument, "process %d published %q: %v", p, v, err)
		}
	}
	if err := plane.Connect(addrs); err != nil {
		return nil, nil, engine.Errorf(engine.CodeUnavailable, "%v", err)
	}
	ok = true
	return job, plane, nil
}

// parseProcess reads "devices=N addr=HOST:PORT".
func parseProcess(s string) (int, string, error) {
	f := strings.Fields(s)
	if len(f) != 2 || !strings.HasPrefix(f[0], "devices=") || !strings.HasPrefix(f[1], "addr=") {
		return 0, "", fmt.Errorf("not devices=N addr=HOST:PORT")
	}
	n, err := strconv.Atoi(strings.TrimPrefix(f[0], "devices="))
	if err != nil || n < 1 || n > config.MaxNumDevices {
		return 0, "", fmt.Errorf("bad device count")
	}
	addr := strings.TrimPrefix(f[1], "addr=")
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return 0, "", err
	}
	return n, addr, nil
}

// autoHost is the address other machines most likely reach this one at:
// the first non-loopback IPv4 address of an interface that is up, else
// loopback (a job on one machine).
func autoHost() string {
	ifs, err := net.Interfaces()
	if err == nil {
		for _, ifc := range ifs {
			if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
				continue
			}
			addrs, err := ifc.Addrs()
			if err != nil {
				continue
			}
			for _, a := range addrs {
				if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
					return ip.IP.String()
				}
			}
		}
	}
	return "127.0.0.1"
}
