package engine

import (
	"encoding/binary"
	"fmt"
)

// The few protobuf messages gojax reads or writes by hand:
//   xla.CompileOptionsProto   { executable_build_options = 3; env_option_overrides = 7 (compileopts.go) }
//   ExecutableBuildOptionsProto { num_replicas = 4; num_partitions = 5; device_assignment = 9 }
//   xla.DeviceAssignmentProto { int32 replica_count = 1; int32 computation_count = 2;
//                               repeated ComputationDevice computation_devices = 3 }
//   ComputationDevice         { repeated int64 replica_device_ids = 1 }

// DeviceAssignment maps (replica, partition) to a global device id.
type DeviceAssignment struct {
	Replicas, Partitions int
	// IDs[r][p] is the device id of replica r, partition p.
	IDs [][]int
}

// BuildOptions is what gojax uses from a serialized CompileOptionsProto.
type BuildOptions struct {
	NumReplicas, NumPartitions int
	Assignment                 *DeviceAssignment // nil when absent
}

type protoField struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

func protoFields(buf []byte) ([]protoField, error) {
	var out []protoField
	for len(buf) > 0 {
		key, n := binary.Uvarint(buf)
		if n <= 0 {
			return nil, fmt.Errorf("bad field key")
		}
		buf = buf[n:]
		f := protoField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			v, n := binary.Uvarint(buf)
			if n <= 0 {
				return nil, fmt.Errorf("bad varint in field %d", f.num)
			}
			f.v, buf = v, buf[n:]
		case 1:
			if len(buf) < 8 {
				return nil, fmt.Errorf("truncated fixed64 field %d", f.num)
			}
			f.v, buf = binary.LittleEndian.Uint64(buf), buf[8:]
		case 2:
			l, n := binary.Uvarint(buf)
			if n <= 0 || uint64(len(buf)-n) < l {
				return nil, fmt.Errorf("truncated bytes field %d", f.num)
			}
			f.b, buf = buf[n:n+int(l)], buf[n+int(l):]
		case 5:
			if len(buf) < 4 {
				return nil, fmt.Errorf("truncated fixed32 field %d", f.num)
			}
			f.v, buf = uint64(binary.LittleEndian.Uint32(buf)), buf[4:]
		default:
			return nil, fmt.Errorf("unsupported wire type %d in field %d", f.wire, f.num)
		}
		out = append(out, f)
	}
	return out, nil
}

// ParseCompileOptions reads replica/partition counts and the device assignment.
func ParseCompileOptions(b []byte) (BuildOptions, error) {
	opts := BuildOptions{NumReplicas: 1, NumPartitions: 1}
	fields, err := protoFields(b)
	if err != nil {
		return opts, Errorf(CodeInvalidArgument, "compile options: %v", err)
	}
	var overrides [][]byte
	for _, f := range fields {
		if f.num == 7 && f.wire == 2 {
			overrides = append(overrides, f.b)
		}
		if f.num != 3 || f.wire != 2 {
			continue
		}
		ebo, err := protoFields(f.b)
		if err != nil {
			return opts, Errorf(CodeInvalidArgument, "compile options: executable_build_options: %v", err)
		}
		for _, g := range ebo {
			switch {
			case g.num == 4 && g.wire == 0 && g.v > 0:
				opts.NumReplicas = int(g.v)
			case g.num == 5 && g.wire == 0 && g.v > 0:
				opts.NumPartitions = int(g.v)
			case g.num == 9 && g.wire == 2:
				da, err := parseDeviceAssignment(g.b)
				if err != nil {
					return opts, Errorf(CodeInvalidArgument, "compile options: device_assignment: %v", err)
				}
				opts.Assignment = da
			}
		}
	}
	if err := checkOptionOverrides(overrides); err != nil {
		return opts, err
	}
	if opts.NumReplicas > maxDevices || opts.NumPartitions > maxDevices {
		return opts, Errorf(CodeInvalidArgument, "compile options: %d replicas x %d partitions is too many", opts.NumReplicas, opts.NumPartitions)
	}
	return opts, nil
}

func parseDeviceAssignment(b []byte) (*DeviceAssignment, error) {
	fields, err := protoFields(b)
	if err != nil {
		return nil, err
	}
	da := &DeviceAssignment{}
	var comps [][]int
	for _, f := range fields {
		switch {
		case f.num == 1 && f.wire == 0:
			da.Replicas = int(f.v)
		case f.num == 2 && f.wire == 0:
			da.Partitions = int(f.v)
		case f.num == 3 && f.wire == 2:
			cf, err := protoFields(f.b)
			if err != nil {
				return nil, err
			}
			var ids []int
			for _, g := range cf {
				switch {
				case g.num == 1 && g.wire == 0:
					ids = append(ids, int(int64(g.v)))
				case g.num == 1 && g.wire == 2: // packed
					p := g.b
					for len(p) > 0 {
						v, n := binary.Uvarint(p)
						if n <= 0 {
							return nil, fmt.Errorf("bad packed device id")
						}
						ids, p = append(ids, int(int64(v))), p[n:]
					}
				}
			}
			comps = append(comps, ids)
		}
	}
	if da.Partitions != len(comps) {
		return nil, fmt.Errorf("computation_count %d but %d computation_devices", da.Partitions, len(comps))
	}
	da.IDs = make([][]int, da.Replicas)
	for r := range da.IDs {
		da.IDs[r] = make([]int, da.Partitions)
		for p := range comps {
			if len(comps[p]) != da.Replicas {
				return nil, fmt.Errorf("computation %d has %d replica ids, want %d", p, len(comps[p]), da.Replicas)
			}
			da.IDs[r][p] = comps[p][r]
		}
	}
	return da, nil
}

// Marshal encodes the assignment as an xla.DeviceAssignmentProto.
func (da *DeviceAssignment) Marshal() []byte {
	var out []byte
	out = appendVarintField(out, 1, uint64(da.Replicas))
	out = appendVarintField(out, 2, uint64(da.Partitions))
	for p := 0; p < da.Partitions; p++ {
		var packed []byte
		for r := 0; r < da.Replicas; r++ {
			packed = binary.AppendUvarint(packed, uint64(int64(da.IDs[r][p])))
		}
		var comp []byte
		comp = appendBytesField(comp, 1, packed)
		out = appendBytesField(out, 3, comp)
	}
	return out
}

func appendVarintField(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}
