//go:build cuda

package kernels

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestGPULoadPTXLog checks that a module the driver cannot load fails with
// the JIT compiler's log in the error, and that the kernel's PTX loads.
func TestGPULoadPTXLog(t *testing.T) {
	devs, err := OpenDevices(1)
	if err != nil {
		if errors.Is(err, ErrTooFewDevices) && os.Getenv("TRACE_GPU_REQUIRED") == "" {
			t.Skipf("no usable GPU: %v", err)
		}
		t.Fatal(err)
	}
	d := devs[0].(*cudaDevice)
	defer d.Close()
	err = d.do(context.Background(), func() error {
		mod, err := loadPTX(".version 7.0\n.target sm_80\n.address_size 64\nthis is not PTX\n")
		if err == nil {
			mod.Unload()
			return errors.New("invalid PTX loaded")
		}
		if msg := err.Error(); !strings.Contains(msg, "loading the kernel's PTX") || strings.HasSuffix(msg, "no log") {
			return errors.New("no JIT log in: " + msg)
		}
		t.Logf("invalid PTX: %v", err)
		mod, err = loadPTX(PTX)
		if err != nil {
			return err
		}
		return mod.Unload()
	})
	if err != nil {
		t.Fatal(err)
	}
}
