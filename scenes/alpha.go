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
	if f.lookup("alpha_texture") != nil {
		ti := d.addTexture(f, "alpha_texture", "linear", s)
		if ti < 0 {
			return
		}
		t := s.Textures[ti]
		if t.Kind != tracer.TextureImage {
			f.failField("alpha_texture", "an alpha_texture must be an image texture (its alpha channel, or its grey level)")
			return
		}
		greyAlpha(&s.Images[t.Image])
		m.AlphaMap = uint32(ti) + 1
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

// alphaOf returns the alpha channel of a decoded image, one value in
// [0, 1] per pixel in Pix's order, or nil when it is opaque.
func alphaOf(m image.Image) []float32 {
	if o, ok := m.(interface{ Opaque() bool }); ok && o.Opaque() {
		return nil
	}
	b := m.Bounds()
	out := make([]float32, 0, b.Dx()*b.Dy())
	opaque := true
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			_, _, _, a := m.At(x, y).RGBA()
			opaque = opaque && a == 0xffff
			out = append(out, float32(float64(a)/0xffff))
		}
	}
	if opaque {
		return nil
	}
	return out
}

// dropUnusedAlpha forgets the alpha channels that no see-through
// material reads (tracer.Compile would not store them either), so that
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
