package capi

import "github.com/gojax/gojax/go/devmem"

func devmemStats() devmem.Stats { return devmem.ReadStats() }
func devmemResetPeak()          { devmem.ResetPeak() }
