package shardy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gojax/gojax/go/ir"
)

// OpShardingRule is an op's sdy.sharding_rule (JAX puts one on the custom
// calls of its LAPACK and other kernels): every dimension of every operand
// and result is a list of factors (major to minor), and dimensions that
// share a factor are split alike when the op runs per partition.
type OpShardingRule struct {
	Operands, Results [][][]string // per tensor, per dimension, its factors
	Sizes             map[string]int64
	// Special are factors that may not be split without more than running
	// the op on blocks: reduction, need_replication, permutation and
	// blocked_propagation factors.
	Special map[string]bool
}

// RuleOf reads op's sdy.sharding_rule, or nil when it has none.
func RuleOf(op *ir.Op) (*OpShardingRule, error) {
	a, ok := op.Attrs["sdy.sharding_rule"]
	if !ok {
		return nil, nil
	}
	var text string
	switch a := a.(type) {
	case ir.OpaqueAttr:
		text = a.Text
	case ir.StringAttr:
		text = a.Value
	default:
		return nil, fmt.Errorf("sdy.sharding_rule has an unexpected form %v", a)
	}
	return ParseOpShardingRule(text)
}

// ParseOpShardingRule parses
// `#sdy.op_sharding_rule<([i, j], [j])->([i]) {i=8, j=4} reduction={j}, custom>`.
func ParseOpShardingRule(text string) (*OpShardingRule, error) {
	bad := func(why string) (*OpShardingRule, error) {
		return nil, fmt.Errorf("sharding rule %q: %s", text, why)
	}
	s := strings.TrimSpace(text)
	s, ok := strings.CutPrefix(s, "#sdy.op_sharding_rule<")
	if !ok || !strings.HasSuffix(s, ">") {
		return bad("not an #sdy.op_sharding_rule")
	}
	s = strings.TrimSuffix(s, ">")
	sig, rest, ok := strings.Cut(s, " {")
	if !ok {
		return bad("no factor sizes")
	}
	ins, outs, ok := strings.Cut(sig, "->")
	if !ok {
		return bad("no ->")
	}
	r := &OpShardingRule{Sizes: map[string]int64{}, Special: map[string]bool{}}
	var err error
	if r.Operands, err = parseTensorFactors(ins); err != nil {
		return bad(err.Error())
	}
	if r.Results, err = parseTensorFactors(outs); err != nil {
		return bad(err.Error())
	}
	sizes, tail, ok := strings.Cut(rest, "}")
	if !ok {
		return bad("factor sizes are not closed")
	}
	for _, kv := range strings.Split(sizes, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 0 {
			return bad(fmt.Sprintf("factor size %q", kv))
		}
		r.Sizes[k] = n
	}
	for _, kind := range []string{"reduction", "need_replication", "permutation", "blocked_propagation"} {
		_, after, found := strings.Cut(tail, kind+"={")
		if !found {
			continue
		}
		list, _, ok := strings.Cut(after, "}")
		if !ok {
			return bad(kind + " is not closed")
		}
		for _, f := range strings.Split(list, ",") {
			r.Special[strings.TrimSpace(f)] = true
		}
	}
	for _, ts := range [][][][]string{r.Operands, r.Results} {
		for _, t := range ts {
			for _, d := range t {
				for _, f := range d {
					if _, ok := r.Sizes[f]; !ok {
						return bad("factor " + f + " has no size")
					}
				}
			}
		}
	}
	return r, nil
}

// parseTensorFactors reads "([i, j, k], [i])": each tensor a bracketed list
// of dimensions, each dimension one or more factor names run together
// ("ij"); names are a letter with an optional _N suffix.
func parseTensorFactors(s string) ([][][]string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, fmt.Errorf("tensor list %q is not parenthesized", s)
	}
	s = s[1 : len(s)-1]
	var out [][][]string
	for len(strings.TrimSpace(s)) > 0 {
		s = strings.TrimLeft(s, " ,")
		if !strings.HasPrefix(s, "[") {
			return nil, fmt.Errorf("tensor %q does not start with [", s)
		}
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return nil, fmt.Errorf("tensor %q is not closed", s)
		}
		var dims [][]string
		if body := strings.TrimSpace(s[1:end]); body != "" {
			for _, d := range strings.Split(body, ",") {
				fs, err := splitFactors(strings.TrimSpace(d))
				if err != nil {
					return nil, err
				}
				dims = append(dims, fs)
			}
		}
		out = append(out, dims)
		s = s[end+1:]
	}
	return out, nil
}

func splitFactors(d string) ([]string, error) {
	var fs []string
	for i := 0; i < len(d); {
		c := d[i]
		if c < 'a' || c > 'z' {
			return nil, fmt.Errorf("dimension %q: factor names are letters", d)
		}
		j := i + 1
		if j < len(d) && d[j] == '_' {
			j++
			for j < len(d) && d[j] >= '0' && d[j] <= '9' {
				j++
			}
		}
		fs = append(fs, d[i:j])
		i = j
	}
	if len(fs) == 0 {
		return nil, fmt.Errorf("empty dimension")
	}
	return fs, nil
}
