package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

// The jax-export corpus: artifacts JAX serialized, with inputs and expected
// outputs in .npz files, checked as JAX's own back-compat test does
// (index.json "jax_check"): allclose to the expected outputs, or, where
// outputs are only defined up to sign, phase or order, mathematical
// properties of the results (checkers below).

// ExportEntry is one index.json entry (the fields the runner uses).
type ExportEntry struct {
	Name             string       `json:"name"`
	Module           string       `json:"module"`
	Platform         string       `json:"platform"`
	NrDevices        int          `json:"nr_devices"`
	Inputs           []ExportSpec `json:"inputs"`
	Outputs          []ExportSpec `json:"outputs"`
	ShapePolymorphic bool         `json:"shape_polymorphic"`
	JaxCheck         struct {
		Test string   `json:"test"`
		Rtol *float64 `json:"rtol"`
		Atol *float64 `json:"atol"`
		How  string   `json:"how"`
	} `json:"jax_check"`
}

// ExportSpec is an input or output description.
type ExportSpec struct {
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

var (
	indexMu    sync.Mutex
	indexCache = map[string][]ExportEntry{}
)

// LoadExportIndex reads <dir>/index.json.
func LoadExportIndex(dir string) ([]ExportEntry, error) {
	indexMu.Lock()
	defer indexMu.Unlock()
	if e, ok := indexCache[dir]; ok {
		return e, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return nil, err
	}
	var entries []ExportEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("jax-export index: %w", err)
	}
	indexCache[dir] = entries
	return entries, nil
}

// RunJAXExport runs every vector of the corpus in a worker process.
// Shape-polymorphic vectors are first refined to the shapes of their .npz
// inputs (RefineExport), as JAX does before a program reaches a plugin; root
// (the repository) locates the refinement script and Python.
func RunJAXExport(root, dir string, filter func(string) bool, progress func(Result)) ([]Result, error) {
	entries, err := LoadExportIndex(dir)
	if err != nil {
		return nil, err
	}
	pool, err := NewPool(CaseTimeout)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	var out []Result
	for _, e := range entries {
		if filter != nil && !filter(e.Name) {
			continue
		}
		var r Result
		artifact := ""
		if e.ShapePolymorphic {
			artifact, err = RefineExport(root, dir, e)
		}
		if err != nil {
			r = Result{Name: e.Name, Status: Fail, Reason: "refine: " + err.Error()}
			err = nil
		} else {
			r = pool.Run(Job{Kind: "jax-export", Name: e.Name, Path: dir, Artifact: artifact})
		}
		out = append(out, r)
		if progress != nil {
			progress(r)
		}
	}
	return out, nil
}

// runJAXExport runs one vector; a non-empty skip says why it does not apply.
// artifact, if not empty, replaces <dir>/<name>.bc (a refined copy).
func runJAXExport(dir, name, artifact string) (skip string, err error) {
	entries, err := LoadExportIndex(dir)
	if err != nil {
		return "", err
	}
	var e *ExportEntry
	for i := range entries {
		if entries[i].Name == name {
			e = &entries[i]
		}
	}
	if e == nil {
		return "", fmt.Errorf("no index entry %q", name)
	}
	// A vector for several devices (Shardy SPMD) is run in its global form,
	// as go/engine runs SPMD programs: the inputs are the global arrays and
	// manual computations run once per partition of their mesh.
	if e.ShapePolymorphic && artifact == "" {
		return "", fmt.Errorf("shape-polymorphic vector was not refined to static shapes")
	}
	if artifact == "" {
		artifact = filepath.Join(dir, name+".bc")
	}
	code, err := os.ReadFile(artifact)
	if err != nil {
		return "", err
	}
	npz, err := os.ReadFile(filepath.Join(dir, name+".npz"))
	if err != nil {
		return "", err
	}
	arrays, err := ReadNPZ(npz)
	if err != nil {
		return "", err
	}
	ins, outs, err := splitArrays(arrays, len(e.Inputs), len(e.Outputs))
	if err != nil {
		return "", err
	}
	exe, err := compiler.Compile(code, compiler.Options{})
	if err != nil {
		return "", fmt.Errorf("compile: %w", err)
	}
	got, err := execute(exe, ins)
	if err != nil {
		return "", err
	}
	if len(got) != len(outs) {
		return "", fmt.Errorf("program returned %d outputs; expected %d", len(got), len(outs))
	}
	for i := range got {
		if !got[i].Type.Equal(outs[i].Type) {
			return "", fmt.Errorf("output %d is %s; expected %s", i, got[i].Type, outs[i].Type)
		}
	}
	rtol, atol := tolerances(e, outs)
	if check, ok := propertyChecks[e.Module]; ok {
		return "", check(ins, got, outs, rtol, atol)
	}
	for i := range got {
		if err := allClose(fmt.Sprintf("output %d", i), got[i], outs[i], rtol, atol); err != nil {
			return "", err
		}
	}
	return "", nil
}

// splitArrays orders in0.. and out0.. arrays.
func splitArrays(arrays map[string]*Array, nIn, nOut int) (ins, outs []*Array, err error) {
	for i := 0; i < nIn; i++ {
		a, ok := arrays[fmt.Sprintf("in%d", i)]
		if !ok {
			return nil, nil, fmt.Errorf("npz lacks in%d", i)
		}
		ins = append(ins, a)
	}
	for i := 0; i < nOut; i++ {
		a, ok := arrays[fmt.Sprintf("out%d", i)]
		if !ok {
			return nil, nil, fmt.Errorf("npz lacks out%d", i)
		}
		outs = append(outs, a)
	}
	return ins, outs, nil
}

// execute copies the inputs into device buffers, runs, and copies the
// outputs back (freeing all device memory).
func execute(exe *compiler.Executable, ins []*Array) ([]*Array, error) {
	types := exe.InputTypes()
	if len(types) != len(ins) {
		return nil, fmt.Errorf("entry takes %d arguments; the vector has %d inputs", len(types), len(ins))
	}
	args := make([][]byte, len(ins))
	defer func() {
		for _, a := range args {
			if a != nil {
				devmem.Free(a)
			}
		}
	}()
	for i, a := range ins {
		tt, ok := types[i].(*ir.TensorType)
		if !ok || !tt.Equal(a.Type) {
			return nil, fmt.Errorf("argument %d is %s; the input is %s", i, types[i], a.Type)
		}
		buf, err := devmem.Alloc(len(a.Data))
		if err != nil {
			return nil, err
		}
		copy(buf, a.Data)
		args[i] = buf
	}
	res, err := exe.Run(args, make([]bool, len(args)))
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	defer freeOutputs(res)
	outTypes := exe.OutputTypes()
	if len(outTypes) != len(res.Outputs) {
		return nil, fmt.Errorf("run returned %d buffers for %d output types", len(res.Outputs), len(outTypes))
	}
	out := make([]*Array, len(res.Outputs))
	for i, o := range res.Outputs {
		tt, ok := outTypes[i].(*ir.TensorType)
		if !ok {
			return nil, fmt.Errorf("output %d has non-tensor type %s", i, outTypes[i])
		}
		if int64(len(o)) != tt.ByteSize() {
			return nil, fmt.Errorf("output %d buffer has %d bytes; %s needs %d", i, len(o), tt, tt.ByteSize())
		}
		out[i] = &Array{Type: tt, Data: append([]byte(nil), o...)}
	}
	return out, nil
}

// tolerances applies JAX's defaults: rtol 1e-7 when absent; atol per dtype
// (1e-6 for 32-bit floats, 1e-15 for 64-bit, 0 for integers).
func tolerances(e *ExportEntry, outs []*Array) (rtol, atol float64) {
	rtol = 1e-7
	if e.JaxCheck.Rtol != nil {
		rtol = *e.JaxCheck.Rtol
	}
	if e.JaxCheck.Atol != nil {
		return rtol, *e.JaxCheck.Atol
	}
	for _, o := range outs {
		switch o.Type.Elem {
		case ir.F32, ir.C64:
			atol = math.Max(atol, 1e-6)
		case ir.F64, ir.C128:
			atol = math.Max(atol, 1e-15)
		}
	}
	return rtol, atol
}

// values reads any numeric array as complex128 (reals have zero imaginary part).
func values(a *Array) []complex128 {
	n := int(a.Type.NumElements())
	out := make([]complex128, n)
	e := a.Type.Elem
	for i := range out {
		switch {
		case e.IsComplex():
			out[i] = complexAt(e, a.Data, i)
		case e.IsFloat():
			out[i] = complex(floatAt(e, a.Data, i), 0)
		default:
			out[i] = complex(float64(intAt(e, a.Data, i)), 0)
		}
	}
	return out
}

// allClose is numpy.testing.assert_allclose: |got - want| <= atol + rtol*|want|,
// NaNs equal; integers exact.
func allClose(what string, got, want *Array, rtol, atol float64) error {
	if got.Type.Elem.IsInteger() || got.Type.Elem.IsBool() {
		rtol, atol = 0, 0
	}
	return closeValues(what, got.Type.Shape, values(got), values(want), rtol, atol)
}

func closeValues(what string, shape []int64, got, want []complex128, rtol, atol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d values, expected %d", what, len(got), len(want))
	}
	bad, first := 0, -1
	for i := range got {
		g, w := got[i], want[i]
		if cmplx.IsNaN(g) || cmplx.IsNaN(w) {
			if cmplx.IsNaN(g) && cmplx.IsNaN(w) {
				continue
			}
		} else if g == w || cmplx.Abs(g-w) <= atol+rtol*cmplx.Abs(w) {
			continue
		}
		bad++
		if first < 0 {
			first = i
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%s: %d of %d values not close (rtol %g, atol %g); first at %s: got %v, want %v",
		what, bad, len(got), rtol, atol, index(shape, first), got[first], want[first])
}

// eps is the machine epsilon of an element type's real part.
func eps(e ir.ElemType) float64 {
	switch e {
	case ir.F32, ir.C64:
		return math.Pow(2, -23)
	case ir.F16:
		return math.Pow(2, -10)
	case ir.BF16:
		return math.Pow(2, -7)
	}
	return math.Pow(2, -52)
}

// describeShapes lists array types for messages.
func describeShapes(as []*Array) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.Type.String()
	}
	return strings.Join(parts, ", ")
}
