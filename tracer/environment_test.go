package tracer

import (
	"math"
	"testing"
)

// testRotation returns Background.Rotation for a turn by rx, then ry, then
// rz degrees about the world's x, y and z axes (the scene format's
// "rotation"): the rows of (Rz·Ry·Rx)ᵀ, with exact zeros and ones at
// multiples of 90°.
func testRotation(rx, ry, rz float64) [3]vec3 {
	var s, c [3]float64
	for i, a := range [3]float64{rx, ry, rz} {
		s[i], c[i] = math.Sincos(a * math.Pi / 180)
		if math.Mod(a, 90) == 0 {
			s[i], c[i] = math.Round(s[i]), math.Round(c[i])
		}
	}
	x := [3][3]float64{{1, 0, 0}, {0, c[0], -s[0]}, {0, s[0], c[0]}}
	y := [3][3]float64{{c[1], 0, s[1]}, {0, 1, 0}, {-s[1], 0, c[1]}}
	z := [3][3]float64{{c[2], -s[2], 0}, {s[2], c[2], 0}, {0, 0, 1}}
	mul := func(a, b [3][3]float64) (m [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				m[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + a[i][2]*b[2][j]
			}
		}
		return m
	}
	r := mul(z, mul(y, x))
	var rows [3]vec3
	for i := range 3 {
		for j := range 3 {
			rows[i][j] = float32(r[j][i])
		}
	}
	return rows
}

// testPanorama is a W × H background of a distinct value in every texel.
func testPanorama(rot [3]vec3) *Scene {
	const W, H = 16, 8
	pix := make([]float32, 3*W*H)
	for i := range W * H {
		pix[3*i], pix[3*i+1], pix[3*i+2] = float32(i), float32(i%W), float32(i/W)
	}
	return &Scene{
		Textures:   []Texture{{Kind: TextureImage, Width: W, Height: H}},
		Texels:     pix,
		Background: Background{Kind: BackgroundImage, Texture: 0, Rotation: rot},
	}
}

// TestRotatedBackgroundLookup: a ray escaping along R·d sees, in a
// background turned by R, what it saw along d unturned, bit for bit for
// quarter turns (whose matrices are exact): +90° about y carries +z to +x,
// so what lay ahead of a camera looking along +z moves to its left; +90°
// about x carries straight up to +z.
func TestRotatedBackgroundLookup(t *testing.T) {
	plain := testPanorama([3]vec3{})
	for _, c := range []struct {
		name string
		rot  [3]vec3
		turn func(d vec3) vec3 // R·d
	}{
		{"y", testRotation(0, 90, 0), func(d vec3) vec3 { return vec3{d[2], d[1], -d[0]} }},
		{"x", testRotation(90, 0, 0), func(d vec3) vec3 { return vec3{d[0], -d[2], d[1]} }},
		{"y then z", testRotation(0, 90, 90), func(d vec3) vec3 { return vec3{-d[1], d[2], -d[0]} }},
	} {
		turned := testPanorama(c.rot)
		n := 0
		for a := 0; a < 24; a++ {
			for b := 1; b < 12; b++ {
				theta, phi := float64(b)*math.Pi/12+0.01, float64(a)*math.Pi/12+0.02
				d := vec3{float32(math.Sin(theta) * math.Cos(phi)), float32(math.Cos(theta)), float32(math.Sin(theta) * math.Sin(phi))}
				want, got := plain.background(d), turned.background(c.turn(d))
				if got != want {
					t.Errorf("%s: along R·%v the turned background is %v, unturned along d %v", c.name, d, got, want)
				}
				if turned.background(d) != want {
					n++
				}
			}
		}
		if n < 200 {
			t.Errorf("%s: the turn changed what only %d of 264 directions see", c.name, n)
		}
	}
	// The closed form: unturned, +z sees the centre column (texels 7 and
	// 8 of the middle rows); turned +90° about y, +x does.
	turned := testPanorama(testRotation(0, 90, 0))
	if got, want := turned.background(vec3{1, 0, 0}), plain.background(vec3{0, 0, 1}); got != want || want[1] != 7.5 {
		t.Errorf("+x turned sees %v, +z unturned %v: want the centre column (green 7.5) in both", got, want)
	}
}

// TestRotatedEnvironmentSampling: under a turn about all three axes the
// directions sampleEnvironment draws have the density environmentPdf
// gives them (each sample's own density agrees with it, and ∫ over caps
// of the sphere of 1/pdf estimates their solid angles), and they gather
// around the sun where the turn puts it in the world.
func TestRotatedEnvironmentSampling(t *testing.T) {
	rot := testRotation(15, 150, -10)
	s := envScene(t, rot)
	// The sun's texels (rows 8, 9, columns 20, 21 of 64 × 32) in the
	// map's frame: θ = 9/32·π, φ = 21/64·2π − π.
	theta, phi := 9.0/32*math.Pi, 21.0/64*2*math.Pi-math.Pi
	m := vec3{float32(-math.Sin(theta) * math.Sin(phi)), float32(math.Cos(theta)), float32(math.Sin(theta) * math.Cos(phi))}
	sun := s.Background.toWorld(m)
	caps := []struct {
		axis vec3
		cos  float64
	}{{sun, math.Cos(0.15)}, {m, math.Cos(0.5)}, {normalize(vec3{1, -1, 0.3}), math.Cos(0.8)}, {vec3{0, 1, 0}, -1}}
	const n = 200000
	est := make([]float64, len(caps))
	near, mismatch := 0, 0
	for k := 0; k < n; k++ {
		smp := NewSampler(5, 0, 0, uint32(k))
		u1, u2 := smp.Float2()
		d, pdf := s.sampleEnvironment(u1, u2)
		if !(pdf > 0) {
			continue
		}
		q := s.environmentPdf(d)
		if math.Abs(float64(q-pdf)) > 1e-3*float64(pdf) {
			mismatch++
		}
		if q == 0 { // at a pole, where sin θ rounds to 0 from cos θ
			continue
		}
		for i, c := range caps {
			if float64(dot(d, c.axis)) > c.cos {
				est[i] += 1 / float64(q) / n
			}
		}
		if float64(dot(d, sun)) > math.Cos(0.15) {
			near++
		}
	}
	if mismatch > n/500 {
		t.Errorf("%d of %d samples have a density other than environmentPdf's", mismatch, n)
	}
	for i, c := range caps {
		want := 2 * math.Pi * (1 - c.cos)
		if math.Abs(est[i]-want) > 0.03*want {
			t.Errorf("cap %d about %v: ∫ 1/pdf over the samples %.4g, its solid angle %.4g", i, c.axis, est[i], want)
		}
	}
	if near < n/2 {
		t.Errorf("%d of %d samples within 0.15 rad of the turned sun %v: want most (the sun holds most of the light)", near, n, sun)
	}
	t.Logf("sun %v (map %v); %d of %d samples near it, %d with another density; caps %v", sun, m, near, n, mismatch, est)
}

// skyShadowScene is a sphere of radius 0.5 above a diffuse floor at height 1,
// lit by a dim sky and a sun 45° up toward +z in the map's frame, the
// map turned by rot.
func skyShadowScene(t testing.TB, rot [3]vec3) *Scene {
	// θ ≈ 45°, φ ≈ 0: toward +z.
	return sunFloorScene(t, rot, vec3{0, 4, -6}, []SphereDesc{{Center: vec3{0, 1, 0}, Radius: 0.5}}, [4]int{7, 8, 31, 32}, 0.05, 500, vec3{1, 1, 1})
}

// TestRotatedEnvironmentShadow renders the floor where the sphere's
// shadow falls: unturned, the sun toward +z puts it at (0, 0, −1); the
// map turned +90° about y carries the sun toward +x and the shadow to
// (−1, 0, 0), the floor at (0, 0, −1) now lit.
func TestRotatedEnvironmentShadow(t *testing.T) {
	floor := func(s *Scene, x, z float32) float64 {
		r := Ray{Origin: vec3{x, 3, z}, Dir: vec3{0, -1, 0}, TMax: infinity}
		var st Stats
		sum := 0.0
		const n = 1024
		for i := 0; i < n; i++ {
			smp := NewSampler(3, 0, 0, uint32(i))
			smp.SetDimension(cameraDims)
			sum += float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
		}
		return sum / n
	}
	for _, c := range []struct {
		name       string
		rot        [3]vec3
		shade, lit [2]float32 // (x, z) on the floor
	}{
		{"unturned", [3]vec3{}, [2]float32{0, -1}, [2]float32{-1, 0}},
		{"turned", testRotation(0, 90, 0), [2]float32{-1, 0}, [2]float32{0, -1}},
	} {
		s := skyShadowScene(t, c.rot)
		shade, lit := floor(s, c.shade[0], c.shade[1]), floor(s, c.lit[0], c.lit[1])
		t.Logf("%s: %.4g in the shadow at %v, %.4g lit at %v", c.name, shade, c.shade, lit, c.lit)
		if !(shade < 0.2*lit) {
			t.Errorf("%s: the floor at %v (%.4g) is not in shadow beside %v (%.4g)", c.name, c.shade, shade, c.lit, lit)
		}
	}
}

// TestBackgroundRotationValidate: Compile refuses a Background.Rotation
// that is neither zero nor a rotation.
func TestBackgroundRotationValidate(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		rot  [3]vec3
		want string
	}{
		{[3]vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 2}}, "background: rotation: rows 2 and 2 have dot product 4, not 1: not a rotation"},
		{[3]vec3{{1, 0, 0}, {0, 1, 0}, {0, 1, 0}}, "background: rotation: rows 1 and 2 have dot product 1, not 0: not a rotation"},
		{[3]vec3{{1, 0, 0}, {0, nan, 0}, {0, 0, 1}}, "background: rotation: row 1 is not finite: [0 NaN 0]"},
		{[3]vec3{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}}, "background: rotation: rows 0 and 0 have dot product 0, not 1: not a rotation"},
	} {
		d := &SceneDesc{
			Settings:   Settings{Width: 4, Height: 4, Samples: 1, MaxDepth: 1},
			Camera:     CameraDesc{Position: vec3{0, 0, -1}, Up: vec3{0, 1, 0}, FOV: 40},
			Background: Background{Kind: BackgroundImage, Texture: 0, Rotation: c.rot},
			Images:     []Image{{Width: 1, Height: 1, Pix: []float32{1, 1, 1}}},
			Textures:   []Texture{{Kind: TextureImage, Image: 0}},
		}
		if _, err := Compile(d); err == nil || err.Error() != c.want {
			t.Errorf("rotation %v: error %v, want %q", c.rot, err, c.want)
		}
	}
}
