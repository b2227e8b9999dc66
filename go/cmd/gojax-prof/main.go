// Command gojax-prof compiles a StableHLO portable artifact with gojax's
// compiler and runs it repeatedly on generated inputs, optionally under the Go
// CPU profiler, so that a slow workload can be profiled without the Python
// and PJRT layers in the way.
//
//	python -m benchmarks --export /tmp/art --only conv2d_bwd
//	go run ./go/cmd/gojax-prof -n 5 -cpuprofile /tmp/conv.pprof /tmp/art/conv2d_bwd.bc
//	go tool pprof -top /tmp/conv.pprof
//
// Inputs are deterministic pseudo-random values (floats in [-1, 1), small
// non-negative integers, alternating booleans) shaped after the artifact's
// @main signature. The JSON sidecar that `--export` writes beside the
// artifact (NAME.json, {"inputs": [{"dtype", "shape"}]}) is read when present
// (or given with -inputs) and checked against that signature, so a stale
// sidecar fails loudly instead of profiling the wrong program.
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/gojax/gojax/go/compiler"
	gjconfig "github.com/gojax/gojax/go/config"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// config is what one invocation does.
type config struct {
	artifact   string
	inputs     string // sidecar path; "" means NAME.json beside the artifact, if present
	diag       float64
	runs       int
	warmup     int
	cpuProfile string        // written around the timed runs only (not compile, not warm-up)
	pause      time.Duration // idle time before each timed run
}

// report is what one invocation measured.
type report struct {
	Compile time.Duration
	Runs    []time.Duration
}

// sidecar is the JSON file written by `python -m benchmarks --export`.
type sidecar struct {
	Name   string `json:"name"`
	Inputs []struct {
		Dtype string  `json:"dtype"`
		Shape []int64 `json:"shape"`
	} `json:"inputs"`
}

// numpyElem maps numpy dtype names to gojax element types.
var numpyElem = map[string]ir.ElemType{
	"bool": ir.Pred, "int8": ir.S8, "int16": ir.S16, "int32": ir.S32, "int64": ir.S64,
	"uint8": ir.U8, "uint16": ir.U16, "uint32": ir.U32, "uint64": ir.U64,
	"bfloat16": ir.BF16, "float16": ir.F16, "float32": ir.F32, "float64": ir.F64,
	"complex64": ir.C64, "complex128": ir.C128,
}

func main() {
	var c config
	flag.IntVar(&c.runs, "n", 10, "timed runs")
	flag.IntVar(&c.warmup, "warmup", 1, "untimed runs before the timed ones")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs to this file")
	flag.DurationVar(&c.pause, "pause", 0, "sleep this long before each timed run (first calls after idle time)")
	flag.Float64Var(&c.diag, "diag", 0, "add this to the diagonal of square float and complex matrix inputs (e.g. positive definite operands for Cholesky)")
	flag.StringVar(&c.inputs, "inputs", "", "JSON sidecar with input dtypes/shapes (default: NAME.json beside the artifact, if any)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gojax-prof [flags] artifact.bc\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	c.artifact = flag.Arg(0)
	r, err := run(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gojax-prof: %v\n", err)
		os.Exit(1)
	}
	r.print(os.Stdout, c)
}

func run(c config) (*report, error) {
	if c.runs < 1 {
		return nil, fmt.Errorf("-n must be at least 1, got %d", c.runs)
	}
	code, err := os.ReadFile(c.artifact)
	if err != nil {
		return nil, err
	}
	// The GOJAX_* settings apply as in the plugin (GOJAX_DUMP_DIR dumps the
	// optimized module and the plan).
	if err := gjconfig.EnvErr(); err != nil {
		return nil, err
	}
	opts := compiler.Options{DumpDir: gjconfig.Env().DumpDir, OnDumpError: func(err error) {
		fmt.Fprintf(os.Stderr, "gojax-prof: warning: %v\n", err)
	}}
	t0 := time.Now()
	exe, err := compiler.Compile(code, opts)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", c.artifact, err)
	}
	r := &report{Compile: time.Since(t0)}
	if err := checkSidecar(c, exe.InputTypes()); err != nil {
		return nil, err
	}
	args, err := makeInputs(exe.InputTypes(), c.diag)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, a := range args {
			devmem.Free(a)
		}
	}()
	for range c.warmup {
		if err := runOnce(exe, args); err != nil {
			return nil, err
		}
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	for range c.runs {
		if c.pause > 0 {
			time.Sleep(c.pause)
		}
		t := time.Now()
		if err := runOnce(exe, args); err != nil {
			return nil, err
		}
		r.Runs = append(r.Runs, time.Since(t))
	}
	return r, nil
}

func runOnce(exe *compiler.Executable, args [][]byte) error {
	res, err := exe.Run(args, nil)
	if err != nil {
		return err
	}
	for k, o := range res.Outputs {
		if res.AliasOf[k] < 0 {
			devmem.Free(o)
		}
	}
	return nil
}

// checkSidecar compares the sidecar's inputs with the artifact's signature.
func checkSidecar(c config, types []ir.Type) error {
	path := c.inputs
	if path == "" {
		path = strings.TrimSuffix(c.artifact, ".bc") + ".json"
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil // no sidecar: the signature alone shapes the inputs
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var s sidecar
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("sidecar %s: %w", path, err)
	}
	if len(s.Inputs) != len(types) {
		return fmt.Errorf("sidecar %s lists %d inputs, the artifact takes %d", path, len(s.Inputs), len(types))
	}
	for i, in := range s.Inputs {
		et, ok := numpyElem[in.Dtype]
		want := &ir.TensorType{Shape: in.Shape, Elem: et}
		if got, isT := types[i].(*ir.TensorType); !ok || !isT || !got.Equal(want) {
			return fmt.Errorf("sidecar %s: input %d is %s %v, the artifact takes %s", path, i, in.Dtype, in.Shape, types[i])
		}
	}
	return nil
}

// makeInputs allocates device buffers for each input type and fills them
// with deterministic pseudo-random data.
// With diag != 0, diag is added to the diagonal of every square floating
// or complex matrix (its last two dimensions), so that Cholesky programs,
// which symmetrize their operand, see positive definite matrices.
func makeInputs(types []ir.Type, diag float64) ([][]byte, error) {
	var args [][]byte
	state := uint64(0x9e3779b97f4a7c15)
	next := func() float64 { // xorshift64*: uniform in [0, 1)
		state ^= state >> 12
		state ^= state << 25
		state ^= state >> 27
		return float64((state*0x2545f4914f6cdd1d)>>11) / (1 << 53)
	}
	for i, t := range types {
		tt, ok := t.(*ir.TensorType)
		if !ok {
			freeAll(args)
			return nil, fmt.Errorf("input %d has type %s; only tensors are supported", i, t)
		}
		buf, err := devmem.Alloc(int(tt.ByteSize()))
		if err != nil {
			freeAll(args)
			return nil, err
		}
		args = append(args, buf)
		if err := fill(buf, tt.Elem, next); err != nil {
			freeAll(args)
			return nil, fmt.Errorf("input %d (%s): %w", i, t, err)
		}
		addDiag(buf, tt, diag)
	}
	return args, nil
}

func fill(buf []byte, et ir.ElemType, next func() float64) error {
	le := binary.LittleEndian
	size := et.ByteSize()
	for off := 0; off < len(buf); off += size {
		u := next()
		b := buf[off : off+size]
		switch et {
		case ir.F32:
			le.PutUint32(b, math.Float32bits(float32(2*u-1)))
		case ir.F64:
			le.PutUint64(b, math.Float64bits(2*u-1))
		case ir.C64:
			le.PutUint32(b, math.Float32bits(float32(2*u-1)))
			le.PutUint32(b[4:], math.Float32bits(float32(2*next()-1)))
		case ir.C128:
			le.PutUint64(b, math.Float64bits(2*u-1))
			le.PutUint64(b[8:], math.Float64bits(2*next()-1))
		case ir.BF16:
			le.PutUint16(b, uint16(math.Float32bits(float32(2*u-1))>>16))
		case ir.F16:
			le.PutUint16(b, f16Bits(2*u-1))
		case ir.Pred:
			b[0] = byte(off/size) & 1
		case ir.S8, ir.U8:
			b[0] = byte(u * 8)
		case ir.S16, ir.U16:
			le.PutUint16(b, uint16(u*8))
		case ir.S32, ir.U32:
			le.PutUint32(b, uint32(u*8))
		case ir.S64, ir.U64:
			le.PutUint64(b, uint64(u*8))
		default:
			return fmt.Errorf("no input generator for element type %s", et)
		}
	}
	return nil
}

// addDiag adds d to the real part of the diagonal of each square matrix
// of a float32, float64, complex64 or complex128 tensor.
func addDiag(buf []byte, tt *ir.TensorType, d float64) {
	r := tt.Rank()
	if d == 0 || r < 2 || tt.Shape[r-1] != tt.Shape[r-2] {
		return
	}
	n := int(tt.Shape[r-1])
	size := tt.Elem.ByteSize()
	le := binary.LittleEndian
	for m := 0; m+n*n*size <= len(buf); m += n * n * size {
		for i := 0; i < n; i++ {
			b := buf[m+(i*n+i)*size:]
			switch tt.Elem {
			case ir.F32, ir.C64:
				le.PutUint32(b, math.Float32bits(math.Float32frombits(le.Uint32(b))+float32(d)))
			case ir.F64, ir.C128:
				le.PutUint64(b, math.Float64bits(math.Float64frombits(le.Uint64(b))+d))
			}
		}
	}
}

func freeAll(bufs [][]byte) {
	for _, b := range bufs {
		devmem.Free(b)
	}
}

func (r *report) print(w io.Writer, c config) {
	s := slices.Clone(r.Runs)
	slices.Sort(s)
	fmt.Fprintf(w, "%s: compile %v; %d runs: min %v median %v max %v\n",
		c.artifact, r.Compile, len(s), s[0], s[len(s)/2], s[len(s)-1])
	if c.cpuProfile != "" {
		fmt.Fprintf(w, "CPU profile of the timed runs: %s (go tool pprof -top %s)\n", c.cpuProfile, c.cpuProfile)
	}
}

// f16Bits encodes x (|x| <= 1) as IEEE half precision, truncating the
// mantissa and flushing values below the normal range to zero: inputs for
// timing, not conversions to test.
func f16Bits(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	e := exp - 1 + 15          // biased exponent of 2·frac·2^(exp-1)
	if x == 0 || e <= 0 {
		return sign
	}
	return sign | uint16(e)<<10 | uint16((2*frac-1)*1024)
}
