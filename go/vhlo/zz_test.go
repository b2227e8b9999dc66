package vhlo

import (
	"fmt"
	"os"
	"testing"
)

func TestZZPrint(t *testing.T) {
	p := os.Getenv("DUMP")
	if p == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(p)
	m, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(printModule(m))
}
