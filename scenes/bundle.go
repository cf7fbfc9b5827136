package scenes

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/tracerender/trace/tracer"
)

// Bundle is a scene file and every file it refers to, read into memory, so
// that the scene can travel to another machine and be loaded there exactly
// as it was here, without that machine's disk.
type Bundle struct {
	// Name is the scene file's path as it was given; error messages from
	// Load name it, as they would on the machine that read it.
	Name string
	// Dir is the absolute folder the scene's relative paths were resolved
	// against when it was read.
	Dir string
	// Scene is the scene file's contents.
	Scene []byte
	// Files holds the contents of the files the scene read (meshes, their
	// material libraries and buffers, images), by path relative to Dir.
	Files map[string][]byte
	// AllowOutsideAssets records whether those paths may lead out of Dir.
	AllowOutsideAssets bool
}

// ReadBundle loads the scene file at path with opt, as LoadWith does, and
// returns it together with the bundle of every file it read.
func ReadBundle(path string, opt Options) (*Bundle, *tracer.SceneDesc, error) {
	data, err := readSceneFile(path)
	if err != nil {
		return nil, nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, nil, fileError(path, err)
	}
	b := &Bundle{Name: path, Dir: dir, Scene: data, Files: map[string][]byte{}, AllowOutsideAssets: opt.AllowOutsideAssets}
	opt.record = func(rel string, data []byte) { b.Files[rel] = data }
	desc, err := parse(path, data, opt)
	if err != nil {
		return nil, nil, err
	}
	return b, desc, nil
}

// Load parses the bundled scene. Its files are read from b.Files alone: a
// file the scene names that the bundle lacks is an error, and nothing is
// read from disk.
func (b *Bundle) Load() (*tracer.SceneDesc, error) {
	if !filepath.IsAbs(b.Dir) {
		return nil, fmt.Errorf("scene bundle %s: folder %q is not absolute", b.Name, b.Dir)
	}
	opt := Options{AllowOutsideAssets: b.AllowOutsideAssets, dir: filepath.Clean(b.Dir), files: b.Files}
	if opt.files == nil {
		opt.files = map[string][]byte{}
	}
	return parse(b.Name, b.Scene, opt)
}

// Size is the bytes of the scene file and its files together.
func (b *Bundle) Size() int64 {
	n := int64(len(b.Scene))
	for _, f := range b.Files {
		n += int64(len(f))
	}
	return n
}

// readSceneFile reads a scene file, refusing one past MaxFileSize or one
// that is not a regular file (see openRegular).
func readSceneFile(path string) ([]byte, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	if size > MaxFileSize {
		return nil, tooLarge(path, size)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	return data, nil
}
