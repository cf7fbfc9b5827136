package scenes

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// Wavefront MTL material libraries, as far as the renderer uses them:
//
//	newmtl NAME           starts a material
//	Kd r [g b]            its diffuse colour, linear RGB (g and b default to r)
//	map_Kd [opts] FILE    its diffuse texture, an sRGB image, relative to the
//	                      MTL file's folder; the options (-s, -o, -clamp, ...)
//	                      are read and ignored
//
// Every other statement (Ka, Ks, Ns, d, illum, map_Bump, ...) is accepted
// and ignored. The material becomes a diffuse one: its colour is Kd, or,
// when Kd is absent, [1, 1, 1] with a map_Kd and [0.8, 0.8, 0.8] (the
// scene format's diffuse default) without; a map_Kd image is multiplied by
// that colour, as the MTL specification says.

// mtlMaterial is one newmtl entry of a material library.
type mtlMaterial struct {
	file    string // the MTL file, absolute
	kd      mgl32.Vec3
	hasKd   bool
	mapKd   string // the map_Kd file as written, or ""
	mapLine int    // the line of the map_Kd statement
}

// parseMTL parses data, the contents of the MTL file at path, adding its
// materials to defs (a later definition of a name replaces an earlier
// one). Its errors are *Error values naming the file and line.
func parseMTL(path string, data []byte, defs map[string]*mtlMaterial) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	var cur *mtlMaterial
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = cutLine(data)
		errorf := func(format string, args ...any) error {
			return &Error{File: path, Line: n, Msg: fmt.Sprintf(format, args...)}
		}
		kw, rest := nextField(line)
		if len(kw) == 0 || kw[0] == '#' {
			continue
		}
		switch string(kw) {
		case "newmtl":
			name := trimSpace(rest)
			if len(name) == 0 {
				return errorf("newmtl: missing material name")
			}
			cur = &mtlMaterial{file: path}
			defs[string(name)] = cur
		case "Kd":
			if cur == nil {
				return errorf("Kd before any newmtl")
			}
			if f, _ := nextField(rest); string(f) == "spectral" || string(f) == "xyz" {
				return errorf("Kd %s is not supported; give an RGB colour, Kd r g b", f)
			}
			var rgb [3]float32
			var x [3]float32
			k := 0
			for {
				var f []byte
				f, rest = nextField(rest)
				if len(f) == 0 || f[0] == '#' {
					break
				}
				if k == 3 {
					return errorf("Kd: too many numbers: expected r g b")
				}
				v, msg := parseFloat32(f)
				if msg != "" {
					return errorf("Kd: %s", msg)
				}
				if v < 0 {
					return errorf("Kd: a colour component must be >= 0, found %s", f)
				}
				x[k] = v
				k++
			}
			switch k {
			case 1:
				rgb = [3]float32{x[0], x[0], x[0]}
			case 3:
				rgb = x
			default:
				return errorf("Kd: expected r g b (or one grey value), found %d numbers", k)
			}
			cur.kd, cur.hasKd = mgl32.Vec3(rgb), true
		case "map_Kd":
			if cur == nil {
				return errorf("map_Kd before any newmtl")
			}
			file, err := mapFile(rest)
			if err != "" {
				return errorf("map_Kd: %s", err)
			}
			cur.mapKd, cur.mapLine = file, n
		}
	}
	return nil
}

// mapOptionArgs is how many arguments each texture map option takes; 0
// stands for one to three numbers (-o, -s, -t).
var mapOptionArgs = map[string]int{
	"-blendu": 1, "-blendv": 1, "-bm": 1, "-boost": 1, "-cc": 1, "-clamp": 1,
	"-imfchan": 1, "-mm": 2, "-texres": 1, "-type": 1,
	"-o": 0, "-s": 0, "-t": 0,
}

// mapFile returns the file name of a texture map statement, rest being
// what follows the keyword: options, then the name (which may hold
// spaces). It returns a message saying what is wrong, or "".
func mapFile(rest []byte) (string, string) {
	for {
		rest = trimSpace(rest)
		if len(rest) == 0 {
			return "", "missing file name"
		}
		if rest[0] != '-' {
			return string(rest), ""
		}
		var opt []byte
		opt, rest = nextField(rest)
		args, ok := mapOptionArgs[string(opt)]
		if !ok {
			return "", fmt.Sprintf("unknown option %s", quote(string(opt)))
		}
		if args == 0 {
			// One to three numbers.
			for k := 0; k < 3; k++ {
				f, after := nextField(rest)
				if _, msg := parseFloat32(f); msg != "" {
					if k == 0 {
						return "", fmt.Sprintf("option %s: expected a number", opt)
					}
					break
				}
				rest = after
			}
			continue
		}
		for range args {
			var f []byte
			f, rest = nextField(rest)
			if len(f) == 0 {
				return "", fmt.Sprintf("option %s: missing argument", opt)
			}
		}
	}
}

// imported returns the material as a mesh import gives it to the scene:
// its colour and, with a map_Kd, the image multiplied by that colour.
// images holds the images read so far by MTL folder and file name, so
// that materials that share a map share its image.
func (m *mtlMaterial) imported(a *assets, name string, images map[[2]string]*tracer.Image) (importedMaterial, error) {
	out := importedMaterial{Name: name, HasColor: true, Color: defaultAlbedo}
	switch {
	case m.hasKd:
		out.Color = m.kd
	case m.mapKd != "":
		out.Color = white
	}
	if m.mapKd == "" {
		return out, nil
	}
	key := [2]string{filepath.Dir(m.file), m.mapKd}
	img := images[key]
	if img == nil {
		var err error
		img, err = loadImage(a, key[0], m.mapKd, true)
		if err != nil {
			return out, &Error{File: m.file, Line: m.mapLine, Msg: fmt.Sprintf("map_Kd %s: %v", quoteFile(m.mapKd), err), Err: err}
		}
		images[key] = img
	}
	out.Image = img // out.Color is its tint
	return out, nil
}
