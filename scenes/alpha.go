package scenes

import (
	"image"

	"github.com/tracerender/trace/tracer"
)

// alphaModes are the accepted values of a material's alpha_mode.
var alphaModes = []option[tracer.AlphaMode]{
	{"opaque", tracer.AlphaOpaque},
	{"mask", tracer.AlphaMask},
	{"blend", tracer.AlphaBlend},
}

// alphaFields are the members every material type accepts besides its
// own: its alpha and its sidedness (docs/scene-format.md).
var alphaFields = []string{"alpha", "alpha_mode", "alpha_cutoff", "alpha_texture", "double_sided"}

// defaultAlphaCutoff is alpha_cutoff's default, glTF's alphaCutoff's.
const defaultAlphaCutoff = 0.5

// alpha decodes a material's alpha members into m: alpha_mode (default
// "opaque"), alpha (default 1), alpha_cutoff (default 0.5, "mask" only),
// alpha_texture and double_sided (default true). Members that the mode
// would ignore are errors, so that a forgotten alpha_mode is not silent.
func (d *decoder) alpha(f fields, m *tracer.Material, s *tracer.SceneDesc) {
	m.AlphaMode = choose(f, "alpha_mode", "opaque", "alpha mode", alphaModes)
	m.Alpha = f.float("alpha", 1, within(0, 1))
	m.AlphaCutoff = f.float("alpha_cutoff", defaultAlphaCutoff, within(0, 1))
	if d.failed() {
		return
	}
	if m.AlphaMode == tracer.AlphaOpaque {
		for _, k := range []string{"alpha", "alpha_cutoff", "alpha_texture"} {
			if f.lookup(k) != nil {
				f.failField(k, "%s has no effect with alpha_mode \"opaque\": set alpha_mode to \"mask\" or \"blend\"", quote(k))
				return
			}
		}
		m.Alpha, m.AlphaCutoff = 0, 0
	}
	if m.AlphaMode == tracer.AlphaBlend {
		if f.lookup("alpha_cutoff") != nil {
			f.failField("alpha_cutoff", "\"alpha_cutoff\" has no effect with alpha_mode \"blend\" (only \"mask\" has a cutoff)")
			return
		}
		m.AlphaCutoff = 0
	}
	if m.AlphaMap = d.alphaTexture(f, "alpha_texture", "an alpha_texture", s); d.failed() {
		return
	}
	if v := f.lookup("double_sided"); v != nil {
		if v.kind != kindBool {
			d.fail(v, f.at("double_sided"), "expected true or false, found %s", v.kind)
			return
		}
		if !v.b {
			m.SingleSided = 1
		}
	}
}

// greyAlpha gives an image without an alpha channel one: the mean of its
// red, green and blue, as an alpha map's value.
func greyAlpha(img *tracer.Image) {
	if img.Alpha != nil {
		return
	}
	n := img.Width * img.Height
	img.Alpha = make([]float32, n)
	for i := range n {
		p := img.Pix[3*i:]
		img.Alpha[i] = (p[0] + p[1] + p[2]) / 3
	}
}

// alphaInto writes the alpha channel of a decoded image into a, one value
// in [0, 1] per pixel in Pix's order (linear: a 16-bit alpha over 65535,
// as color.Color's RGBA gives it), and reports whether any pixel is not
// opaque. The types with an alpha channel that the decoders give have a
// loop of their own; the others go through At.
func alphaInto(m image.Image, a []float32) bool {
	b := m.Bounds()
	i := 0
	opaque := true
	put := func(v uint32, lut []float32) { // v: 8 or 16 bits, lut: linear8 or linear16
		opaque = opaque && int(v) == len(lut)-1
		a[i] = lut[v]
		i++
	}
	switch m := m.(type) {
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(uint32(row[4*x+3]), linear8[:])
			}
		}
	case *image.RGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(uint32(row[4*x+3]), linear8[:])
			}
		}
	case *image.NRGBA64:
		lut := linear16()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(uint32(row[8*x+6])<<8|uint32(row[8*x+7]), lut)
			}
		}
	case *image.RGBA64:
		lut := linear16()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(uint32(row[8*x+6])<<8|uint32(row[8*x+7]), lut)
			}
		}
	case *image.Paletted:
		lut := linear16()
		pal := make([]uint32, 256) // an index past the palette is opaque (and black: convert8)
		for j := range pal {
			pal[j] = 0xffff
			if j < len(m.Palette) {
				_, _, _, pal[j] = m.Palette[j].RGBA()
			}
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(pal[row[x]], lut)
			}
		}
	default:
		lut := linear16()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				_, _, _, v := m.At(x, y).RGBA()
				put(v, lut)
			}
		}
	}
	return !opaque
}

// dropUnusedAlpha forgets the alpha channels that no see-through
// material nor specular map reads (tracer.Compile would not store them either), so that
// they cost no memory while the scene is held.
func dropUnusedAlpha(s *tracer.SceneDesc) {
	used := make([]bool, len(s.Images))
	mark := func(ti int32) {
		if ti >= 0 && int(ti) < len(s.Textures) && s.Textures[ti].Kind == tracer.TextureImage {
			if i := s.Textures[ti].Image; i >= 0 && int(i) < len(used) {
				used[i] = true
			}
		}
	}
	for _, m := range s.Materials {
		if m.Kind == tracer.MaterialPBR && m.DielectricSpecular != 0 && m.SpecularMap != 0 {
			mark(int32(m.SpecularMap - 1)) // its alpha is the specular factor's
		}
		if m.AlphaMode == tracer.AlphaOpaque {
			continue
		}
		mark(m.Texture)
		if m.AlphaMap != 0 {
			mark(int32(m.AlphaMap - 1))
		}
	}
	for i := range s.Images {
		if !used[i] {
			s.Images[i].Alpha = nil
		}
	}
}

// alphaTexture decodes the optional texture field name of f, which must
// be an image, read by its alpha channel (its grey level when it has
// none: greyAlpha), values linear: the material's map (texture index + 1),
// 0 when absent or on an error (what names the field in the error).
func (d *decoder) alphaTexture(f fields, name, what string, s *tracer.SceneDesc) uint32 {
	if f.lookup(name) == nil {
		return 0
	}
	ti := d.addTexture(f, name, "linear", true, s)
	if ti < 0 {
		return 0
	}
	t := s.Textures[ti]
	if t.Kind != tracer.TextureImage {
		f.failField(name, "%s must be an image texture (its alpha channel, or its grey level)", what)
		return 0
	}
	greyAlpha(&s.Images[t.Image])
	return uint32(ti) + 1
}
