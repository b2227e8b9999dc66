package vhlo

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxVersion is the newest StableHLO (VHLO) version this reader supports; the
// plugin advertises it as stablehlo_current_version.
var MaxVersion = [3]int64{1, 20, 0}

// checkProducer rejects artifacts from a StableHLO newer than MaxVersion.
// Producers that are not "StableHLO_vX.Y.Z" (old MLIR writers) are accepted.
func checkProducer(p string) error {
	v, ok := parseProducer(p)
	if !ok {
		return nil
	}
	for i := 0; i < 3; i++ {
		if v[i] != MaxVersion[i] {
			if v[i] > MaxVersion[i] {
				return fmt.Errorf("vhlo: artifact producer %q is newer than the newest supported StableHLO version %d.%d.%d",
					p, MaxVersion[0], MaxVersion[1], MaxVersion[2])
			}
			break
		}
	}
	return nil
}

func parseProducer(p string) ([3]int64, bool) {
	var v [3]int64
	s, ok := strings.CutPrefix(p, "StableHLO_v")
	if !ok {
		return v, false
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	for i, part := range parts {
		// Tolerate suffixes such as "1.9.3-rc" by reading leading digits.
		j := 0
		for j < len(part) && part[j] >= '0' && part[j] <= '9' {
			j++
		}
		n, err := strconv.ParseInt(part[:j], 10, 64)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}
