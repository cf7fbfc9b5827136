package scenes

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tracerender/trace/tracer"
)

// MaxFileSize is the largest scene file, in bytes, that Load and Parse
// accept: 256 MiB. (The memory that decoding takes is bounded by
// MaxValues rather than by the file's size.)
const MaxFileSize = 256 << 20

// Options change how LoadWith reads a scene. The zero value is what Load
// uses.
type Options struct {
	// AllowOutsideAssets lets the files a scene refers to (meshes, their
	// material libraries and buffers, images) lie outside the scene
	// file's folder, through "..", an absolute path or a symbolic link.
	// Without it such a path is an error (the CLI's
	// --allow-outside-assets).
	AllowOutsideAssets bool

	// For bundles (bundle.go): record, if set, is given every file read
	// from disk; files, if set, replaces the disk, with relative paths
	// resolved against dir.
	record func(rel string, data []byte)
	files  map[string][]byte
	dir    string
}

// Load reads and parses the scene file at path, and the files it refers
// to, with the default Options. See Parse.
func Load(path string) (*tracer.SceneDesc, error) {
	return LoadWith(path, Options{})
}

// LoadWith reads and parses the scene file at path, and the files it
// refers to (relative to path's folder), with options opt. See Parse.
func LoadWith(path string, opt Options) (*tracer.SceneDesc, error) {
	data, err := readSceneFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, opt)
}

// Parse parses data, the contents of a scene file (version 1, see
// docs/scene-format.md), into a scene description. name is the file's name, used in
// error messages; the files that a scene refers to (mesh objects) are
// read relative to name's folder, with the default Options. Every field is
// validated; the error, if any, is an *Error that names the line, column
// and JSON path of the first problem found (for a problem with a mesh
// file or an image, those of the member that names the file; its message
// then names the file, and the line of a problem inside a mesh file or
// its material library).
func Parse(name string, data []byte) (*tracer.SceneDesc, error) {
	return parse(name, data, Options{})
}

// parse is Parse with options.
func parse(name string, data []byte, opt Options) (*tracer.SceneDesc, error) {
	if len(data) > MaxFileSize {
		return nil, tooLarge(name, int64(len(data)))
	}
	root, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: name, data: data, opt: opt}
	s := d.scene(root)
	if d.err != nil {
		return nil, d.err
	}
	// The decoder's caches of images are garbage now: the images can be
	// moved into the array that the compiled scene keeps.
	tracer.PackImages(s)
	return s, nil
}

// fileError wraps an error from reading path.
func fileError(path string, err error) *Error {
	msg := err.Error()
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		msg = pe.Err.Error() // the path is already in the message
	}
	return &Error{File: path, Msg: msg, Err: err}
}

// tooLarge is the error for a file of size bytes, past MaxFileSize.
func tooLarge(name string, size int64) *Error {
	return &Error{File: name, Msg: fmt.Sprintf("the file is %d bytes, more than the limit of %d (MaxFileSize)", size, MaxFileSize)}
}
