package conformance

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Known failures are checked in as go/conformance/testdata/<corpus>_failures.txt:
// one "name<TAB>reason" line per failing case, '#' comments for the summary
// and skip reasons. Only names matter when comparing; reasons help readers.

// maxReason bounds a reason in the file (error chains can be long).
const maxReason = 400

// ReadFailures loads the known-failure names of a file (empty when absent).
func ReadFailures(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, "\t")
		out[name] = reason
	}
	return out, sc.Err()
}

// WriteFailures writes the failure list of a corpus run. A reason in the
// existing file that starts with a "[verdict: …]" note (who is closer to the
// true value, found by verdicts.py) is kept while the case still fails.
func WriteFailures(path, corpus, regenerate string, rs []Result) error {
	old, err := ReadFailures(path)
	if err != nil {
		return err
	}
	var b strings.Builder
	s := Summarize(rs)
	fmt.Fprintf(&b, "# %s conformance: known failures, one \"name<TAB>reason\" per line.\n", corpus)
	fmt.Fprintf(&b, "# Regenerate: %s\n", regenerate)
	b.WriteString("# An entry must fail the same way on every CPU. Results checked against XLA:CPU\n" +
		"# computed at test time are compared within an error bound derived from the inputs\n" +
		"# where the op accumulates (dot, convolution, reductions: XLA's own sums vary with the\n" +
		"# CPU), else within JAX's per-dtype tolerance; a case that passes on one CPU and fails\n" +
		"# on another is a tolerance or rounding defect to fix, not an entry.\n")
	fmt.Fprintf(&b, "# %s\n", s)
	if skips := SkipReasons(rs); len(skips) > 0 {
		b.WriteString("# skipped (not applicable to gojax or to this runner):\n")
		for _, line := range skips {
			fmt.Fprintf(&b, "#   %s\n", line)
		}
	}
	var fails []Result
	for _, r := range rs {
		if r.Status == Fail {
			fails = append(fails, r)
		}
	}
	sort.Slice(fails, func(i, j int) bool { return fails[i].Name < fails[j].Name })
	for _, r := range fails {
		reason := oneLine(r.Reason)
		if v := verdictNote(old[r.Name]); v != "" && !strings.HasPrefix(reason, v) {
			reason = oneLine(v + " " + r.Reason)
		}
		fmt.Fprintf(&b, "%s\t%s\n", r.Name, reason)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// verdictNote returns the leading "[verdict: …]" of a reason, if any.
func verdictNote(reason string) string {
	if !strings.HasPrefix(reason, "[verdict: ") {
		return ""
	}
	depth := 0
	for i, c := range reason {
		switch c {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return reason[:i+1]
			}
		}
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxReason {
		s = s[:maxReason] + "…"
	}
	return s
}

// Regressions are failures not in the known list; Fixed are known failures
// that now pass (the list should shrink).
func Compare(rs []Result, known map[string]string) (regressions, fixed []Result) {
	for _, r := range rs {
		_, listed := known[r.Name]
		switch {
		case r.Status == Fail && !listed:
			regressions = append(regressions, r)
		case r.Status == Pass && listed:
			fixed = append(fixed, r)
		}
	}
	return regressions, fixed
}
