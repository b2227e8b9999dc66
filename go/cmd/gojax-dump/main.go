// Command gojax-dump prints StableHLO portable artifacts (.bc, as JAX sends
// them to a PJRT plugin) as MLIR text read through gojax's own reader.
//
//	go run ./go/cmd/gojax-dump [-verify] [-loc] file.bc...
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/verify"
	"github.com/gojax/gojax/go/vhlo"
)

func main() {
	verifyFlag := flag.Bool("verify", false, "run the StableHLO verifier on each module")
	locFlag := flag.Bool("loc", false, "print source locations")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gojax-dump [-verify] [-loc] file.bc...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	failed := false
	for _, path := range flag.Args() {
		if flag.NArg() > 1 {
			fmt.Fprintf(out, "// ===== %s\n", path)
		}
		if err := dump(out, path, *verifyFlag, *locFlag); err != nil {
			out.Flush()
			fmt.Fprintf(os.Stderr, "gojax-dump: %s: %v\n", path, err)
			failed = true
		}
	}
	out.Flush()
	if failed {
		os.Exit(1)
	}
}

// dump reads one artifact and prints it; with verify it also reports the
// verifier's verdict (after printing, so the text can be inspected).
func dump(w io.Writer, path string, verifyIt, locs bool) error {
	code, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	m, err := vhlo.Read(code)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if err := (ir.Printer{Locations: locs}).Print(w, m); err != nil {
		return err
	}
	if verifyIt {
		if err := verify.Module(m); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		fmt.Fprintf(w, "// verify: ok\n")
	}
	return nil
}
