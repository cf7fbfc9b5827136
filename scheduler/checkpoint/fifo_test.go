//go:build unix

package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given as a checkpoint is refused at once, rather than
// blocking in open(2) until some process writes to it.
func TestFIFORefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(path, testHeader)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("Read of a FIFO: %v, want an error naming the pipe", err)
		}
	case <-time.After(5 * time.Second):
		// Open the other end, so that the blocked open returns.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("Read of a FIFO blocked for 5 s")
	}
	if _, err := Append(&Checkpoint{Path: path, Header: testHeader}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Append to a FIFO: %v", err)
	}
}
