package tracer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Output is an image file being made: a temporary file beside the final
// path, renamed over it by Commit, so that no reader ever sees half an
// image and a failed or cancelled render leaves nothing behind.
type Output struct {
	path  string
	depth int
	pfm   bool
	tmp   *os.File
}

// CreateOutput checks that path can be written and opens the temporary file
// that Commit will fill. A path ending in .pfm (any case) gets a linear PFM;
// anything else a PNG of the given depth (8 or 16). Call it before
// rendering so an unwritable path fails at once.
func CreateOutput(path string, depth int) (*Output, error) {
	pfm := strings.EqualFold(filepath.Ext(path), ".pfm")
	if !pfm && depth != 8 && depth != 16 {
		return nil, fmt.Errorf("--depth %d: must be 8 or 16", depth)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("output %s: is a directory", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("output %s: cannot write: %w", path, err)
	}
	return &Output{path: path, depth: depth, pfm: pfm, tmp: tmp}, nil
}

// Path returns the final path.
func (o *Output) Path() string { return o.path }

// Commit writes the framebuffer and renames the file into place.
func (o *Output) Commit(fb *Framebuffer, film *Film) error {
	var err error
	if o.pfm {
		err = fb.WritePFM(o.tmp)
	} else {
		err = fb.WritePNG(o.tmp, film, o.depth)
	}
	if err == nil {
		err = o.tmp.Sync()
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = os.Chmod(o.tmp.Name(), 0o644); err == nil {
			err = os.Rename(o.tmp.Name(), o.path)
		}
	}
	if err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("output %s: %w", o.path, err)
	}
	return nil
}

// Abort removes the temporary file. It is safe to call after Commit.
func (o *Output) Abort() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
}
