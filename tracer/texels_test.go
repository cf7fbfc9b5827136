package tracer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// texelScene is a quad under a grey sky whose material is m, with images
// imgs and one image texture per image (texture i of image i).
func texelScene(m Material, imgs ...Image) *SceneDesc {
	d := &SceneDesc{
		Settings:   Settings{Width: 4, Height: 4, Samples: 1, MaxDepth: 2},
		Camera:     CameraDesc{Position: mgl32.Vec3{0, 0, -3}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Background: Background{Color: mgl32.Vec3{0.5, 0.5, 0.5}},
		Images:     imgs,
		Materials:  []Material{m},
		Quads:      []QuadDesc{{Corner: mgl32.Vec3{-1, -1, 0}, Edge1: mgl32.Vec3{2, 0, 0}, Edge2: mgl32.Vec3{0, 2, 0}}},
	}
	for i := range imgs {
		d.Textures = append(d.Textures, Texture{Kind: TextureImage, Image: int32(i)})
	}
	return d
}

// rampImage is a w×h image of distinct texels, with its alpha (when
// alpha) in the same array right after them, as the scene loader decodes
// an image with an alpha channel.
func rampImage(w, h int, alpha bool) Image {
	n := w * h
	buf := make([]float32, 4*n)
	for i := range buf {
		buf[i] = float32(i%1000) / 1000
	}
	img := Image{Width: w, Height: h, Pix: buf[:3*n]}
	if alpha {
		img.Alpha = buf[3*n:]
	}
	return img
}

// TestCompileKeepsTexels checks that Compile does not copy the texels of
// a scene whose images share one array: the compiled Texels are the
// image's own memory, its alpha included when it lies right after the
// colours, and an image laid out twice (an MTL map_Kd and its map_d)
// is stored once. Other scenes' texels are copied, and nothing Compile
// appends is written into an image's memory.
func TestCompileKeepsTexels(t *testing.T) {
	const w, h = 8, 4
	n := w * h
	diffuse := Material{Kind: MaterialDiffuse, Texture: 0}
	masked := Material{Kind: MaterialDiffuse, Texture: 0, AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5}
	sameArray := func(a, b []float32) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

	// One image: its colours are the texels.
	img := rampImage(w, h, false)
	s := compileTest(t, texelScene(diffuse, img))
	if !sameArray(s.Texels, img.Pix) || len(s.Texels) != 3*n || cap(s.Texels) != 3*n {
		t.Errorf("one image: texels copied (len %d, cap %d)", len(s.Texels), cap(s.Texels))
	}

	// Its alpha, read by a cut-out, right after them: kept too.
	img = rampImage(w, h, true)
	s = compileTest(t, texelScene(masked, img))
	if !sameArray(s.Texels, img.Pix) || len(s.Texels) != 4*n || s.Textures[0].AlphaOffset != uint32(3*n) {
		t.Errorf("one image with alpha: texels copied (len %d, alpha at %d)", len(s.Texels), s.Textures[0].AlphaOffset)
	}

	// Its alpha unread: the texels end at the colours, and appending to
	// them does not write into the alpha.
	img = rampImage(w, h, true)
	alpha := append([]float32(nil), img.Alpha...)
	s = compileTest(t, texelScene(diffuse, img))
	if !sameArray(s.Texels, img.Pix) || len(s.Texels) != 3*n || cap(s.Texels) != 3*n {
		t.Errorf("one image, alpha unread: len %d, cap %d, want %d and %d", len(s.Texels), cap(s.Texels), 3*n, 3*n)
	}

	// The same colours in two images, one with alpha: stored once.
	img = rampImage(w, h, true)
	opaque := Image{Width: w, Height: h, Pix: img.Pix}
	d := texelScene(masked, opaque, img)
	d.Materials[0].AlphaMap = 2 // texture 1: img's alpha
	s = compileTest(t, d)
	if !sameArray(s.Texels, img.Pix) || len(s.Texels) != 4*n || s.Textures[0].Offset != 0 || s.Textures[1].Offset != 0 || s.Textures[1].AlphaOffset != uint32(3*n) {
		t.Errorf("an image and its copy without alpha: len %d, offsets %d %d, alpha at %d; want %d, 0 0, %d",
			len(s.Texels), s.Textures[0].Offset, s.Textures[1].Offset, s.Textures[1].AlphaOffset, 4*n, 3*n)
	}

	// An image background: its distribution goes into a new array, the
	// image's memory past its colours (its alpha) untouched.
	img = rampImage(w, h, true)
	d = texelScene(diffuse, img)
	d.Background = Background{Kind: BackgroundImage, Texture: 0}
	s = compileTest(t, d)
	if sameArray(s.Texels, img.Pix) || s.Background.Distribution != uint32(3*n) || len(s.Texels) != 3*n+h+n {
		t.Errorf("image background: distribution at %d of %d texels", s.Background.Distribution, len(s.Texels))
	}
	for i := range alpha {
		if math.Float32bits(img.Alpha[i]) != math.Float32bits(alpha[i]) {
			t.Fatalf("image background: Compile wrote %g over the image's alpha %d (%g)", img.Alpha[i], i, alpha[i])
		}
	}

	// Two images, the first's alpha read: copied, each at its offset,
	// into an array no longer than they are.
	a, b := rampImage(w, h, true), rampImage(h, w, false)
	for i := range b.Pix {
		b.Pix[i] += 2
	}
	s = compileTest(t, texelScene(masked, a, b))
	if sameArray(s.Texels, a.Pix) || len(s.Texels) != 7*n || cap(s.Texels) != 7*n || s.Textures[1].Offset != uint32(3*n) || s.Textures[0].AlphaOffset != uint32(6*n) {
		t.Fatalf("two images: len %d, cap %d, second at %d, alpha at %d; want %d, %d, %d, %d",
			len(s.Texels), cap(s.Texels), s.Textures[1].Offset, s.Textures[0].AlphaOffset, 7*n, 7*n, 3*n, 6*n)
	}
	for i := range 3 * n {
		if s.Texels[i] != a.Pix[i] || s.Texels[3*n+i] != b.Pix[i] {
			t.Fatalf("two images: texel %d: %g %g, want %g %g", i, s.Texels[i], s.Texels[3*n+i], a.Pix[i], b.Pix[i])
		}
	}
	for i := range n {
		if s.Texels[6*n+i] != a.Alpha[i] {
			t.Fatalf("two images: alpha %d: %g, want %g", i, s.Texels[6*n+i], a.Alpha[i])
		}
	}
}

// TestCompileImageMemory checks what compiling a scene with one
// 1024×1024 image allocates besides its 12 MiB of texels: less than
// 1 MiB with the image textured (the texels are not copied), and less
// than 17 bytes a texel with it as the background (the new array of
// colours and distribution, 16 bytes a texel, and a few rows; float32
// luminances for every texel took it to 20, float64 luminances and
// weights to 35, and a copy of the colours before them to 47). Two such
// images, the first's alpha read, are copied into one array of 28 bytes
// (a texel of the first), where the colours' array and a larger one for
// them and the alpha took 54.
func TestCompileImageMemory(t *testing.T) {
	const side = 1024
	img := rampImage(side, side, false)
	textured := texelScene(Material{Kind: MaterialDiffuse, Texture: 0}, img)
	sky := texelScene(Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}}, img)
	sky.Background = Background{Kind: BackgroundImage, Texture: 0}
	two := texelScene(Material{Kind: MaterialDiffuse, Texture: 0, AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5},
		rampImage(side, side, true), rampImage(side, side, false))
	for _, tt := range []struct {
		name  string
		d     *SceneDesc
		bytes uint64
	}{
		{"textured", textured, 1 << 20},
		{"background", sky, 17 * side * side},
		{"two images, one's alpha read", two, 28*side*side + 1<<20},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := Compile(tt.d)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > tt.bytes {
			t.Errorf("%s: compiling a %d×%d image allocated %d bytes (%.1f a texel), want at most %d", tt.name, side, side, n, float64(n)/(side*side), tt.bytes)
		}
		runtime.KeepAlive(s)
	}
}

// TestEnvironmentDistributionBits checks the distribution of an image
// background, computed a row at a time from float32 luminances, against
// the way it was computed from whole float64 tables: the same bits, on
// an image with black rows, black texels and a bright spot.
func TestEnvironmentDistributionBits(t *testing.T) {
	const w, h = 37, 19
	img := rampImage(w, h, false)
	rng := rand.New(rand.NewPCG(7, 0))
	for i := range img.Pix {
		img.Pix[i] = rng.Float32() * rng.Float32()
		if j := i / (3 * w); j == 0 || j == 7 || j == 8 || i%11 == 0 {
			img.Pix[i] = 0
		}
	}
	img.Pix[3*(9*w+5)] = 1e6
	d := texelScene(Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}}, img)
	d.Background = Background{Kind: BackgroundImage, Texture: 0}
	s := compileTest(t, d)
	want := oldEnvironmentDistribution(img.Pix, w, h)
	got := s.Texels[s.Background.Distribution:]
	if s.Background.Distribution == 0 || len(got) != len(want) {
		t.Fatalf("distribution at %d, %d values, want %d", s.Background.Distribution, len(got), len(want))
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("value %d: %g, want %g", i, got[i], want[i])
		}
	}
}

// oldEnvironmentDistribution is compileEnvironment's table as it was
// computed before it kept its luminances in float32 and its weights a row
// at a time.
func oldEnvironmentDistribution(pix []float32, W, H int) []float32 {
	lum := make([]float64, W*H)
	for j := 0; j < H; j++ {
		for i := 0; i < W; i++ {
			k := 3 * (j*W + i)
			lum[j*W+i] = max(0, float64(luminance(vec3{pix[k], pix[k+1], pix[k+2]})))
		}
	}
	w := make([]float64, W*H)
	rows := make([]float64, H)
	var total float64
	for j := 0; j < H; j++ {
		sin := math.Sin(math.Pi * (float64(j) + 0.5) / float64(H))
		for i := 0; i < W; i++ {
			m := 0.0
			for dj := -1; dj <= 1; dj++ {
				jj := min(max(j+dj, 0), H-1)
				for di := -1; di <= 1; di++ {
					m = max(m, lum[jj*W+(i+di+W)%W])
				}
			}
			w[j*W+i] = float64(m * sin)
			rows[j] += w[j*W+i]
		}
		total += rows[j]
	}
	cdf := make([]float32, H+W*H)
	cumulate(cdf[:H], rows, total)
	for j := 0; j < H; j++ {
		if rows[j] > 0 {
			cumulate(cdf[H+j*W:H+(j+1)*W], w[j*W:(j+1)*W], rows[j])
		} else {
			for i := 0; i < W; i++ {
				cdf[H+j*W+i] = float32(i+1) / float32(W)
			}
		}
	}
	return cdf
}

// TestPackImages checks that PackImages lays several images out as
// Compile does, so that Compile keeps the array: the compiled scene's
// texels and textures are those of the same scene unpacked, bit for bit,
// and they are the packed images' memory; an alpha no material reads is
// dropped; a lone image is left as it is.
func TestPackImages(t *testing.T) {
	const w, h = 8, 4
	n := w * h
	masked := Material{Kind: MaterialDiffuse, Texture: 2, AlphaMode: AlphaBlend, Alpha: 1, AlphaMap: 1}
	scene := func() *SceneDesc {
		a, b, c := rampImage(w, h, true), rampImage(h, w, true), rampImage(w, h, true)
		for i := range b.Pix {
			b.Pix[i] += 2
			c.Pix[i] += 4
			c.Alpha[i%n] = float32(i%n) / 32
		}
		opaque := Image{Width: w, Height: h, Pix: c.Pix}
		// Images: a (alpha read by the AlphaMap), b (alpha unread), c's
		// colours without alpha (the material's texture), c (alpha read).
		d := texelScene(masked, a, b, opaque, c)
		d.Materials = append(d.Materials, Material{Kind: MaterialDiffuse, Texture: 3, AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5})
		return d
	}
	want := compileTest(t, scene())
	d := scene()
	PackImages(d)
	if d.Images[1].Alpha != nil {
		t.Error("image 1's alpha, which no material reads, is kept")
	}
	if &d.Images[2].Pix[0] != &d.Images[3].Pix[0] {
		t.Error("images 2 and 3 no longer share their colours")
	}
	got := compileTest(t, d)
	if &got.Texels[0] != &d.Images[0].Pix[0] {
		t.Error("Compile copied the packed images")
	}
	if len(got.Texels) != 9*n+2*n || !bitsEqual(got.Texels, want.Texels) {
		t.Errorf("%d texels, want %d, the same as unpacked", len(got.Texels), len(want.Texels))
	}
	for i := range want.Textures {
		if got.Textures[i] != want.Textures[i] {
			t.Errorf("texture %d: %+v, want %+v", i, got.Textures[i], want.Textures[i])
		}
	}

	// A lone image is not moved.
	img := rampImage(w, h, false)
	d = texelScene(masked, img)
	d.Materials[0].Texture, d.Materials[0].AlphaMap = 0, 0
	PackImages(d)
	if &d.Images[0].Pix[0] != &img.Pix[0] {
		t.Error("a lone image was moved")
	}

	// A lone image whose alpha, read, is an array of its own: packed
	// with it.
	img = rampImage(w, h, false)
	img.Alpha = make([]float32, n)
	d = texelScene(Material{Kind: MaterialDiffuse, Texture: 0, AlphaMode: AlphaBlend, Alpha: 1}, img)
	PackImages(d)
	got = compileTest(t, d)
	if &got.Texels[0] != &d.Images[0].Pix[0] || len(got.Texels) != 4*n || &got.Texels[3*n] != &d.Images[0].Alpha[0] {
		t.Error("a lone image and its alpha were not packed into the compiled scene's texels")
	}
}

// roomyBackground returns a scene whose background is a side×side image,
// with imgs after it, its array having room for the background's sampling
// table after its colours, as a scene loader decodes it.
func roomyBackground(side int, imgs ...Image) *SceneDesc {
	sky := rampImage(side, side, false)
	pix := make([]float32, len(sky.Pix), len(sky.Pix)+EnvironmentTableSize(side, side))
	copy(pix, sky.Pix)
	sky.Pix = pix
	d := texelScene(Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}}, append([]Image{sky}, imgs...)...)
	d.Background = Background{Kind: BackgroundImage, Texture: 0}
	return d
}

// TestCompileKeepsEnvironmentTable: the sampling table that PackImages
// writes after a background's texels, in the room its array has there (a
// lone image) or in the array it packs several images into, is kept by
// Compile as it is, with the texels: compiling a 1024×1024 background
// allocates under 1 MiB (16 bytes a texel when the texels were copied into
// an array with the table), twice as once, and the table has the bits
// that Compile computes for a copy of the scene without room for it.
func TestCompileKeepsEnvironmentTable(t *testing.T) {
	const side = 1024
	for _, tt := range []struct {
		name string
		d    *SceneDesc
	}{
		{"lone background", roomyBackground(side)},
		{"background and a texture", roomyBackground(side, rampImage(64, 32, false))},
	} {
		fresh := *tt.d
		fresh.Images = nil
		for _, img := range tt.d.Images {
			fresh.Images = append(fresh.Images, Image{Width: img.Width, Height: img.Height, Pix: slices.Clone(img.Pix)})
		}
		want := compileTest(t, &fresh)
		PackImages(tt.d)
		for compile := range 2 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s, err := Compile(tt.d)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("%s, compile %d: compiling a %d×%d background allocated %d bytes (%.1f a texel), want at most 1 MiB", tt.name, compile+1, side, side, n, float64(n)/(side*side))
			}
			if &s.Texels[0] != &tt.d.Images[0].Pix[0] {
				t.Errorf("%s, compile %d: the texels were copied", tt.name, compile+1)
			}
			if s.Background.Distribution != want.Background.Distribution || !bitsEqual(s.Texels, want.Texels) {
				t.Errorf("%s, compile %d: distribution at %d, texels equal %v; want at %d, equal", tt.name, compile+1, s.Background.Distribution, bitsEqual(s.Texels, want.Texels), want.Background.Distribution)
			}
		}
	}
}

// TestCompileChecksEnvironmentTable: a table in the room after the
// texels that is not the background's (its colours changed after
// PackImages, or room never filled) is not kept, nor written over: Compile
// copies the texels into an array of its own with the right table.
func TestCompileChecksEnvironmentTable(t *testing.T) {
	const side = 16
	stale := roomyBackground(side)
	PackImages(stale)
	stale.Images[0].Pix[5] += 1 // after PackImages: its table is another image's
	unfilled := roomyBackground(side)
	for _, d := range []*SceneDesc{stale, unfilled} {
		room := slices.Clone(d.Images[0].Pix[:cap(d.Images[0].Pix)])
		s := compileTest(t, d)
		fresh := *d
		fresh.Images = []Image{{Width: side, Height: side, Pix: slices.Clone(d.Images[0].Pix)}}
		want := compileTest(t, &fresh)
		if &s.Texels[0] == &d.Images[0].Pix[0] {
			t.Error("a table that is not the background's was kept")
		}
		if !bitsEqual(s.Texels, want.Texels) {
			t.Error("the table is not the background's")
		}
		if !bitsEqual(d.Images[0].Pix[:cap(d.Images[0].Pix)], room) {
			t.Error("Compile wrote into the image's array")
		}
	}
}
