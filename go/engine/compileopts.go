package engine

import (
	_ "embed"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// JAX's compiler_options arrive as CompileOptionsProto.env_option_overrides
// (field 7, map<string, OptionOverrideProto>; OptionOverrideProto is a oneof
// of string_field = 1, bool_field = 2, int_field = 3, double_field = 4). XLA
// treats each as an override of the xla.DebugOptions field of that name and
// rejects an unknown name or a value the field cannot take. gojax honours
// none of these fields (they tune XLA's own passes and backends), so every
// one of them is accepted and ignored, but the names and values are checked
// as XLA checks them: a misspelt option is an error on gojax as on XLA.

//go:embed xla_debug_options.txt
var debugOptionsText string

// debugOption is one field of xla.DebugOptions.
type debugOption struct {
	typ      string   // protobuf type name: bool, int32, int64, float, double, string, enum, message
	repeated bool     // a list: set from text as comma-separated values
	values   []string // enum value names
}

var debugOptions = sync.OnceValue(func() map[string]debugOption {
	m := map[string]debugOption{}
	for _, line := range strings.Split(debugOptionsText, "\n") {
		w := strings.Fields(line)
		if len(w) < 2 || strings.HasPrefix(w[0], "#") {
			continue
		}
		o := debugOption{}
		if w[1] == "repeated" {
			o.repeated, w = true, append(w[:1], w[2:]...)
		}
		o.typ = w[1]
		if len(w) > 2 {
			o.values = w[2:]
		}
		m[w[0]] = o
	}
	return m
})

// optionOverride is one decoded OptionOverrideProto.
type optionOverride struct {
	kind byte // 's', 'b', 'i', 'd'
	s    string
	b    bool
	i    int64
	d    float64
}

func (v optionOverride) String() string {
	switch v.kind {
	case 'b':
		return strconv.FormatBool(v.b)
	case 'i':
		return strconv.FormatInt(v.i, 10)
	case 'd':
		return strconv.FormatFloat(v.d, 'g', 6, 64)
	}
	return v.s
}

// checkOptionOverrides validates the env_option_overrides entries (the
// serialized map entries of field 7).
func checkOptionOverrides(entries [][]byte) error {
	for _, e := range entries {
		key, val, err := parseOverride(e)
		if err != nil {
			return Errorf(CodeInvalidArgument, "compile options: env_option_overrides: %v", err)
		}
		if err := checkOption(key, val); err != nil {
			return err
		}
	}
	return nil
}

func parseOverride(entry []byte) (string, optionOverride, error) {
	fs, err := protoFields(entry)
	if err != nil {
		return "", optionOverride{}, err
	}
	var key string
	val := optionOverride{kind: 's'}
	for _, f := range fs {
		switch {
		case f.num == 1 && f.wire == 2:
			key = string(f.b)
		case f.num == 2 && f.wire == 2:
			vs, err := protoFields(f.b)
			if err != nil {
				return "", val, err
			}
			for _, g := range vs {
				switch {
				case g.num == 1 && g.wire == 2:
					val = optionOverride{kind: 's', s: string(g.b)}
				case g.num == 2 && g.wire == 0:
					val = optionOverride{kind: 'b', b: g.v != 0}
				case g.num == 3 && g.wire == 0:
					val = optionOverride{kind: 'i', i: int64(g.v)}
				case g.num == 4 && g.wire == 1:
					val = optionOverride{kind: 'd', d: math.Float64frombits(g.v)}
				}
			}
		}
	}
	return key, val, nil
}

// checkOption accepts what XLA's CompileOptions::ApplyOption accepts.
func checkOption(key string, v optionOverride) error {
	o, ok := debugOptions()[key]
	if !ok {
		return Errorf(CodeInvalidArgument, "No such compile option: '%s'", key)
	}
	bad := func(value string) error {
		return Errorf(CodeInvalidArgument, "While setting option %s, '%s' is not a valid %s value.", key, value, o.typ)
	}
	if v.kind == 's' {
		// A string sets any field from its text; a repeated field takes a
		// comma-separated list, the empty string clearing it.
		if !o.repeated {
			if !o.parses(v.s) {
				return bad(v.s)
			}
			return nil
		}
		if v.s == "" {
			return nil
		}
		for _, s := range strings.Split(v.s, ",") {
			if !o.parses(s) {
				return bad(s)
			}
		}
		return nil
	}
	switch {
	case v.kind == 'b' && o.typ == "bool",
		v.kind == 'i' && (o.typ == "int64" || o.typ == "enum"),
		v.kind == 'i' && o.typ == "int32" && v.i >= math.MinInt32 && v.i <= math.MaxInt32,
		// XLA's range check for a float field: between the smallest
		// positive normal float and the largest float.
		v.kind == 'd' && o.typ == "float" && v.d >= 0x1p-126 && v.d <= math.MaxFloat32,
		v.kind == 'd' && o.typ == "double":
		return nil
	}
	return bad(v.String())
}

// parses reports whether s is a value of the option's type, written as XLA
// reads it from text.
func (o debugOption) parses(s string) bool {
	t := strings.TrimSpace(s)
	switch o.typ {
	case "string":
		return true
	case "bool":
		return s == "True" || s == "False"
	case "int32":
		_, err := strconv.ParseInt(t, 10, 32)
		return err == nil
	case "int64":
		_, err := strconv.ParseInt(t, 10, 64)
		return err == nil
	case "float":
		_, err := strconv.ParseFloat(t, 32)
		return err == nil
	case "double":
		_, err := strconv.ParseFloat(t, 64)
		return err == nil
	case "enum":
		if _, err := strconv.ParseInt(t, 10, 32); err == nil {
			return true
		}
		return slices.Contains(o.values, s)
	}
	return false
}
