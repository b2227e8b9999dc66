package conformance

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// The StableHLO corpora check results with custom calls (testdata: @check.*
// targets written by JAX's test generator; interpret: the check dialect,
// rewritten into the same custom calls by serialize.py). gojax has no such
// kernels in production; the runner registers them here and records every
// verdict in the active recorder.
//
// Tolerances follow the reference interpreter (stablehlo/tests/CheckOps.cpp,
// stablehlo/reference/Element.cpp, StablehloTranslateMain.cpp):
//   - expect_eq: exact (integers, booleans; floats compare by value, and a
//     NaN matches a NaN);
//   - expect_close: at most max_ulp_difference (default 3) units in the last
//     place per float component; exact for integers;
//   - expect_almost_eq: equal, or of one sign with |actual - expected| <=
//     tolerance, per component (0.0001 for the check dialect op, 0.001 for
//     the testdata custom call without a tolerance); NaN matches NaN,
//     infinities must be equal;
//   - eq: like expect_almost_eq with 0.0001 for floats, exact for integers;
//     it also returns the verdict as a tensor<i1>;
//   - expect_allclose (gojax's own, for round-trip programs checked against
//     XLA:CPU, see roundtrip.py): numpy.allclose per float component,
//     |actual - expected| <= atol + rtol*|expected|, NaN matches NaN,
//     infinities must be equal; exact for integers;
//   - expect_within (gojax's own, roundtrip.py's check of accumulating
//     programs): a third operand, a float64 tensor of the result's shape,
//     holds each element's allowed |actual - expected| (an error bound
//     computed from the inputs); otherwise as expect_allclose, per float
//     component.

const (
	defaultMaxULP           = 3
	almostEqTolerance       = 0.0001
	customAlmostEqTolerance = 0.001
)

// checkTargets are the custom-call targets the runner implements.
var checkTargets = []string{"check.expect_eq", "check.expect_close", "check.expect_almost_eq", "check.eq", "check.expect_allclose", "check.expect_within"}

func init() {
	for _, t := range checkTargets {
		kernel.RegisterCustomCall(t, lowerCheck(t))
	}
	kernel.RegisterCustomCall("interpreter.probe", lowerProbe)
	kernel.RegisterCustomCall("check.expect_serialized_eq", lowerSerializedEq)
}

// verdict is the outcome of one executed check.
type verdict struct {
	target string
	loc    string
	err    error // nil when the check passed
}

// recorder collects the verdicts of one program run, and the values each
// interpreter.probe saw (per probe id, one per execution).
type recorder struct {
	mu       sync.Mutex
	verdicts []verdict
	probes   map[string][]probed
}

type probed struct {
	t    *ir.TensorType
	data []byte
}

var (
	activeMu sync.Mutex
	active   *recorder
)

// startRecording installs a fresh recorder; stopRecording removes it and
// returns what it saw. The runner runs one program at a time.
func startRecording() *recorder {
	r := &recorder{}
	activeMu.Lock()
	active = r
	activeMu.Unlock()
	return r
}

func stopRecording() {
	activeMu.Lock()
	active = nil
	activeMu.Unlock()
}

func activeRecorder(what, loc string) (*recorder, error) {
	activeMu.Lock()
	r := active
	activeMu.Unlock()
	if r == nil {
		return nil, fmt.Errorf("%s at %s executed outside the conformance runner", what, loc)
	}
	return r, nil
}

func record(v verdict) error {
	r, err := activeRecorder(v.target, v.loc)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.verdicts = append(r.verdicts, v)
	r.mu.Unlock()
	return nil
}

// result summarizes the recorded verdicts: nil when every check passed and,
// if the program has checks, at least one ran.
func (r *recorder) result(hasChecks bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.verdicts) == 0 && hasChecks {
		return fmt.Errorf("no check executed (the program ran, but no check.* custom call did)")
	}
	failed := 0
	var first error
	for _, v := range r.verdicts {
		if v.err != nil {
			failed++
			if first == nil {
				first = fmt.Errorf("%s at %s: %w", v.target, v.loc, v.err)
			}
		}
	}
	if failed == 0 {
		return nil
	}
	if len(r.verdicts) > 1 {
		return fmt.Errorf("%d of %d checks failed; first: %w", failed, len(r.verdicts), first)
	}
	return first
}

// checkParams are the options a check takes from its backend_config
// ("tolerance=0.1", "max_ulp_difference=5,min_ulp_difference=0").
type checkParams struct {
	tolerance float64
	rtol      float64 // expect_allclose
	atol      float64 // expect_allclose
	maxULP    uint64
	minULP    uint64
	bound     []byte // expect_within: float64 per element, set per execution
}

func parseParams(target, config string) (checkParams, error) {
	p := checkParams{maxULP: defaultMaxULP, tolerance: almostEqTolerance}
	if target == "check.expect_almost_eq" {
		p.tolerance = customAlmostEqTolerance
	}
	for _, kv := range strings.Split(config, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("bad backend_config entry %q", kv)
		}
		var err error
		switch strings.TrimSpace(k) {
		case "tolerance":
			p.tolerance, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
		case "max_ulp_difference":
			p.maxULP, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		case "min_ulp_difference":
			p.minULP, err = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		case "rtol":
			p.rtol, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
		case "atol":
			p.atol, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
		default:
			err = fmt.Errorf("unknown option")
		}
		if err != nil {
			return p, fmt.Errorf("backend_config %q: %v", kv, err)
		}
	}
	return p, nil
}

// lowerCheck compiles one check custom call: it compares operand 0 (actual)
// with operand 1 (expected) and records the verdict; check.eq also writes it
// to its i1 result.
func lowerCheck(target string) kernel.Lower {
	return func(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
		want := 2
		if target == "check.expect_within" {
			want = 3
		}
		if len(op.Operands) != want {
			return nil, op.Errorf("%s takes %d operands, has %d", target, want, len(op.Operands))
		}
		a, b := op.Operands[0].Tensor(), op.Operands[1].Tensor()
		if a == nil || b == nil {
			return nil, op.Errorf("%s compares tensors", target)
		}
		if !a.Equal(b) {
			return nil, op.Errorf("%s operands differ in type: %s vs %s", target, a, b)
		}
		if want == 3 {
			if bt := op.Operands[2].Tensor(); bt == nil || !bt.Equal(ir.Tensor(ir.F64, a.Shape...)) {
				return nil, op.Errorf("%s bound must be a float64 tensor of shape %v", target, a.Shape)
			}
		}
		writesResult := false
		switch len(op.Results) {
		case 0:
		case 1:
			rt := op.Results[0].Tensor()
			if rt == nil || rt.Elem != ir.Pred || rt.Rank() != 0 {
				return nil, op.Errorf("%s result must be tensor<i1>", target)
			}
			writesResult = true
		default:
			return nil, op.Errorf("%s has %d results", target, len(op.Results))
		}
		config, _ := op.Attrs.Str("backend_config")
		params, err := parseParams(target, config)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		loc := op.Loc.String()
		t := a
		return func(ins, outs [][]byte) error {
			p := params
			if len(ins) == 3 {
				p.bound = ins[2]
			}
			cmpErr := compareTensors(target, t, ins[0], ins[1], p)
			if writesResult {
				outs[0][0] = 0
				if cmpErr == nil {
					outs[0][0] = 1
				}
			}
			return record(verdict{target: target, loc: loc, err: cmpErr})
		}, nil
	}
}

// compareTensors applies a check's rule to every element and describes the
// mismatches.
func compareTensors(target string, t *ir.TensorType, actual, expected []byte, p checkParams) error {
	n := int(t.NumElements())
	if len(actual) < n*t.Elem.ByteSize() || len(expected) < n*t.Elem.ByteSize() {
		return fmt.Errorf("buffers too small for %s", t)
	}
	if target == "check.expect_within" && len(p.bound) < 8*n {
		return fmt.Errorf("bound buffer too small for %s", t)
	}
	bad, first := 0, -1
	var why string
	for i := 0; i < n; i++ {
		ok, detail := elementMatches(target, t.Elem, actual, expected, i, p)
		if !ok {
			if first < 0 {
				first, why = i, detail
			}
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d elements of %s differ; first at %s: got %s, want %s%s",
		bad, n, t, index(t.Shape, first), formatAt(t.Elem, actual, first), formatAt(t.Elem, expected, first), why)
}

// elementMatches compares element i; detail explains a float mismatch.
func elementMatches(target string, e ir.ElemType, actual, expected []byte, i int, p checkParams) (bool, string) {
	if target == "check.expect_within" {
		// Element i's bound is an absolute tolerance for each of its components.
		p.atol, p.rtol = floatAt(ir.F64, p.bound, i), 0
	}
	switch {
	case e.IsBool() || e.IsInteger():
		return intAt(e, actual, i) == intAt(e, expected, i), ""
	case e.IsComplex():
		part := ir.F32
		if e == ir.C128 {
			part = ir.F64
		}
		for c := 0; c < 2; c++ {
			if ok, d := floatMatches(target, part, actual, expected, 2*i+c, p); !ok {
				return false, d
			}
		}
		return true, ""
	}
	return floatMatches(target, e, actual, expected, i, p)
}

func floatMatches(target string, e ir.ElemType, actual, expected []byte, i int, p checkParams) (bool, string) {
	a, b := floatAt(e, actual, i), floatAt(e, expected, i)
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b), ""
	}
	switch target {
	case "check.expect_eq":
		return a == b, ""
	case "check.expect_close":
		d := ulpDistance(e, bitsAt(e, actual, i), bitsAt(e, expected, i))
		if d > p.maxULP || d < p.minULP {
			return false, fmt.Sprintf(" (%d ULP; allowed %d..%d)", d, p.minULP, p.maxULP)
		}
		return true, ""
	case "check.expect_allclose", "check.expect_within":
		if a == b {
			return true, ""
		}
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return false, ""
		}
		if target == "check.expect_within" {
			if d := math.Abs(a - b); !(d <= p.atol) {
				return false, fmt.Sprintf(" (|diff| %.3g > error bound %.3g)", d, p.atol)
			}
			return true, ""
		}
		if lim := p.atol + p.rtol*math.Abs(b); math.Abs(a-b) > lim {
			return false, fmt.Sprintf(" (|diff| %.3g > atol %g + rtol %g * |want|)", math.Abs(a-b), p.atol, p.rtol)
		}
		return true, ""
	default: // expect_almost_eq, eq (reference: Element.cpp areApproximatelyEqual)
		if a == b {
			return true, ""
		}
		if math.IsInf(a, 0) || math.IsInf(b, 0) {
			return false, ""
		}
		if math.Signbit(a) != math.Signbit(b) {
			return false, " (signs differ)"
		}
		if math.Abs(a-b) > p.tolerance {
			return false, fmt.Sprintf(" (|diff| %.3g > tolerance %g)", math.Abs(a-b), p.tolerance)
		}
		return true, ""
	}
}

// ulpDistance counts representable values between two floats of one type by
// mapping sign-magnitude bit patterns onto a monotonic integer line.
func ulpDistance(e ir.ElemType, a, b uint64) uint64 {
	width := e.Bits()
	ordered := func(x uint64) int64 {
		if e == ir.F8E8M0FNU { // unsigned exponent-only format
			return int64(x)
		}
		sign := x >> (width - 1) & 1
		mag := int64(x & (1<<(width-1) - 1))
		if sign == 1 {
			return -mag
		}
		return mag
	}
	d := ordered(a) - ordered(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

// The reference interpreter's instrumentation (stablehlo/reference/Ops.cpp,
// InterpreterOps.cpp): interpreter.probe returns its operand and records it
// under probe_id, once per execution (so a probe in a loop body records every
// iteration); check.expect_serialized_eq compares a value with what probe_id
// recorded at execution iter (default 0), exactly. serialize.py passes the
// probe id as backend_config ("iter=N,probe_id=ID" for the check).

func lowerProbe(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	if len(op.Operands) != 1 || len(op.Results) != 1 {
		return nil, op.Errorf("interpreter.probe takes 1 operand and has 1 result")
	}
	t, rt := op.Operands[0].Tensor(), op.Results[0].Tensor()
	if t == nil || rt == nil || !t.Equal(rt) {
		return nil, op.Errorf("interpreter.probe returns its operand's tensor type")
	}
	id, _ := op.Attrs.Str("backend_config")
	if id == "" {
		return nil, op.Errorf("interpreter.probe without a probe_id")
	}
	loc := op.Loc.String()
	return func(ins, outs [][]byte) error {
		r, err := activeRecorder("interpreter.probe", loc)
		if err != nil {
			return err
		}
		data := append([]byte(nil), ins[0]...)
		copy(outs[0], ins[0])
		r.mu.Lock()
		if r.probes == nil {
			r.probes = map[string][]probed{}
		}
		r.probes[id] = append(r.probes[id], probed{t: t, data: data})
		r.mu.Unlock()
		return nil
	}, nil
}

func lowerSerializedEq(ctx kernel.Context, op *ir.Op) (kernel.Step, error) {
	const target = "check.expect_serialized_eq"
	if len(op.Operands) != 1 || len(op.Results) != 0 {
		return nil, op.Errorf("%s takes 1 operand and has no results", target)
	}
	t := op.Operands[0].Tensor()
	if t == nil {
		return nil, op.Errorf("%s checks a tensor", target)
	}
	config, _ := op.Attrs.Str("backend_config")
	iterText, rest, ok1 := strings.Cut(config, ",")
	itv, ok2 := strings.CutPrefix(iterText, "iter=")
	id, ok3 := strings.CutPrefix(rest, "probe_id=")
	iter, err := strconv.Atoi(itv)
	if !ok1 || !ok2 || !ok3 || err != nil || iter < 0 || id == "" {
		return nil, op.Errorf("%s: backend_config %q is not iter=N,probe_id=ID", target, config)
	}
	loc := op.Loc.String()
	return func(ins, outs [][]byte) error {
		r, err := activeRecorder(target, loc)
		if err != nil {
			return err
		}
		r.mu.Lock()
		seen := r.probes[id]
		r.mu.Unlock()
		var cmpErr error
		switch {
		case iter >= len(seen):
			cmpErr = fmt.Errorf("probe %q recorded %d values, none at iteration %d", id, len(seen), iter)
		case !seen[iter].t.Equal(t):
			cmpErr = fmt.Errorf("probe %q recorded a %s, the check expects a %s", id, seen[iter].t, t)
		case !bytes.Equal(seen[iter].data, ins[0][:t.ByteSize()]):
			cmpErr = compareTensors("check.expect_eq", t, seen[iter].data, ins[0], checkParams{})
			if cmpErr == nil {
				cmpErr = fmt.Errorf("probe %q: same values, different bytes", id)
			}
		}
		return record(verdict{target: target, loc: loc, err: cmpErr})
	}, nil
}
