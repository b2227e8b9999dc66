// Command gen writes gojax's own PJRT C header (pjrt_c_api.h) and the slot
// list (pjrt_slots.h) from the ABI table, so the declarations cannot drift from
// the measured layout. Run through `go generate ./go/capi`.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/gojax/gojax/go/capi/internal/abi"
)

func main() {
	out := flag.String("out", "pjrt_c_api.h", "header to write")
	slots := flag.String("slots", "pjrt_slots.h", "slot list to write")
	flag.Parse()
	t, _, err := abi.Load()
	if err != nil {
		log.Fatal(err)
	}
	h, err := abi.Header(t)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, h, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*slots, abi.SlotList(t), 0o644); err != nil {
		log.Fatal(err)
	}
}
