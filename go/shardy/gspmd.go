package shardy

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// GSPMD annotations (mhlo.sharding = "{devices=[2,1]<=[2]}", the HLO
// sharding syntax of older artifacts and of jax.export) say the same thing
// as a Shardy sharding over a mesh with one axis per tile dimension whose
// device order is the tile assignment. ParseHLOSharding builds that mesh,
// so the rest of gojax sees one sharding model.

var (
	hloDevicesRE = regexp.MustCompile(`^devices=\[([0-9,\s]*)\]\s*(.*)$`)
	hloIotaRE    = regexp.MustCompile(`^<=\[([0-9,\s]*)\](?:\s*T\(([0-9,\s]*)\))?\s*(.*)$`)
	hloListRE    = regexp.MustCompile(`^([0-9][0-9,\s]*)(.*)$`)
	hloMaximalRE = regexp.MustCompile(`^maximal\s+device=(\d+)$`)
	hloLastRE    = regexp.MustCompile(`^last_tile_dims=\{([a-z_,\s]*)\}\s*(.*)$`)
)

// ParseHLOSharding reads one HLO sharding for a value of the given rank. A
// replicated value gives nil.
func ParseHLOSharding(text string, rank int) (*Sharding, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, fmt.Errorf("unsupported HLO sharding %s", text)
	}
	t = strings.TrimSpace(t[1 : len(t)-1])
	// Metadata only describes where the sharding came from.
	if i := strings.Index(t, "metadata={"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch {
	case t == "replicated" || t == "":
		return nil, nil
	case t == "manual":
		return nil, fmt.Errorf("HLO sharding %s: manual values (shard_map lowered to GSPMD) are not supported; lower with Shardy", text)
	case strings.HasPrefix(t, "{"):
		return nil, fmt.Errorf("HLO sharding %s: tuple shardings are not supported", text)
	}
	if m := hloMaximalRE.FindStringSubmatch(t); m != nil {
		d, _ := strconv.Atoi(m[1])
		return &Sharding{Dims: make([][]Axis, rank), Mesh: &Mesh{DeviceIDs: []int{d}}}, nil
	}
	m := hloDevicesRE.FindStringSubmatch(t)
	if m == nil {
		return nil, fmt.Errorf("unsupported HLO sharding %s", text)
	}
	dims, err := intList(m[1])
	if err != nil || len(dims) == 0 {
		return nil, fmt.Errorf("HLO sharding %s: bad tile dimensions", text)
	}
	total := 1
	for _, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("HLO sharding %s: bad tile dimensions", text)
		}
		total *= d
	}
	rest := strings.TrimSpace(m[2])
	var ids []int
	if im := hloIotaRE.FindStringSubmatch(rest); im != nil {
		if ids, err = iotaTiles(im[1], im[2], total); err != nil {
			return nil, fmt.Errorf("HLO sharding %s: %v", text, err)
		}
		rest = im[3]
	} else if lm := hloListRE.FindStringSubmatch(rest); lm != nil {
		if ids, err = intList(lm[1]); err != nil || len(ids) != total {
			return nil, fmt.Errorf("HLO sharding %s: the device list does not match the tile dimensions", text)
		}
		rest = lm[2]
	} else {
		return nil, fmt.Errorf("unsupported HLO sharding %s", text)
	}
	// Tile dimensions past the value's rank replicate (last_tile_dim_replicate,
	// or last_tile_dims listing replicated ones) or hold partial values
	// (last_tile_dims listing unreduced ones).
	extra := 0
	var unreduced []int // trailing tile dimensions that are unreduced
	for _, flag := range strings.Fields(strings.ReplaceAll(rest, ",", " ")) {
		if flag == "last_tile_dim_replicate" {
			extra = 1
		}
	}
	if lm := hloLastRE.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ","))); lm != nil {
		for _, kind := range strings.Split(lm[1], ",") {
			switch strings.TrimSpace(kind) {
			case "replicated":
				extra++
			case "unreduced":
				unreduced = append(unreduced, rank+extra)
				extra++
			case "manual":
				return nil, fmt.Errorf("HLO sharding %s: manual subgroups (shard_map lowered to GSPMD) are not supported; lower with Shardy", text)
			default:
				return nil, fmt.Errorf("HLO sharding %s: unsupported subgroup %q", text, strings.TrimSpace(kind))
			}
		}
	}
	if len(dims) != rank+extra {
		return nil, fmt.Errorf("HLO sharding %s has %d tile dimensions for a rank-%d value", text, len(dims), rank)
	}
	mesh := &Mesh{DeviceIDs: ids}
	s := &Sharding{Dims: make([][]Axis, rank), Mesh: mesh}
	for i, d := range dims {
		a := Axis{Name: "_t" + strconv.Itoa(i), Size: d}
		mesh.Axes = append(mesh.Axes, a)
		if i < rank && d > 1 {
			s.Dims[i] = []Axis{a}
		}
		if slices.Contains(unreduced, i) && d > 1 {
			s.Unreduced = append(s.Unreduced, a.Name)
			s.Reduction = "sum" // the HLO text does not say; Shardy's default
		}
	}
	if err := mesh.checkDeviceIDs(); err != nil {
		return nil, fmt.Errorf("HLO sharding %s: %v", text, err)
	}
	return s, nil
}

// iotaTiles expands <=[reshape]T(perm): the devices 0..n-1 reshaped to
// reshape, transposed by perm, flattened.
func iotaTiles(reshapeText, permText string, total int) ([]int, error) {
	shape, err := intList(reshapeText)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != total {
		return nil, fmt.Errorf("iota of %d devices for %d tiles", n, total)
	}
	perm := make([]int, len(shape))
	for i := range perm {
		perm[i] = i
	}
	if strings.TrimSpace(permText) != "" {
		if perm, err = intList(permText); err != nil || len(perm) != len(shape) {
			return nil, fmt.Errorf("bad transpose T(%s)", permText)
		}
		seen := make([]bool, len(shape))
		for _, p := range perm {
			if p < 0 || p >= len(shape) || seen[p] {
				return nil, fmt.Errorf("bad transpose T(%s)", permText)
			}
			seen[p] = true
		}
	}
	// Strides of the reshaped iota, read in transposed order.
	stride := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		stride[i] = acc
		acc *= shape[i]
	}
	out := make([]int, 0, total)
	idx := make([]int, len(perm))
	for k := 0; k < total; k++ {
		v := 0
		for j, p := range perm {
			v += idx[j] * stride[p]
		}
		out = append(out, v)
		for j := len(perm) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < shape[perm[j]] {
				break
			}
			idx[j] = 0
		}
	}
	return out, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := strconv.Atoi(part)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
