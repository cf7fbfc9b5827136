package scenes

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
}

// newAssets returns the resolver for a scene file at scenePath.
func newAssets(scenePath string, allowOutside bool) (*assets, error) {
	dir, err := filepath.Abs(filepath.Dir(scenePath))
	if err != nil {
		return nil, err
	}
	return &assets{dir: dir, allowOutside: allowOutside}, nil
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
		return "", fmt.Errorf("%s is outside the scene's folder %s (pass --allow-outside-assets to allow it)", rel, a.dir)
	}
	return p, nil
}

// read reads the file at the absolute path p (from resolve), counting its
// size against MaxAssetBytes.
func (a *assets) read(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	left := MaxAssetBytes - a.used
	tooBig := fmt.Errorf("the scene's files together are larger than the limit of %d bytes (MaxAssetBytes)", int64(MaxAssetBytes))
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		// A regular file: read it in one piece of its size.
		if fi.Size() > left {
			return nil, tooBig
		}
		data := make([]byte, fi.Size())
		if _, err := io.ReadFull(f, data); err != nil {
			return nil, err
		}
		a.used += int64(len(data))
		return data, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, left+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > left {
		return nil, tooBig
	}
	a.used += int64(len(data))
	return data, nil
}
