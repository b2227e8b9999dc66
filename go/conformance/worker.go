package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Cases run in a worker process (the test binary re-executed with
// WorkerEnv set), so that an engine bug that hangs, overflows the stack or
// aborts the Go runtime costs one case, not the whole run: the parent kills
// or loses the worker, records the case as failed, and starts a new one.

// WorkerEnv marks a process as a conformance worker.
const WorkerEnv = "GOJAX_CONFORMANCE_WORKER"

// Job is one case sent to a worker.
type Job struct {
	Kind   string `json:"kind"` // "stablehlo" or "jax-export"
	Name   string `json:"name"`
	Path   string `json:"path"`   // artifact (stablehlo) or shared jax-export dir
	Checks int    `json:"checks"` // stablehlo: number of check calls
	// Artifact is a jax-export vector's refined program (shape-polymorphic
	// vectors), replacing <Path>/<Name>.bc.
	Artifact string `json:"artifact,omitempty"`
	// Parallel is a stablehlo case run by several processes (artifact
	// paths resolved); Path is then its checks.
	Parallel *ParallelSpec `json:"parallel,omitempty"`
}

type jobResult struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Reason string `json:"reason"`
}

// IsWorker reports whether this process should serve jobs.
func IsWorker() bool { return os.Getenv(WorkerEnv) != "" }

// ServeWorker reads jobs (JSON lines) from in and writes one result line per
// job to out, until in closes.
func ServeWorker(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var j Job
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			return err
		}
		r := runJob(j)
		if err := enc.Encode(jobResult{Name: r.Name, Status: r.Status, Reason: r.Reason}); err != nil {
			return err
		}
	}
	return sc.Err()
}

// extraJobKinds lets tests add job kinds (crashing or hanging on purpose).
var extraJobKinds = map[string]func(Job) Result{}

// runJob runs one case in this process, turning panics into failures.
func runJob(j Job) (r Result) {
	r = Result{Name: j.Name, Status: Pass}
	defer func() {
		if p := recover(); p != nil {
			r.Status, r.Reason = Fail, fmt.Sprintf("panic: %v", p)
		}
	}()
	var err error
	switch j.Kind {
	case "stablehlo":
		if j.Parallel != nil {
			err = runParallel(j.Path, j.Parallel, j.Checks > 0)
		} else {
			err = runChecked(j.Path, j.Checks > 0)
		}
	case "jax-export":
		var skip string
		skip, err = runJAXExport(j.Path, j.Name, j.Artifact)
		if skip != "" {
			return Result{Name: j.Name, Status: Skip, Reason: skip}
		}
	default:
		if fn, ok := extraJobKinds[j.Kind]; ok {
			return fn(j)
		}
		err = fmt.Errorf("unknown job kind %q", j.Kind)
	}
	if err != nil {
		r.Status, r.Reason = Fail, err.Error()
	}
	return r
}

// Pool runs jobs in a worker process, restarting it after a crash or timeout.
type Pool struct {
	Timeout time.Duration
	exe     string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	results *bufio.Scanner
	stderr  *headBuffer
	done    chan error
}

// NewPool prepares a pool running the current executable as worker.
func NewPool(timeout time.Duration) (*Pool, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &Pool{Timeout: timeout, exe: exe}, nil
}

func (p *Pool) start() error {
	cmd := exec.Command(p.exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), WorkerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	// Results come on a dedicated pipe (fd 3) so stray prints on stdout do
	// not corrupt them.
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.ExtraFiles = []*os.File{wr}
	p.stderr = &headBuffer{max: 16 << 10}
	cmd.Stderr = p.stderr
	cmd.Stdout = p.stderr
	if err := cmd.Start(); err != nil {
		rd.Close()
		wr.Close()
		return err
	}
	wr.Close()
	p.cmd, p.stdin = cmd, stdin
	p.results = bufio.NewScanner(rd)
	p.results.Buffer(make([]byte, 1<<20), 1<<20)
	p.done = make(chan error, 1)
	go func() { p.done <- cmd.Wait(); rd.Close() }()
	return nil
}

// Run sends one job and waits for its result.
func (p *Pool) Run(j Job) Result {
	if p.cmd == nil {
		if err := p.start(); err != nil {
			return Result{Name: j.Name, Status: Fail, Reason: "cannot start worker: " + err.Error()}
		}
	}
	p.stderr.reset()
	line, _ := json.Marshal(j)
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.stop()
		return Result{Name: j.Name, Status: Fail, Reason: "worker died before the case: " + p.stderr.String()}
	}
	got := make(chan *jobResult, 1)
	go func() {
		if !p.results.Scan() {
			got <- nil
			return
		}
		var r jobResult
		if err := json.Unmarshal(p.results.Bytes(), &r); err != nil {
			got <- nil
			return
		}
		got <- &r
	}()
	select {
	case r := <-got:
		if r == nil {
			<-p.done
			reason := "worker crashed: " + crashSummary(p.stderr.String())
			p.cmd = nil
			return Result{Name: j.Name, Status: Fail, Reason: reason}
		}
		return Result{Name: r.Name, Status: r.Status, Reason: r.Reason}
	case <-time.After(p.Timeout):
		p.stop()
		<-got
		return Result{Name: j.Name, Status: Fail, Reason: fmt.Sprintf("timeout after %v", p.Timeout)}
	}
}

func (p *Pool) stop() {
	if p.cmd == nil {
		return
	}
	p.stdin.Close()
	p.cmd.Process.Kill()
	<-p.done
	p.cmd = nil
}

// Close stops the worker.
func (p *Pool) Close() {
	if p.cmd != nil {
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
		p.cmd = nil
	}
}

// crashSummary keeps the fatal line and the first gojax frames of a crash.
func crashSummary(s string) string {
	lines := strings.Split(s, "\n")
	var keep []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "runtime:") ||
			(strings.HasPrefix(l, "github.com/gojax/gojax/go/") && len(keep) < 6) {
			keep = append(keep, strings.TrimPrefix(l, "github.com/gojax/gojax/go/"))
		}
	}
	if len(keep) == 0 {
		s = strings.TrimSpace(s)
		if len(s) > 300 {
			s = s[len(s)-300:]
		}
		return s
	}
	return strings.Join(keep, " | ")
}

// headBuffer keeps the first max bytes written since the last reset (a
// worker's output for the current case: crash reports start with the reason).
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		if len(p) < room {
			room = len(p)
		}
		h.b = append(h.b, p[:room]...)
	}
	return len(p), nil
}

func (h *headBuffer) reset() {
	h.mu.Lock()
	h.b = h.b[:0]
	h.mu.Unlock()
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}
