package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiles are the hidden flags that write pprof profiles of a run, for
// the measurements of BENCHMARKS.md: go tool pprof FILE reads them.
type Profiles struct {
	CPUProfile string `name:"cpuprofile" hidden:"" help:"Write a CPU profile to FILE."`
	MemProfile string `name:"memprofile" hidden:"" help:"Write an allocation profile to FILE when done."`
}

// start starts the profiles asked for and returns the function that ends
// them.
func (p *Profiles) start() (stop func() error, err error) {
	var cpu *os.File
	if p.CPUProfile != "" {
		if cpu, err = os.Create(p.CPUProfile); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return err
			}
		}
		if p.MemProfile == "" {
			return nil
		}
		f, err := os.Create(p.MemProfile)
		if err != nil {
			return err
		}
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return fmt.Errorf("%s: %v", p.MemProfile, err)
		}
		return f.Close()
	}, nil
}
