package vhlo

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

func TestZZLenient(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	m, errs, err := read(data, readOptions{allFuncs: true, lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("funcs", len(m.Funcs), "errors", len(errs))
	var names []string
	for k := range errs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Println(k, ":", errs[k])
	}
}
