package tracer

import "runtime/debug"

// texelLayout is where Compile puts the images' texels in Scene.Texels:
// the colours of each image in order, those of images that share their
// Pix once, then the alpha of each image that a material reads
// (alphaTextures), in the order of the materials (compileAlpha).
type texelLayout struct {
	same    []int // per image: the first image with the same texels
	colours []int // per image: where its colours start (those of same[i])
	alpha   []int // per image: where its alpha starts, or -1 if it is not stored
	n       int   // the colours' texels, 3 a texel
	total   int   // the colours' and the alpha's
}

// layoutTexels returns d's texel layout.
func layoutTexels(d *SceneDesc) *texelLayout {
	l := &texelLayout{same: make([]int, len(d.Images)), colours: make([]int, len(d.Images)), alpha: make([]int, len(d.Images))}
	first := map[*float32]int{} // by the address of Pix
	for i, img := range d.Images {
		l.same[i], l.alpha[i] = i, -1
		if j, ok := first[&img.Pix[0]]; ok && sameTexels(&d.Images[j], &img) {
			l.same[i] = j
		} else if !ok {
			first[&img.Pix[0]] = i
		}
		if l.same[i] == i {
			l.colours[i] = l.n
			l.n += 3 * img.Width * img.Height
		} else {
			l.colours[i] = l.colours[l.same[i]]
		}
	}
	l.total = l.n
	alphaTextures(d.Materials, func(ti int32) {
		if ti < 0 || int(ti) >= len(d.Textures) || d.Textures[ti].Kind != TextureImage {
			return
		}
		if i := d.Textures[ti].Image; l.alpha[i] < 0 && len(d.Images[i].Alpha) != 0 {
			l.alpha[i] = l.total
			l.total += d.Images[i].Width * d.Images[i].Height
		}
	})
	return l
}

// sameTexels reports whether images a and b are the same texels: the same
// size, and Pix at the same address.
func sameTexels(a, b *Image) bool {
	return a.Width == b.Width && a.Height == b.Height && len(a.Pix) > 0 && len(b.Pix) > 0 && &a.Pix[0] == &b.Pix[0]
}

// inPlace reports whether d's images' colours lie in one array as l lays
// them out, the first image's Pix being its start: then Compile keeps
// that array as the scene's texels.
func (l *texelLayout) inPlace(d *SceneDesc) bool {
	if len(d.Images) == 0 {
		return false
	}
	base := d.Images[0].Pix
	if cap(base) < l.n {
		return false
	}
	base = base[:l.n]
	for i := range d.Images {
		if l.same[i] == i && &d.Images[i].Pix[0] != &base[l.colours[i]] {
			return false
		}
	}
	return true
}

// allInPlace is inPlace for the alpha too.
func (l *texelLayout) allInPlace(d *SceneDesc) bool {
	if !l.inPlace(d) || cap(d.Images[0].Pix) < l.total {
		return false
	}
	base := d.Images[0].Pix[:l.total]
	for i := range d.Images {
		if l.alpha[i] >= 0 && &d.Images[i].Alpha[0] != &base[l.alpha[i]] {
			return false
		}
	}
	return true
}

// PackImages lays the texels of d's images out in one array as Compile
// lays them out in the compiled scene (the colours of each image, then
// the alpha that materials read: alphaTextures), and points the images'
// Pix and Alpha into it, so that Compile keeps that array as the scene's
// texels where it would copy the images into a new one. The alpha that no
// material reads is dropped (Compile would not store it). Each image's
// own arrays are released as soon as they are copied, so that a scene of
// several large images peaks at about their texels and one image, not
// twice their texels; the caller must hold no other reference to them for
// that (a scene loader calls it once the scene is read). Images already so
// laid out (a lone image, with its alpha right after it) are left as
// they are. The sampling table of an image background is written after
// the texels, in the new array or in the room that the images' array has
// there (EnvironmentTableSize), where Compile keeps it rather than copying
// the texels into an array with room for it. The texels' values do not
// change: the scene renders with the same bits.
func PackImages(d *SceneDesc) {
	for _, img := range d.Images {
		if img.Width < 1 || img.Height < 1 || len(img.Pix) < 3*img.Width*img.Height || (len(img.Alpha) != 0 && len(img.Alpha) < img.Width*img.Height) {
			return // Compile will say why
		}
	}
	for _, t := range d.Textures {
		if t.Kind == TextureImage && (t.Image < 0 || int(t.Image) >= len(d.Images)) {
			return
		}
	}
	l := layoutTexels(d)
	for i := range d.Images {
		if l.alpha[i] < 0 {
			d.Images[i].Alpha = nil
		}
	}
	if len(d.Images) == 0 {
		return
	}
	env := newEnvironmentRoom(d)
	if l.allInPlace(d) {
		if base := d.Images[0].Pix; env != nil && cap(base) >= l.total+env.n && env.weigh(d) {
			env.fill(base[:l.total+env.n], l)
		}
		return
	}
	room := 0
	if env != nil && env.weigh(d) {
		room = env.n
	} else {
		env = nil // black: no table
	}
	texels := make([]float32, l.total+room) // its pages untouched until copied into
	for i := range d.Images {
		if l.same[i] != i {
			continue
		}
		img := d.Images[i]
		w, h := img.Width, img.Height
		pix := texels[l.colours[i] : l.colours[i]+3*w*h : len(texels)]
		copy(pix, img.Pix)
		var alpha []float32
		if l.alpha[i] >= 0 {
			alpha = texels[l.alpha[i] : l.alpha[i]+w*h]
			copy(alpha, img.Alpha)
		}
		for j := i; j < len(d.Images); j++ {
			if l.same[j] != i {
				continue
			}
			d.Images[j].Pix = pix
			if l.alpha[j] >= 0 {
				a := texels[l.alpha[j] : l.alpha[j]+w*h]
				if j != i {
					copy(a, d.Images[j].Alpha)
				}
				d.Images[j].Alpha = a
			}
		}
		if w*h >= 1<<20 {
			img = Image{}
			debug.FreeOSMemory() // the image's arrays, now unreachable
		}
	}
	if env != nil {
		env.fill(texels, l)
	}
}

// environmentRoom is the sampling table of d's image background that
// PackImages writes after the texels, where Compile finds it
// (compileEnvironment).
type environmentRoom struct {
	image, w, h int
	rows        []float64
	total       float64
	n           int // EnvironmentTableSize
}

// newEnvironmentRoom returns the table of d's image background, or nil
// when d has none.
func newEnvironmentRoom(d *SceneDesc) *environmentRoom {
	b := d.Background
	if b.Kind != BackgroundImage || b.Texture < 0 || int(b.Texture) >= len(d.Textures) || d.Textures[b.Texture].Kind != TextureImage {
		return nil
	}
	i := int(d.Textures[b.Texture].Image)
	img := d.Images[i]
	return &environmentRoom{image: i, w: img.Width, h: img.Height, n: EnvironmentTableSize(img.Width, img.Height)}
}

// weigh computes the rows' weights from the background's colours in d,
// reporting false when it is black (Compile stores no table).
func (e *environmentRoom) weigh(d *SceneDesc) bool {
	var ok bool
	e.rows, e.total, ok = environmentRows(d.Images[e.image].Pix[:3*e.w*e.h], e.w, e.h)
	return ok
}

// fill writes the table into texels[l.total:], texels being the images'
// array as l lays it out.
func (e *environmentRoom) fill(texels []float32, l *texelLayout) {
	pix := texels[l.colours[e.image] : l.colours[e.image]+3*e.w*e.h]
	table := texels[l.total : l.total+e.n]
	environmentCDFs(pix, e.w, e.h, e.rows, e.total, func(at int, cdf []float32) bool {
		copy(table[at:], cdf)
		return true
	})
}
