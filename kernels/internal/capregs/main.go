// Command capregs writes a PTX file with register caps on chosen entries,
// as the cuda build loads it when TRACE_GPU_REGS is set
// (kernels.CapRegisters), so that ptxas can say here what a cap costs in
// spills before a GPU says what it gains (make ptx-report REGS=...):
//
//	capregs -regs wf_shade=128 [-o FILE] PTX
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tracerender/trace/kernels"
)

func main() {
	regs := flag.String("regs", "", "the caps, as "+kernels.RegsEnv+" spells them: `entry=N[,entry=N...]`")
	out := flag.String("o", "", "write the PTX to `file` (default: standard output)")
	flag.Parse()
	if flag.NArg() != 1 || *regs == "" {
		fmt.Fprintln(os.Stderr, "usage: capregs -regs entry=N[,entry=N...] [-o file] PTX")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *regs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "capregs:", err)
		os.Exit(1)
	}
}

func run(in, regs, out string) error {
	caps, err := kernels.ParseRegs(regs)
	if err != nil {
		return err
	}
	ptx, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	capped, err := kernels.CapRegisters(string(ptx), caps)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.WriteString(capped)
		return err
	}
	return os.WriteFile(out, []byte(capped), 0o644)
}
