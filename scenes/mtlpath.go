package scenes

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"path/filepath"

	"github.com/tracerender/trace/tracer"
)

// Exporters write a map's file as the path it had on the machine that
// made the model: a Windows absolute path (map_Kd C:\Users\me\wood.png,
// read as C:/Users/me/wood.png), a UNC path (\\server\share\wood.png) or
// another machine's absolute path (/home/me/tex/wood.png). When no file
// is there, Blender's importer looks for the file's base name beside the
// MTL file, and so does loadMap: beside the MTL file, then in the OBJ
// file's folder when it is another. The file found is read through
// assets.resolve like any other, so it may no more lie outside the
// scene's folder (without --allow-outside-assets) than a relative name.

// loadMap reads the image of m's map statement mp (of keyword kw),
// decoded from sRGB when srgb is set, from the file it names relative to
// the MTL file's folder or, when that is a foreign absolute path
// (foreignAbsolute) where no file exists, from the first file of its
// base name beside the MTL file or in the OBJ file's folder, with a
// one-line warning naming both. Its errors are mapError's, about the file
// as written when none of its base name is found either.
func (c *mtlImages) loadMap(a *assets, m *mtlMaterial, kw string, mp *mtlMap, srgb bool) (*tracer.Image, error) {
	dir := filepath.Dir(m.file)
	img, err := loadImage(a, dir, mp.file, srgb)
	if err == nil {
		return img, nil
	}
	base := path.Base(mp.file)
	if !errors.Is(err, fs.ErrNotExist) || !foreignAbsolute(mp.file) || base == "/" || base == "." || base == ".." {
		return nil, m.mapError(kw, mp, err)
	}
	dirs := []string{dir}
	if c.objDir != "" && filepath.Clean(c.objDir) != dir {
		dirs = append(dirs, c.objDir)
	}
	for _, d := range dirs {
		found, ferr := loadImage(a, d, base, srgb)
		if errors.Is(ferr, fs.ErrNotExist) {
			continue
		}
		if ferr != nil {
			return nil, m.mapError(kw, mp, ferr) // names base, after the file as written
		}
		where := "beside the MTL file"
		if d != dir {
			where = "in the OBJ file's folder"
		}
		slog.Warn(fmt.Sprintf("%s:%d: %s %s: no such file; using %s, the file of that name %s",
			safeName(a.key(m.file)), mp.line, kw, quoteFile(mp.file), quoteFile(a.key(filepath.Join(d, base))), where))
		return found, nil
	}
	return nil, m.mapError(kw, mp, fmt.Errorf("%w (nor is there a file %s beside the MTL file or the OBJ file)", err, quoteFile(base)))
}

// foreignAbsolute reports whether name, a map's file with \ read as /,
// is an absolute path: a Windows one (a drive letter, a colon and a
// slash; or a UNC path, two slashes) or this system's.
func foreignAbsolute(name string) bool {
	if len(name) >= 3 && name[1] == ':' && name[2] == '/' &&
		('a' <= name[0] && name[0] <= 'z' || 'A' <= name[0] && name[0] <= 'Z') {
		return true
	}
	return len(name) >= 2 && name[0] == '/' && name[1] == '/' || filepath.IsAbs(name) || path.IsAbs(name)
}
