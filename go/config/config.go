// Package config is the one place gojax reads its GOJAX_* environment
// variables. Each variable has a kind (bool, int, size, enum, path) and is
// parsed by that kind's parser, the same one gojax.config's setters use, so a
// value means the same thing wherever it is given. The environment is read
// once, when the library loads (Env); packages take their starting values
// from that snapshot or from options passed to them, never from os.Getenv.
//
// A value no parser accepts is an error naming the variable and the accepted
// values. The snapshot then holds the default for that variable, and
// EnvErr reports the error: `import gojax` raises it and PJRT client
// creation returns it, so a typo cannot pass unnoticed.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxNumDevices bounds the device count of a client.
const MaxNumDevices = 1024

// Settings are the values of every GOJAX_* variable.
type Settings struct {
	// NumDevices is the device count of a client created without a
	// num_devices option (GOJAX_NUM_DEVICES).
	NumDevices int
	// NumDevicesSet says GOJAX_NUM_DEVICES was given: it then overrides
	// JAX's jax_num_cpu_devices.
	NumDevicesSet bool
	// AsyncDispatch makes single-device executions return before the
	// program has run (GOJAX_ASYNC_DISPATCH).
	AsyncDispatch bool
	// InlineBytes bounds the memory of a program that always runs on the
	// calling thread; 0 turns that off (GOJAX_INLINE_BYTES).
	InlineBytes int64
	// BufferCacheBytes is the device memory cache budget; -1 means the
	// default, min(1 GiB, RAM/8) (GOJAX_BUFFER_CACHE_BYTES).
	BufferCacheBytes int64
	// MemoryLimit bounds the device memory gojax's buffers hold and each
	// program-sized Go-heap allocation; -1 means no limit but what the
	// host can give, read at each check (GOJAX_MEMORY_LIMIT).
	MemoryLimit int64
	// DumpDir receives module dumps of every compile; "" is off
	// (GOJAX_DUMP_DIR). Always absolute when set.
	DumpDir string
	// CrashOutput is a file that also receives the report of a fatal error
	// in gojax's Go code, appended; "" is off (GOJAX_CRASH_OUTPUT). Always
	// absolute when set.
	CrashOutput string
	// DebugNans turns NaN detection on (GOJAX_DEBUG_NANS).
	DebugNans bool
	// FlushDenormals runs programs with FTZ/DAZ (GOJAX_FLUSH_DENORMALS).
	FlushDenormals bool
	// SpinMicros is how long idle workers poll before parking
	// (GOJAX_SPIN_US).
	SpinMicros int64
	// Vector caps the vector instruction sets kernels use: "auto",
	// "avx512", "avx2" or "none" (GOJAX_VECTOR).
	Vector string
	// CollectiveTimeout bounds, in seconds, every wait of a multi-process
	// job on another process (GOJAX_COLLECTIVE_TIMEOUT).
	CollectiveTimeout int64
	// SPMDPartition runs sharded programs the partitioner accepts as one
	// program per device on its shards; false runs every sharded program
	// on global arrays (GOJAX_SPMD_PARTITION).
	SPMDPartition bool
	// DataplaneHost is the host or IP address other processes of a
	// multi-process job reach this one at; "auto" picks this machine's
	// first non-loopback IPv4 address (GOJAX_DATAPLANE_HOST).
	DataplaneHost string
	// DataplanePort is the data-plane port; 0 is any free port
	// (GOJAX_DATAPLANE_PORT).
	DataplanePort int
}

// Defaults are the settings of an empty environment.
func Defaults() Settings {
	return Settings{
		NumDevices:        1,
		InlineBytes:       256 << 10,
		BufferCacheBytes:  -1,
		MemoryLimit:       -1,
		FlushDenormals:    true,
		SpinMicros:        100,
		Vector:            "auto",
		CollectiveTimeout: 300,
		DataplaneHost:     "auto",
		SPMDPartition:     true,
	}
}

// DevicesFor is the device count of a client when JAX asks for jaxCPU host
// devices (jax_num_cpu_devices; < 1: JAX does not say): GOJAX_NUM_DEVICES
// when set, gojax's own override, else jaxCPU, else the default.
func (st Settings) DevicesFor(jaxCPU int) int {
	if st.NumDevicesSet || jaxCPU < 1 {
		return st.NumDevices
	}
	return jaxCPU
}

// Kinds of variables, each with one parser.
const (
	KindBool = "bool"
	KindInt  = "int"
	KindSize = "size"
	KindEnum = "enum"
	KindPath = "path"
	KindHost = "host"
)

// Var describes one variable: its names, kind, default and accepted values
// (docs/runtime.md's table lists the same).
type Var struct {
	Env      string // environment variable
	Field    string // gojax.config field
	Kind     string
	Default  string // the default, as documented
	Accepted string // what the parser accepts, for error messages
	// set parses s (never empty) with the kind's parser, reporting errors
	// under name, and stores the value in st.
	set func(st *Settings, name, s string) error
	// reset stores the default.
	reset func(st *Settings)
}

const (
	boolAccepted = "1/0, true/false, yes/no or on/off (any case)"
	sizeAccepted = "a byte count: a whole number, optionally with a KiB, MiB, GiB or TiB suffix"
)

// Vars lists every variable gojax reads.
var Vars = []*Var{
	{
		Env: "GOJAX_NUM_DEVICES", Field: "num_devices", Kind: KindInt, Default: "1",
		Accepted: fmt.Sprintf("a whole number from 1 to %d", MaxNumDevices),
		set: func(st *Settings, name, s string) error {
			v, err := ParseInt(name, s, 1, MaxNumDevices)
			st.NumDevices, st.NumDevicesSet = int(v), err == nil
			return err
		},
		reset: func(st *Settings) { st.NumDevices, st.NumDevicesSet = Defaults().NumDevices, false },
	},
	boolVar("GOJAX_ASYNC_DISPATCH", "async_dispatch", func(st *Settings) *bool { return &st.AsyncDispatch }),
	{
		Env: "GOJAX_INLINE_BYTES", Field: "inline_bytes", Kind: KindSize, Default: "256KiB",
		Accepted: sizeAccepted + " (0 turns inline runs off)",
		set: func(st *Settings, name, s string) (err error) {
			st.InlineBytes, err = ParseSize(name, s, 0, math.MaxInt64)
			return err
		},
		reset: func(st *Settings) { st.InlineBytes = Defaults().InlineBytes },
	},
	{
		Env: "GOJAX_BUFFER_CACHE_BYTES", Field: "buffer_cache_bytes", Kind: KindSize, Default: "min(1GiB, RAM/8)",
		Accepted: sizeAccepted + " (0 turns the cache off)",
		set: func(st *Settings, name, s string) (err error) {
			st.BufferCacheBytes, err = ParseSize(name, s, 0, math.MaxInt64)
			return err
		},
		reset: func(st *Settings) { st.BufferCacheBytes = Defaults().BufferCacheBytes },
	},
	{
		Env: "GOJAX_MEMORY_LIMIT", Field: "memory_limit", Kind: KindSize, Default: "what the host can give",
		Accepted: sizeAccepted + " of at least 1MiB",
		set: func(st *Settings, name, s string) (err error) {
			st.MemoryLimit, err = ParseSize(name, s, 1<<20, math.MaxInt64)
			return err
		},
		reset: func(st *Settings) { st.MemoryLimit = Defaults().MemoryLimit },
	},
	pathVar("GOJAX_DUMP_DIR", "dump_dir", "a directory path (made absolute; created when missing)",
		func(st *Settings) *string { return &st.DumpDir }),
	pathVar("GOJAX_CRASH_OUTPUT", "crash_output", "a file path (made absolute; created when missing, appended to)",
		func(st *Settings) *string { return &st.CrashOutput }),
	boolVar("GOJAX_DEBUG_NANS", "debug_nans", func(st *Settings) *bool { return &st.DebugNans }),
	boolVar("GOJAX_FLUSH_DENORMALS", "flush_denormals", func(st *Settings) *bool { return &st.FlushDenormals }),
	{
		Env: "GOJAX_SPIN_US", Field: "spin_us", Kind: KindInt, Default: "100",
		Accepted: "a whole number of microseconds from 0 to 1000000 (0 parks idle workers at once)",
		set: func(st *Settings, name, s string) (err error) {
			st.SpinMicros, err = ParseInt(name, s, 0, 1_000_000)
			return err
		},
		reset: func(st *Settings) { st.SpinMicros = Defaults().SpinMicros },
	},
	{
		Env: "GOJAX_VECTOR", Field: "vector", Kind: KindEnum, Default: "auto",
		Accepted: "auto, avx512, avx2 or none (any case)",
		set: func(st *Settings, name, s string) (err error) {
			st.Vector, err = ParseEnum(name, s, "auto", "avx512", "avx2", "none")
			return err
		},
		reset: func(st *Settings) { st.Vector = Defaults().Vector },
	},
	{
		Env: "GOJAX_COLLECTIVE_TIMEOUT", Field: "collective_timeout", Kind: KindInt, Default: "300",
		Accepted: "a whole number of seconds from 1 to 86400",
		set: func(st *Settings, name, s string) (err error) {
			st.CollectiveTimeout, err = ParseInt(name, s, 1, 86400)
			return err
		},
		reset: func(st *Settings) { st.CollectiveTimeout = Defaults().CollectiveTimeout },
	},
	boolVar("GOJAX_SPMD_PARTITION", "spmd_partition", func(st *Settings) *bool { return &st.SPMDPartition }),
	{
		Env: "GOJAX_DATAPLANE_HOST", Field: "dataplane_host", Kind: KindHost, Default: "auto",
		Accepted: hostAccepted,
		set: func(st *Settings, name, s string) (err error) {
			st.DataplaneHost, err = ParseHost(name, s)
			return err
		},
		reset: func(st *Settings) { st.DataplaneHost = Defaults().DataplaneHost },
	},
	{
		Env: "GOJAX_DATAPLANE_PORT", Field: "dataplane_port", Kind: KindInt, Default: "0",
		Accepted: "a port number from 0 to 65535 (0: any free port)",
		set: func(st *Settings, name, s string) (err error) {
			v, err := ParseInt(name, s, 0, 65535)
			st.DataplanePort = int(v)
			return err
		},
		reset: func(st *Settings) { st.DataplanePort = Defaults().DataplanePort },
	},
}

const hostAccepted = "auto, a host name or an IPv4/IPv6 address"

// ParseHost accepts "auto" (any case), a DNS host name or an IP address,
// with surrounding spaces.
func ParseHost(name, s string) (string, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "auto") {
		return "auto", nil
	}
	if t == "" || len(t) > 253 || strings.IndexFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':')
	}) >= 0 || strings.HasPrefix(t, "-") {
		return "", &ParseError{name, s, hostAccepted}
	}
	return t, nil
}

func boolVar(env, field string, at func(*Settings) *bool) *Var {
	d := Defaults()
	def := *at(&d)
	return &Var{
		Env: env, Field: field, Kind: KindBool, Default: strconv.FormatBool(def), Accepted: boolAccepted,
		set: func(st *Settings, name, s string) (err error) {
			*at(st), err = ParseBool(name, s)
			return err
		},
		reset: func(st *Settings) { *at(st) = def },
	}
}

// pathVar is a path variable, off ("") by default.
func pathVar(env, field, accepted string, at func(*Settings) *string) *Var {
	return &Var{
		Env: env, Field: field, Kind: KindPath, Default: "off", Accepted: accepted,
		set: func(st *Settings, name, s string) (err error) {
			*at(st), err = ParsePath(name, s)
			return err
		},
		reset: func(st *Settings) { *at(st) = "" },
	}
}

// ByField finds a variable by its gojax.config field name.
func ByField(field string) (*Var, bool) {
	for _, v := range Vars {
		if v.Field == field {
			return v, true
		}
	}
	return nil, false
}

// Parse parses s as this variable's value into st, naming the variable by
// name in errors; an empty (or all-space) s stores the default. On error st
// keeps the value it had.
func (v *Var) Parse(st *Settings, name, s string) error {
	if strings.TrimSpace(s) == "" {
		v.reset(st)
		return nil
	}
	tmp := *st
	if err := v.set(&tmp, name, s); err != nil {
		return err
	}
	*st = tmp
	return nil
}

// Load parses every variable that lookup finds. Variables that fail keep
// their defaults; the error joins one error per such variable.
func Load(lookup func(string) (string, bool)) (Settings, error) {
	st := Defaults()
	var errs []error
	for _, v := range Vars {
		s, ok := lookup(v.Env)
		if !ok {
			continue
		}
		if err := v.Parse(&st, v.Env, s); err != nil {
			errs = append(errs, err)
		}
	}
	return st, errors.Join(errs...)
}

// env is the snapshot of the environment taken when the library loads.
var env, envErr = Load(os.LookupEnv)

// Env returns the settings the environment held at load (defaults in place
// of invalid values).
func Env() Settings { return env }

// EnvErr reports the invalid variables of the environment at load, or nil.
func EnvErr() error { return envErr }

// ParseError is a value no parser accepted.
type ParseError struct {
	Name     string // variable or field
	Value    string
	Accepted string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s=%q is invalid: accepted values are %s", e.Name, e.Value, e.Accepted)
}

// ParseBool accepts 1/0, true/false, yes/no and on/off in any case, with
// surrounding spaces.
func ParseBool(name, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, &ParseError{name, s, boolAccepted}
}

// ParseInt accepts a decimal whole number from lo to hi, with surrounding
// spaces.
func ParseInt(name, s string, lo, hi int64) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, &ParseError{name, s, fmt.Sprintf("a whole number from %d to %d", lo, hi)}
	}
	return v, nil
}

// sizeUnits are the suffixes ParseSize accepts (binary units only, so
// there is no doubt whether "1M" means 10^6 or 2^20).
var sizeUnits = []struct {
	suffix string
	shift  uint
}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"tib", 40}}

// ParseSize accepts a byte count from lo to hi: a decimal whole number,
// optionally followed by KiB, MiB, GiB or TiB (any case, spaces allowed
// before the unit).
func ParseSize(name, s string, lo, hi int64) (int64, error) {
	bad := &ParseError{name, s, fmt.Sprintf("%s, from %d to %d bytes", sizeAccepted, lo, hi)}
	t := strings.ToLower(strings.TrimSpace(s))
	shift := uint(0)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, shift = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.shift
			break
		}
	}
	if t == "" || strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, bad
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v > math.MaxInt64>>shift {
		return 0, bad
	}
	v <<= shift
	if v < lo || v > hi {
		return 0, bad
	}
	return v, nil
}

// ParseEnum accepts one of values in any case, with surrounding spaces, and
// returns it as listed.
func ParseEnum(name, s string, values ...string) (string, error) {
	t := strings.TrimSpace(s)
	for _, v := range values {
		if strings.EqualFold(t, v) {
			return v, nil
		}
	}
	var list string
	switch len(values) {
	case 1:
		list = values[0]
	default:
		list = strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
	}
	return "", &ParseError{name, s, list}
}

// ParsePath accepts a path (kept as given apart from being made absolute,
// so a later change of working directory does not move it; spaces are part
// of the path). It must not contain NUL.
func ParsePath(name, s string) (string, error) {
	if s == "" || strings.ContainsRune(s, 0) {
		return "", &ParseError{name, s, "a non-empty path without NUL characters"}
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", fmt.Errorf("%s=%q: %v", name, s, err)
	}
	return abs, nil
}
