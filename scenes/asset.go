package scenes

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tracerender/trace/tracer"
)

// MaxAssetBytes bounds the bytes of all the files one scene refers to
// (meshes, their buffers and material libraries, images) together: 4 GiB.
const MaxAssetBytes = 4 << 30

// assets resolves and reads the files a scene refers to. Paths are relative
// to the scene file's folder and may not lead out of it (through "..", an
// absolute path or a symbolic link) unless allowOutside is set; every read
// counts against MaxAssetBytes.
type assets struct {
	dir          string // the scene file's folder, absolute
	allowOutside bool
	used         int64 // bytes read so far
	// texels counts the texels of the images decoded (or copied) so far,
	// the scene's and its mesh files', against tracer.MaxImageTexels.
	texels int64
	// For bundles: record is given each file read from disk, by its path
	// relative to dir; files, when not nil, is read instead of the disk.
	record func(rel string, data []byte)
	files  map[string][]byte
}

// newAssets returns the resolver for a scene file at scenePath.
func newAssets(scenePath string, allowOutside bool) (*assets, error) {
	dir, err := filepath.Abs(filepath.Dir(scenePath))
	if err != nil {
		return nil, err
	}
	return &assets{dir: dir, allowOutside: allowOutside}, nil
}

// newSceneAssets returns the resolver for a scene file at scenePath read
// with opt: from disk, or from a bundle's files.
func newSceneAssets(scenePath string, opt Options) (*assets, error) {
	if opt.files != nil {
		return &assets{dir: opt.dir, allowOutside: true, files: opt.files}, nil
	}
	a, err := newAssets(scenePath, opt.AllowOutsideAssets)
	if err != nil {
		return nil, err
	}
	a.record = opt.record
	return a, nil
}

// key is the name of the file at the absolute path p in a bundle.
func (a *assets) key(p string) string {
	rel, err := filepath.Rel(a.dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// resolve turns a path written in a file in folder base (the scene's
// folder, or the folder of a mesh that names its own buffers or images)
// into an absolute path, checking that it stays inside the scene's folder.
func (a *assets) resolve(base, rel string) (string, error) {
	if rel == "" {
		return "", fmt.Errorf("empty file name")
	}
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if a.files != nil {
		// A bundle: its files were checked where it was read, and
		// nothing outside it can be reached.
		if _, ok := a.files[a.key(p)]; !ok {
			return "", &fs.PathError{Op: "open", Path: rel, Err: fs.ErrNotExist}
		}
		return p, nil
	}
	if a.allowOutside {
		return p, nil
	}
	// Follow symbolic links so a link inside the folder cannot point out.
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err // the file does not exist, or cannot be reached
	}
	root, err := filepath.EvalSymlinks(a.dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the scene's folder %s (pass --allow-outside-assets to allow it)", quoteFile(rel), a.dir)
	}
	return p, nil
}

// texelsLeft returns how many texels the images decoded from now on may
// have together.
func (a *assets) texelsLeft() int64 { return tracer.MaxImageTexels - a.texels }

// tooBig is the error of a scene whose files outgrow MaxAssetBytes.
func tooBig() error {
	return fmt.Errorf("the scene's files together are larger than the limit of %d bytes (MaxAssetBytes)", int64(MaxAssetBytes))
}

// reserve counts n bytes that a file's data decodes to (a glTF file's
// compressed buffer views) against MaxAssetBytes, as if a file had
// brought them.
func (a *assets) reserve(n int64) error {
	if n > MaxAssetBytes-a.used {
		return tooBig()
	}
	a.used += n
	return nil
}

// read reads the file at the absolute path p (from resolve), counting its
// size against MaxAssetBytes.
func (a *assets) read(p string) ([]byte, error) {
	tooBig := tooBig()
	if a.files != nil {
		data, ok := a.files[a.key(p)]
		if !ok {
			return nil, fmt.Errorf("%s is not in the scene bundle", quoteFile(a.key(p)))
		}
		if int64(len(data)) > MaxAssetBytes-a.used {
			return nil, tooBig
		}
		a.used += int64(len(data))
		return data, nil
	}
	data, err := a.readDisk(p, tooBig)
	if err == nil && a.record != nil {
		a.record(a.key(p), data)
	}
	return data, err
}

// readDisk is read from the disk. Only a regular file is read, whatever
// a symbolic link leads to: a named pipe would block and a device
// (/dev/zero) never end.
func (a *assets) readDisk(p string, tooBig error) ([]byte, error) {
	f, size, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > MaxAssetBytes-a.used {
		return nil, tooBig
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	a.used += int64(len(data))
	return data, nil
}

// openRegular opens the file at path for reading, and returns it and its
// size, if it is a regular file (through symbolic links); anything else
// is an *fs.PathError saying what it is. A named pipe is found out
// without waiting for a writer: the file is looked at before it is
// opened, and opened without blocking.
func openRegular(path string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() { // replaced since
		f.Close()
		if err == nil {
			err = notRegular(path, fi.Mode())
		}
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// notRegular is the error for a file of mode m at path that is not a
// regular file.
func notRegular(path string, m fs.FileMode) error {
	kind := "of an unknown kind"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind)}
}
