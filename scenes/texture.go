package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// textureTypes are the accepted values of a texture's type.
var textureTypes = []string{"checker", "image"}

// colorspaces are the accepted values of an image's colorspace: whether
// its 8- and 16-bit values are sRGB-encoded (true) or linear. HDR and PFM
// files are linear whatever it says.
var colorspaces = []option[bool]{{"srgb", true}, {"linear", false}}

// textureIn decodes a material's texture member, an image's colorspace
// defaulting to colorspace ("srgb" for colours, "linear" for data such as
// a metallic-roughness map). An image texture's image is added to
// s.Images (once per file; see imageFile). alphaOnly says that only the
// image's alpha channel is read (an alpha_texture): see imageFileOf.
func (d *decoder) textureIn(f fields, s *tracer.SceneDesc, colorspace string, alphaOnly bool) tracer.Texture {
	switch f.choice("type", "", "texture type", textureTypes) {
	case "checker":
		f.known("type", "scale", "even", "odd", "offset", "rotation")
		return tracer.Texture{
			Kind:  tracer.TextureChecker,
			Scale: f.float("scale", 1, above(0)),
			Even:  f.color("even", mgl32.Vec3{1, 1, 1}),
			Odd:   f.color("odd", mgl32.Vec3{}),
			UV:    d.uvTransform(f, false),
		}
	case "image":
		f.known("type", "file", "colorspace", "scale", "offset", "rotation", "wrap", "wrap_s", "wrap_t", "filter")
		srgb := choose(f, "colorspace", colorspace, "colorspace", colorspaces)
		uv := d.uvTransform(f, true)
		use := useColours
		if alphaOnly {
			use = useAlpha
		}
		t := tracer.Texture{Kind: tracer.TextureImage, Image: d.imageFileOf(f, srgb, 1, use, s), UV: uv}
		t.WrapS, t.WrapT, t.Filter = samplerIn(f)
		return t
	}
	return tracer.Texture{}
}

// wrapModes and filters are the accepted values of an image texture's
// wrap (wrap_s, wrap_t) and filter.
var (
	wrapModes = []option[tracer.Wrap]{{"repeat", tracer.WrapRepeat}, {"clamp", tracer.WrapClamp}, {"mirror", tracer.WrapMirror}}
	filters   = []option[tracer.Filter]{{"linear", tracer.FilterLinear}, {"nearest", tracer.FilterNearest}}
)

// samplerIn reads an image texture's sampler: "wrap" sets both axes,
// "wrap_s" (u) and "wrap_t" (v) override it per axis (default "repeat");
// "filter" is "linear" (default) or "nearest".
func samplerIn(f fields) (ws, wt tracer.Wrap, filter tracer.Filter) {
	both := "repeat"
	if f.lookup("wrap") != nil {
		both = wrapModes[choose(f, "wrap", "repeat", "wrap mode", wrapModes)].name
	}
	ws = choose(f, "wrap_s", both, "wrap mode", wrapModes)
	wt = choose(f, "wrap_t", both, "wrap mode", wrapModes)
	return ws, wt, choose(f, "filter", "linear", "filter", filters)
}

// uvTransform reads a texture's UV transform: the surface coordinates are
// scaled by "scale" (a number, or [su, sv]; an image's only, a checker's
// scale being its own), rotated counter-clockwise by "rotation" degrees
// about (0, 0), then moved by "offset" [ou, ov]. It returns the zero
// value, no transform, when none of them is given.
func (d *decoder) uvTransform(f fields, scaled bool) [6]float32 {
	su, sv := 1.0, 1.0
	if v := f.lookup("scale"); v != nil && scaled {
		if v.kind == kindArray {
			var sc [2]float32
			d.floats(v, f.at("scale"), sc[:])
			su, sv = float64(sc[0]), float64(sc[1])
		} else {
			x := d.float(v, f.at("scale"))
			su, sv = float64(x), float64(x)
		}
		if (su <= 0 || sv <= 0) && !d.failed() {
			f.failField("scale", "a texture's scale must be > 0, found %g", min(su, sv))
		}
	}
	var off [2]float32
	if v := f.lookup("offset"); v != nil {
		d.floats(v, f.at("offset"), off[:])
	}
	rot := float64(f.float("rotation", 0))
	if f.lookup("offset") == nil && f.lookup("rotation") == nil && (!scaled || f.lookup("scale") == nil) {
		return [6]float32{}
	}
	r := rot * math.Pi / 180
	c, sn := math.Cos(r), math.Sin(r)
	return [6]float32{float32(su * c), float32(-sv * sn), float32(su * sn), float32(sv * c), off[0], off[1]}
}

// imageKey identifies an image as the scene uses it: the same file decoded
// the same way and scaled by the same factor is one image.
type imageKey struct {
	path  string // absolute
	srgb  bool
	scale float32
}

// imageFile loads the image named by f's file member (relative to the
// scene's folder), decoded from sRGB if srgb says so and multiplied by
// scale, and returns its index in s.Images. A file that the scene names
// more than once, with the same srgb and scale, is decoded and added once.
// The images of the scene and of its mesh files together hold at most
// tracer.MaxImageTexels texels (assets.decodeImage). Errors are at the file
// member and start with the file's name.
func (d *decoder) imageFile(f fields, srgb bool, scale float32, s *tracer.SceneDesc) int32 {
	return d.imageFileOf(f, srgb, scale, useColours, s)
}

// imageUse is what a scene reads of an image.
type imageUse int

const (
	useColours    imageUse = iota // a texture's colours (and alpha)
	useAlpha                      // an alpha_texture's alpha channel
	useBackground                 // an image background's colours
)

// imageFileOf is imageFile for an image used as use says. Of an image
// whose alpha channel only is read (useAlpha), the file decoded already,
// unscaled, in the other colourspace, with an alpha channel (a material
// whose texture and alpha_texture name one RGBA image) is that image,
// whose alpha is the same whatever the colours' decoding (toLinear),
// rather than a second decoding storing 3 more floats a texel; the other
// colourspace's image does not stand for this one's colours: a texture
// reading them decodes the file again. An image background's file is
// decoded with room for its sampling table (decodeImageWithin).
func (d *decoder) imageFileOf(f fields, srgb bool, scale float32, use imageUse, s *tracer.SceneDesc) int32 {
	fv := f.required("file")
	if d.failed() {
		return 0
	}
	file, ok := d.str(fv, f.at("file"))
	if !ok {
		return 0
	}
	fail := func(err error) int32 {
		d.fail(fv, f.at("file"), "%v", err)
		d.err.Err = err
		return 0
	}
	a, err := d.sceneAssets()
	if err != nil {
		return fail(fileErr(file, err))
	}
	p, err := a.resolve(a.dir, file)
	if err != nil {
		return fail(fileErr(file, err))
	}
	key := imageKey{p, srgb, scale}
	if i, ok := d.imageFiles[key]; ok {
		return i
	}
	if i, ok := d.imageFiles[imageKey{p, !srgb, 1}]; ok && use == useAlpha && scale == 1 && s.Images[i].Alpha != nil {
		return i
	}
	var img *tracer.Image
	if i, ok := d.imageFiles[imageKey{p, srgb, 1}]; ok {
		// Decoded already, unscaled: copy it rather than decode it again
		// (the copy counts as an image of its own).
		src := &s.Images[i]
		if err := checkSize(src.Width, src.Height, a.texelsLeft()); err != nil {
			return fail(fmt.Errorf("%s: %w", quoteFile(file), err))
		}
		a.texels += int64(src.Width) * int64(src.Height)
		img = &tracer.Image{Width: src.Width, Height: src.Height, Pix: append([]float32(nil), src.Pix...), Alpha: src.Alpha}
	} else if img, err = loadImageRoom(a, a.dir, file, srgb, use == useBackground); err != nil {
		return fail(err)
	}
	if scale != 1 {
		if err := scaleImage(img, scale); err != nil {
			return fail(fmt.Errorf("%s: %w", quoteFile(file), err))
		}
	}
	if d.imageFiles == nil {
		d.imageFiles = map[imageKey]int32{}
	}
	i := int32(len(s.Images))
	d.imageFiles[key] = i
	s.Images = append(s.Images, *img)
	return i
}

// scaleImage multiplies img's pixels by k, failing when that makes one
// infinite.
func scaleImage(img *tracer.Image, k float32) error {
	var peak float32
	for _, v := range img.Pix {
		peak = max(peak, v)
	}
	if p := peak * k; math.IsInf(float64(p), 0) {
		return fmt.Errorf("the intensity %g times the brightest value %g is too large for float32", k, peak)
	}
	for i := range img.Pix {
		img.Pix[i] *= k
	}
	return nil
}
