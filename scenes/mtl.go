package scenes

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// Wavefront MTL material libraries, as far as the renderer uses them:
//
//	newmtl NAME           starts a material
//	Kd r [g b]            its diffuse (base) colour, linear RGB (g and b
//	                      default to r)
//	Ks r [g b]            its specular colour: only whether it is zero counts
//	Ns x                  its Phong exponent, >= 0 (roughness, below)
//	Ke r [g b]            its emitted radiance, linear RGB
//	Pr x, Pm x            its roughness and metallic, in [0, 1] (the PBR
//	                      extension)
//	map_Kd [opts] FILE    its base colour texture, an sRGB image, × Kd
//	map_Ke [opts] FILE    its emission texture, an sRGB image, × Ke
//	map_Pr [opts] FILE    its roughness texture, linear values, × Pr
//	map_Pm [opts] FILE    its metallic texture, linear values, × Pm
//	norm [opts] FILE      its tangent-space normal map, linear values
//	                      (OpenGL convention, +Y up in the image)
//	map_Bump, map_bump, bump [opts] FILE
//	                      its height map (linear; the -imfchan channel,
//	                      luminance by default), turned into a normal map
//	                      when the material is imported (bumpToNormal),
//	                      heights × -bm (default 1) in texel widths; a
//	                      norm, when both are given, wins
//
// Map files are relative to the MTL file's folder; a foreign absolute
// path (C:\Users\me\wood.png, or another machine's) where no file is
// falls back on the file of its base name beside the MTL or OBJ file
// (loadMap, mtlpath.go). Of the map options,
// -s u [v] and -o u [v] (scale, default 1 and never 0, and offset,
// default 0; a missing v takes its default, a third value is ignored)
// map the surface's (u, v) to (s_u·u + o_u, s_v·v + o_v); -imfchan r|g|b|l picks the channel of a map_Pr or map_Pm
// (l, the luminance, by default); -colorspace linear|srgb (in any case)
// says how the map's 8- and 16-bit values are decoded, overriding the
// map's default (sRGB for map_Kd and map_Ke, linear for map_Pr and
// map_Pm); -clamp on|off makes the map clamp to its edges (tracer.WrapClamp)
// rather than repeat; -bm x scales a bump map's heights; the others
// (-blendu, -blendv, -boost, -cc, -mm,
// -t, -texres, -type, and -imfchan on a colour map) are read and ignored.
//
// A material with none of a non-zero Ks, a non-zero Ke (or a map_Ke
// without Ke), Pr, Pm, map_Pr and map_Pm is a diffuse one: its colour is
// Kd, or, when Kd is absent, [1, 1, 1] with a map_Kd and [0.8, 0.8, 0.8]
// (the scene format's diffuse default) without; a map_Kd image is
// multiplied by that colour, as the MTL specification says. Any of them makes it a pbr material
// (tracer.MaterialPBR) of base colour Kd (× map_Kd) and:
//
//   - roughness Pr; without Pr, 1 with a map_Pr, else, when Ks is not
//     zero, the GGX roughness of a Blinn-Phong lobe of exponent Ns
//     (blinnPhongRoughness; Ns absent counts as 0), else 1;
//   - metallic Pm; without Pm, 1 with a map_Pm, else 0;
//   - emission Ke × map_Ke; without Ke, [1, 1, 1] with a map_Ke, else 0;
//   - a clear coat Pc of roughness Pcr (Blender's Principled Clearcoat
//     and Clearcoat Roughness; 0 and 0 without them), on a pbr material
//     only: Pc alone leaves a material diffuse.
//
// The tracer reads roughness and metallic from one image (green and
// blue), so map_Pr and map_Pm are combined into one linear image when the
// material is imported: they must then be the same size and have the same
// -s and -o. d (or 1 − Tr) and map_d give the material's alpha
// (importAlpha), except on glass. illum, Ni and Tf make glass, trace's
// dielectric, of some materials (mtlglass.go). Every other statement
// (Ka, map_Ks, disp, Ps, aniso, ...) is accepted and ignored, its
// options and file unread: the tracer has no displacement.

// mtlMaterial is one newmtl entry of a material library.
type mtlMaterial struct {
	file         string // the MTL file, absolute
	kd, ks, ke   mgl32.Vec3
	hasKd, hasKe bool
	ns, pr, pm   float32
	hasPr, hasPm bool
	pc, pcr      float32 // clear coat and its roughness (Pc, Pcr)
	mapKd, mapKe mtlMap
	mapPr, mapPm mtlMap
	norm, bump   mtlMap  // normal map, height map
	d, tr        float32 // dissolve and transparency (1 − d)
	hasD, hasTr  bool
	mapD         mtlMap // alpha (dissolve) map
	// illum, Ni and Tf, read for glass (mtlglass.go): the illumination
	// model, the index of refraction and the transmission filter.
	illum                  int
	ni                     float32
	tf                     mgl32.Vec3
	hasIllum, hasNi, hasTf bool
	// blender is true for a material of a file that Blender wrote, and ka
	// its Ka, read in such files only (mtlblender.go).
	blender bool
	ka      mgl32.Vec3
	hasKa   bool
}

// mtlMap is a texture map statement of a material: its image file and the
// options the renderer honours.
type mtlMap struct {
	file string // as written, or "" for none
	line int    // the statement's line
	// uv is -s and -o as a tracer.Texture.UV: (s_u·u + o_u, s_v·v + o_v),
	// or zero when they leave the coordinates as they are.
	uv [6]float32
	// channel is the -imfchan argument, or "".
	channel string
	// sampler is -clamp on as clamp wraps (repeat without it).
	sampler textureSampler
	// colorspace is the -colorspace argument, "linear" or "srgb" (in
	// lower case), or "" for the map's default: sRGB for colour maps,
	// linear for the others.
	colorspace string
	// bm is the -bm argument (a bump map's height scale), 1 by default.
	bm float32
}

// srgb reports whether the map's image is decoded from sRGB: def, the
// map's default, unless -colorspace says otherwise.
func (m *mtlMap) srgb(def bool) bool {
	switch m.colorspace {
	case "linear":
		return false
	case "srgb":
		return true
	}
	return def
}

// parseMTL parses data, the contents of the MTL file at path, adding its
// materials to defs (a later definition of a name replaces an earlier
// one). Its errors are *Error values naming the file and line.
func parseMTL(path string, data []byte, defs map[string]*mtlMaterial) error {
	blender := blenderMTLFile(data)
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
		key := string(kw)
		var (
			color  *mgl32.Vec3
			scalar *float32
			mp     *mtlMap
			limit  float32 = 1 // a scalar's upper bound
		)
		switch key {
		case "newmtl":
			name := trimSpace(rest)
			if len(name) == 0 {
				return errorf("newmtl: missing material name")
			}
			cur = &mtlMaterial{file: path, blender: blender}
			defs[string(name)] = cur
			continue
		case "Ka":
			// Blender's metallic (mtlblender.go); an ambient
			// colour elsewhere, ignored, so never an error.
			if cur != nil && cur.blender {
				if c, msg := mtlColor(key, rest); msg == "" {
					cur.ka, cur.hasKa = c, true
				}
			}
			continue
		case "Kd", "Ks", "Ke", "Ns", "Pr", "Pm", "Pc", "Pcr", "map_Kd", "map_Ke", "map_Pr", "map_Pm", "norm", "map_Bump", "map_bump", "bump",
			"d", "Tr", "map_d":
			if cur == nil {
				return errorf("%s before any newmtl", key)
			}
		case "map_Ns", "refl", "map_refl":
			// Blender's roughness and metallic maps (mtlblender.go);
			// elsewhere a specular exponent map and a reflection map,
			// ignored.
			if cur == nil || !cur.blender {
				continue
			}
		case "illum", "Ni", "Tf":
			// Ignored before glass was read from them, and by
			// other readers: a value they cannot use is ignored
			// still, not an error.
			if cur != nil {
				cur.glassStatement(key, rest)
			}
			continue
		default:
			continue
		}
		switch key {
		case "Kd":
			color, cur.hasKd = &cur.kd, true
		case "Ks":
			color = &cur.ks
		case "Ke":
			color, cur.hasKe = &cur.ke, true
		case "Ns":
			scalar, limit = &cur.ns, math.MaxFloat32
		case "Pr":
			scalar, cur.hasPr = &cur.pr, true
		case "Pm":
			scalar, cur.hasPm = &cur.pm, true
		case "Pc":
			scalar = &cur.pc
		case "Pcr":
			scalar = &cur.pcr
		case "map_Kd":
			mp = &cur.mapKd
		case "map_Ke":
			mp = &cur.mapKe
		case "map_Pr", "map_Ns":
			mp = &cur.mapPr
		case "map_Pm", "refl", "map_refl":
			mp = &cur.mapPm
		case "norm":
			mp = &cur.norm
		case "map_Bump", "map_bump", "bump":
			mp = &cur.bump
			if cur.blender {
				mp = &cur.norm // Blender's Normal Map node (mtlblender.go)
			}
		case "d":
			scalar, cur.hasD = &cur.d, true
			// "d -halo x": dissolve by the view angle; read as d x.
			if f, r := nextField(rest); string(f) == "-halo" {
				rest = r
			}
		case "Tr":
			scalar, cur.hasTr = &cur.tr, true
		case "map_d":
			mp = &cur.mapD
		}
		var msg string
		switch {
		case color != nil:
			*color, msg = mtlColor(key, rest)
		case scalar != nil:
			*scalar, msg = mtlScalar(key, rest, limit)
		default:
			*mp, msg = mapStatement(rest)
			mp.line = n
			if msg == "" && (mp == &cur.mapPr || mp == &cur.mapPm || mp == &cur.bump) {
				switch mp.channel {
				case "", "r", "g", "b", "l":
				default:
					msg = fmt.Sprintf("-imfchan %s is not supported (r, g, b or l)", quote(mp.channel))
				}
			}
			if msg != "" {
				msg = key + ": " + msg
			}
		}
		if msg != "" {
			return errorf("%s", msg)
		}
	}
	return nil
}

// mtlColor reads the numbers of a colour statement kw (Kd, Ks, Ke): r g
// b, or one grey value, each finite and >= 0. It returns a message saying
// what is wrong, or "".
func mtlColor(kw string, rest []byte) (mgl32.Vec3, string) {
	if f, _ := nextField(rest); string(f) == "spectral" || string(f) == "xyz" {
		return mgl32.Vec3{}, fmt.Sprintf("%s %s is not supported; give an RGB colour, %s r g b", kw, f, kw)
	}
	var x [3]float32
	k := 0
	for {
		var f []byte
		f, rest = nextField(rest)
		if len(f) == 0 || f[0] == '#' {
			break
		}
		if k == 3 {
			return mgl32.Vec3{}, fmt.Sprintf("%s: too many numbers: expected r g b", kw)
		}
		v, msg := parseFloat32(f)
		if msg != "" {
			return mgl32.Vec3{}, fmt.Sprintf("%s: %s", kw, msg)
		}
		if v < 0 {
			return mgl32.Vec3{}, fmt.Sprintf("%s: a colour component must be >= 0, found %s", kw, f)
		}
		x[k] = v
		k++
	}
	switch k {
	case 1:
		return mgl32.Vec3{x[0], x[0], x[0]}, ""
	case 3:
		return mgl32.Vec3(x), ""
	}
	return mgl32.Vec3{}, fmt.Sprintf("%s: expected r g b (or one grey value), found %d numbers", kw, k)
}

// mtlScalar reads the one number of a statement kw (Ns, Pr, Pm), which
// must lie in [0, hi]. It returns a message saying what is wrong, or "".
func mtlScalar(kw string, rest []byte, hi float32) (float32, string) {
	want := fmt.Sprintf("a number in [0, %g]", hi)
	if hi == math.MaxFloat32 {
		want = "a number >= 0"
	}
	f, rest := nextField(rest)
	if len(f) == 0 || f[0] == '#' {
		return 0, fmt.Sprintf("%s: expected %s", kw, want)
	}
	if g, _ := nextField(rest); len(g) > 0 && g[0] != '#' {
		return 0, fmt.Sprintf("%s: too many numbers: expected one", kw)
	}
	v, msg := parseFloat32(f)
	if msg != "" {
		return 0, fmt.Sprintf("%s: %s", kw, msg)
	}
	if !(v >= 0 && v <= hi) {
		return 0, fmt.Sprintf("%s: expected %s, found %s", kw, want, f)
	}
	return v, ""
}

// blinnPhongRoughness is the GGX roughness that stands in for a
// Blinn-Phong lobe of exponent ns: the usual correspondence α =
// √(2 / (ns + 2)) (Walter et al. 2007), as the tracer's roughness √α.
// Exponent 0 gives roughness 1, 32 gives 0.49, 1000 gives 0.21.
func blinnPhongRoughness(ns float32) float32 {
	return float32(math.Pow(2/(float64(ns)+2), 0.25))
}

// mapOptionArgs is how many arguments each texture map option takes; 0
// stands for one to three numbers (-o, -s, -t).
var mapOptionArgs = map[string]int{
	"-blendu": 1, "-blendv": 1, "-bm": 1, "-boost": 1, "-cc": 1, "-clamp": 1,
	"-colorspace": 1, "-imfchan": 1, "-mm": 2, "-texres": 1, "-type": 1,
	"-o": 0, "-s": 0, "-t": 0,
}

// mapStatement reads a texture map statement, rest being what follows
// the keyword: options, then the file name (which may hold spaces). It
// returns a message saying what is wrong, or "".
func mapStatement(rest []byte) (mtlMap, string) {
	m := mtlMap{bm: 1}
	s, o := [2]float32{1, 1}, [2]float32{0, 0}
	for {
		rest = trimSpace(rest)
		if len(rest) == 0 {
			return mtlMap{}, "missing file name"
		}
		if rest[0] != '-' {
			m.file = assetName(rest)
			break
		}
		var opt []byte
		opt, rest = nextField(rest)
		args, ok := mapOptionArgs[string(opt)]
		if !ok {
			return mtlMap{}, fmt.Sprintf("unknown option %s", quote(string(opt)))
		}
		if args == 0 {
			// One to three numbers.
			var x [3]float32
			k := 0
			for k < 3 {
				f, after := nextField(rest)
				v, msg := parseFloat32(f)
				if msg != "" {
					break
				}
				x[k] = v
				k++
				rest = after
			}
			if k == 0 {
				return mtlMap{}, fmt.Sprintf("option %s: expected a number", opt)
			}
			switch string(opt) {
			case "-s":
				s = [2]float32{x[0], 1}
				if k > 1 {
					s[1] = x[1]
				}
				if s[0] == 0 || s[1] == 0 {
					return mtlMap{}, "option -s: a scale of 0 maps the texture to one texel"
				}
			case "-o":
				o = [2]float32{x[0], 0}
				if k > 1 {
					o[1] = x[1]
				}
			}
			continue
		}
		for range args {
			var f []byte
			f, rest = nextField(rest)
			if len(f) == 0 {
				return mtlMap{}, fmt.Sprintf("option %s: missing argument", opt)
			}
			switch string(opt) {
			case "-bm":
				v, msg := parseFloat32(f)
				if msg != "" || !(v >= -1000 && v <= 1000) {
					return mtlMap{}, fmt.Sprintf("option -bm: expected a number in [-1000, 1000], found %s", f)
				}
				m.bm = v
			case "-imfchan":
				m.channel = string(f)
			case "-clamp":
				switch strings.ToLower(string(f)) {
				case "on":
					m.sampler.WrapS, m.sampler.WrapT = tracer.WrapClamp, tracer.WrapClamp
				case "off":
					m.sampler.WrapS, m.sampler.WrapT = tracer.WrapRepeat, tracer.WrapRepeat
				default:
					return mtlMap{}, fmt.Sprintf("option -clamp: %s is not supported (on or off)", quote(string(f)))
				}
			case "-colorspace":
				switch cs := strings.ToLower(string(f)); cs {
				case "linear", "srgb":
					m.colorspace = cs
				default:
					return mtlMap{}, fmt.Sprintf("option -colorspace: %s is not supported (linear or srgb)", quote(string(f)))
				}
			}
		}
	}
	if s != [2]float32{1, 1} || o != [2]float32{0, 0} {
		m.uv = [6]float32{s[0], 0, 0, s[1], o[0], o[1]}
	}
	return m, ""
}

// imported returns the material as a mesh import gives it to the scene
// (see the top of this file). images holds the images read so far, so
// that materials that share a map share its image.
func (m *mtlMaterial) imported(a *assets, name string, images *mtlImages) (importedMaterial, error) {
	out := importedMaterial{Name: name, HasColor: true, Color: defaultAlbedo}
	g := m.glass()
	out.Unsupported = g.notes
	switch {
	case g.tfTint:
		out.Color = white
		if m.hasTf {
			out.Color = m.tf
		}
	case m.blender && m.mapKd.file != "":
		out.Color = white // Blender's Kd is then the unlinked socket's value (mtlblender.go)
	case m.hasKd:
		out.Color = m.kd
	case m.mapKd.file != "":
		out.Color = white
	}
	if m.mapKd.file != "" && !g.tfTint {
		img, err := images.color(a, m, "map_Kd", &m.mapKd)
		if err != nil {
			return out, err
		}
		img = images.withoutAlpha(img)                                              // an MTL's alpha is d, Tr and map_d alone
		out.Image, out.ImageUV, out.ImageSampler = img, m.mapKd.uv, m.mapKd.sampler // out.Color is its tint
	}
	if err := m.importNormalMap(a, &out, images); err != nil {
		return out, err
	}
	if g.glass {
		out.Glass, out.IOR = true, g.ior
		if m.hasPr {
			out.Roughness = m.pr
		}
		return out, nil
	}
	if err := m.importAlpha(a, &out, images); err != nil {
		return out, err
	}
	specular := m.ks != (mgl32.Vec3{})
	roughMaps := m.mapPr.file != "" || m.mapPm.file != ""
	emission := m.ke
	if !m.hasKe && m.mapKe.file != "" {
		emission = white
	}
	blenderMetal, isBlenderMetal := m.blenderMetallic()
	if !specular && !m.hasPr && !m.hasPm && !roughMaps && emission == (mgl32.Vec3{}) && !isBlenderMetal {
		return out, nil // diffuse
	}
	out.PBR = true
	// The PBR extension's clear coat (Blender's Principled Clearcoat and
	// Clearcoat Roughness), read on a pbr material only: a Pc alone
	// leaves a diffuse material diffuse, as before it was read.
	out.Clearcoat, out.ClearcoatRoughness = m.pc, m.pcr
	switch {
	case m.hasPr:
		out.Roughness = m.pr
	case m.mapPr.file != "":
		out.Roughness = 1
	case m.blender && (specular || isBlenderMetal):
		// Blender's exporter writes Ns from the roughness whatever its
		// Specular (Ks), which a metal does not use.
		out.Roughness = blenderRoughness(m.ns)
	case specular:
		out.Roughness = blinnPhongRoughness(m.ns)
	default:
		out.Roughness = 1
	}
	switch {
	case m.hasPm:
		out.Metallic = m.pm
	case m.mapPm.file != "":
		out.Metallic = 1
	case isBlenderMetal:
		out.Metallic = blenderMetal
	}
	out.Emission = emission
	if m.mapKe.file != "" && emission != (mgl32.Vec3{}) {
		img, err := images.color(a, m, "map_Ke", &m.mapKe)
		if err != nil {
			return out, err
		}
		out.EmissionImage, out.EmissionUV, out.EmissionSampler = img, m.mapKe.uv, m.mapKe.sampler
	}
	if roughMaps {
		img, err := images.roughness(a, m)
		if err != nil {
			return out, err
		}
		out.RoughImage, out.RoughUV, out.RoughSampler = img, m.mapPr.uv, m.mapPr.sampler
		if m.mapPr.file == "" {
			out.RoughUV, out.RoughSampler = m.mapPm.uv, m.mapPm.sampler
		}
	}
	return out, nil
}

// mtlImages are the images that the materials of one OBJ file have read.
type mtlImages struct {
	objDir  string                          // the OBJ file's folder (loadMap)
	colors  map[mtlColorKey]*tracer.Image   // colour maps by MTL folder, file name and decoding
	rough   map[mtlRoughKey]*tracer.Image   // metallic-roughness images
	normals map[mtlNormalKey]*tracer.Image  // normal maps, read or made from bump maps
	opaque  map[*tracer.Image]*tracer.Image // colour maps without their alpha (withoutAlpha)
}

// withoutAlpha returns img, a map_Kd's image, without its alpha channel:
// a copy sharing its texels, made once per image. MTL gives a material's
// alpha by d, Tr and map_d; an RGBA map_Kd's own alpha is not part of it
// (Blender's importer does not read it either, and Blender's exporter
// names the image that gives both colour and alpha in map_Kd and map_d,
// whose alphas would otherwise multiply).
func (c *mtlImages) withoutAlpha(img *tracer.Image) *tracer.Image {
	if img.Alpha == nil {
		return img
	}
	if o := c.opaque[img]; o != nil {
		return o
	}
	o := &tracer.Image{Width: img.Width, Height: img.Height, Pix: img.Pix}
	if c.opaque == nil {
		c.opaque = map[*tracer.Image]*tracer.Image{}
	}
	c.opaque[img] = o
	return o
}

// mtlNormalKey identifies a normal map: the MTL folder, the file, its
// decoding, and for one made from a bump map the channel and -bm.
type mtlNormalKey struct {
	dir, file string
	srgb      bool
	bump      bool
	channel   string
	bm        float32
}

// importNormalMap sets out's normal map from m's norm, or else from its
// bump map converted (bumpToNormal).
func (m *mtlMaterial) importNormalMap(a *assets, out *importedMaterial, images *mtlImages) error {
	mp, kw, bump := &m.norm, "norm", false
	if mp.file == "" {
		mp, kw, bump = &m.bump, "map_Bump", true
	}
	if mp.file == "" {
		return nil
	}
	key := mtlNormalKey{dir: filepath.Dir(m.file), file: mp.file, srgb: mp.srgb(false), bump: bump}
	if bump {
		key.channel, key.bm = mp.channel, mp.bm
	}
	img := images.normals[key]
	if img == nil {
		var err error
		if img, err = images.loadMap(a, m, kw, mp, key.srgb); err != nil {
			return err
		}
		if bump {
			img = bumpToNormal(img, mp.channel, mp.bm)
		}
		if images.normals == nil {
			images.normals = map[mtlNormalKey]*tracer.Image{}
		}
		images.normals[key] = img
	}
	out.NormalImage, out.NormalUV, out.NormalScale = img, mp.uv, 1
	if m.blender && !bump {
		out.NormalScale = mp.bm // the Normal Map node's Strength (mtlblender.go)
	}
	return nil
}

// importAlpha sets out's alpha from m's d (or 1 − Tr; d wins) and
// map_d: with a map_d, a cut-out (alpha mask, cutoff 0.5) of d × the map's
// alpha channel, or its grey level, linear unless -colorspace says
// otherwise; without one, d < 1 blends (stochastic transparency) with
// alpha d. An opaque d of 1 and no map_d leave the material opaque.
func (m *mtlMaterial) importAlpha(a *assets, out *importedMaterial, images *mtlImages) error {
	alpha := float32(1)
	switch {
	case m.hasD:
		alpha = m.d
	case m.hasTr:
		alpha = 1 - m.tr
	}
	if m.mapD.file != "" {
		key := mtlColorKey{filepath.Dir(m.file), m.mapD.file, m.mapD.srgb(false)}
		img := images.colors[key]
		if other := images.colors[mtlColorKey{key.dir, key.file, !key.srgb}]; img == nil && other != nil && other.Alpha != nil {
			// The file read already as a colour map (map_Kd naming the
			// image that map_d names, as Blender writes them): its alpha
			// channel is the same whatever the colours' decoding, so it
			// is not decoded again, and its texels are stored once.
			img = other
		}
		if img == nil {
			var err error
			if img, err = images.loadMap(a, m, "map_d", &m.mapD, key.srgb); err != nil {
				return err
			}
			if images.colors == nil {
				images.colors = map[mtlColorKey]*tracer.Image{}
			}
			images.colors[key] = img
		}
		out.AlphaMode, out.Alpha, out.AlphaCutoff = tracer.AlphaMask, alpha, defaultAlphaCutoff
		if m.blender {
			out.AlphaMode = tracer.AlphaBlend // as Blender reads its map_d (mtlblender.go)
		}
		out.AlphaImage, out.AlphaUV = img, m.mapD.uv
		return nil
	}
	if alpha < 1 {
		out.AlphaMode, out.Alpha = tracer.AlphaBlend, alpha
	}
	return nil
}

// mtlColorKey identifies a colour map's image: the MTL folder, the
// map's file, and whether it is decoded from sRGB.
type mtlColorKey struct {
	dir, file string
	srgb      bool
}

// mtlRoughKey identifies a metallic-roughness image made of a material's
// map_Pr and map_Pm: the MTL folder, and each map's file and channel
// ("" for no map).
type mtlRoughKey struct {
	dir, pr, prChannel, pm, pmChannel string
	prSRGB, pmSRGB                    bool
}

// mapError is the error for a map statement mp (of keyword kw) of m
// whose image cannot be used: the keyword, then err, which names the
// image as loadImage's errors do (or is given the name).
func (m *mtlMaterial) mapError(kw string, mp *mtlMap, err error) *Error {
	msg := err.Error()
	if !strings.HasPrefix(msg, quoteFile(mp.file)) {
		msg = quoteFile(mp.file) + ": " + msg
	}
	return &Error{File: m.file, Line: mp.line, Msg: kw + " " + msg, Err: err}
}

// color returns the image of m's colour map mp (map_Kd or map_Ke, named
// kw), decoded from sRGB, reading it at its first use.
func (c *mtlImages) color(a *assets, m *mtlMaterial, kw string, mp *mtlMap) (*tracer.Image, error) {
	key := mtlColorKey{filepath.Dir(m.file), mp.file, mp.srgb(true)}
	if img := c.colors[key]; img != nil {
		return img, nil
	}
	img, err := c.loadMap(a, m, kw, mp, key.srgb)
	if err != nil {
		return nil, err
	}
	if c.colors == nil {
		c.colors = map[mtlColorKey]*tracer.Image{}
	}
	c.colors[key] = img
	return img, nil
}

// roughness returns the metallic-roughness image of m's map_Pr and
// map_Pm, as the tracer reads it (tracer.Material.RoughMap): green the
// map_Pr's channel and blue the map_Pm's, each 1 where the map is absent,
// red 0. The image is built in the map_Pr's decoded texels (or the
// map_Pm's, when there is no map_Pr), so it costs no more memory than the
// maps; a map_Pm of another file is decoded, copied in and dropped. Both
// maps must be the same size and have the same UV transform.
func (c *mtlImages) roughness(a *assets, m *mtlMaterial) (*tracer.Image, error) {
	pr, pm := &m.mapPr, &m.mapPm
	dir := filepath.Dir(m.file)
	if pr.file != "" && pm.file != "" && pr.uv != pm.uv {
		return nil, &Error{File: m.file, Line: pm.line, Msg: fmt.Sprintf("map_Pm: its -s and -o differ from those of map_Pr (line %d); the renderer reads both maps as one texture, so they must be the same", pr.line)}
	}
	key := mtlRoughKey{dir, pr.file, pr.channel, pm.file, pm.channel, pr.srgb(false), pm.srgb(false)}
	if img := c.rough[key]; img != nil {
		return img, nil
	}
	load := func(kw string, mp *mtlMap) (*tracer.Image, error) {
		return c.loadMap(a, m, kw, mp, mp.srgb(false))
	}
	var rough, metal *tracer.Image
	var err error
	if pr.file != "" {
		if rough, err = load("map_Pr", pr); err != nil {
			return nil, err
		}
	}
	switch {
	case pm.file == "":
	case pm.file == pr.file && pm.srgb(false) == pr.srgb(false):
		metal = rough // one decode, two channels
	default:
		if metal, err = load("map_Pm", pm); err != nil {
			return nil, err
		}
	}
	if rough != nil && metal != nil && (rough.Width != metal.Width || rough.Height != metal.Height) {
		return nil, &Error{File: m.file, Line: pm.line, Msg: fmt.Sprintf("map_Pm %s: %d×%d pixels, but map_Pr %s is %d×%d; the renderer reads both maps as one image, so they must be the same size",
			quoteFile(pm.file), metal.Width, metal.Height, quoteFile(pr.file), rough.Width, rough.Height)}
	}
	out := rough
	if out == nil {
		out = metal
	}
	for i := 0; i+2 < len(out.Pix); i += 3 {
		g, b := float32(1), float32(1)
		if rough != nil {
			g = texelChannel(rough.Pix[i:i+3], pr.channel)
		}
		if metal != nil {
			b = texelChannel(metal.Pix[i:i+3], pm.channel)
		}
		out.Pix[i], out.Pix[i+1], out.Pix[i+2] = 0, g, b
	}
	if c.rough == nil {
		c.rough = map[mtlRoughKey]*tracer.Image{}
	}
	c.rough[key] = out
	return out, nil
}

// texelChannel returns the value of a linear RGB texel that -imfchan
// channel picks: r, g or b, or, for l or "", the luminance (Rec. 709
// weights; a grey texel's value exactly).
func texelChannel(rgb []float32, channel string) float32 {
	r, g, b := rgb[0], rgb[1], rgb[2]
	switch channel {
	case "r":
		return r
	case "g":
		return g
	case "b":
		return b
	}
	if r == g && g == b {
		return r
	}
	return float32(0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b))
}
