// Command gen writes the gallery's procedural assets into
// scenes/examples/assets: knot.obj, a (2,3) torus knot tube with normals
// and texture coordinates, and tiles.png, a tile texture. Run it from the
// repository root:
//
//	go run ./scenes/examples/assets/gen
//
// The output is deterministic; the committed files are its output.
package main

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

const dir = "scenes/examples/assets"

func main() {
	if err := writeKnot(filepath.Join(dir, "knot.obj"), 144, 12); err != nil {
		log.Fatal(err)
	}
	if err := writeTiles(filepath.Join(dir, "tiles.png"), 128); err != nil {
		log.Fatal(err)
	}
}

type vec [3]float64

func (a vec) add(b vec) vec     { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec) sub(b vec) vec     { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec) mul(s float64) vec { return vec{a[0] * s, a[1] * s, a[2] * s} }
func (a vec) dot(b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec) norm() vec         { return a.mul(1 / math.Sqrt(a.dot(a))) }
func (a vec) cross(b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func knot(t float64) vec {
	return vec{(2 + math.Cos(3*t)) * math.Cos(2*t), (2 + math.Cos(3*t)) * math.Sin(2*t), math.Sin(3 * t)}
}
func tangent(t float64) vec        { return knot(t + 1e-4).sub(knot(t - 1e-4)).norm() }
func clamp(x float64) float64      { return math.Max(0, math.Min(1, x)) }
func lerp(a, b, t float64) float64 { return a + (b-a)*t }

// writeKnot writes a tube of radius 0.45 around the (2,3) torus knot, with
// seg rings of sides vertices; u runs along the knot (4 repeats), v around
// the tube.
func writeKnot(path string, seg, sides int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# (2,3) torus knot tube, %d triangles, made by scenes/examples/assets/gen\n", 2*seg*sides)
	const r = 0.45
	up := vec{0, 0, 1}
	for i := 0; i <= seg; i++ {
		t := 2 * math.Pi * float64(i) / float64(seg)
		c, tg := knot(t), tangent(t)
		n := up.sub(tg.mul(up.dot(tg))).norm()
		b := tg.cross(n)
		for j := 0; j <= sides; j++ {
			a := 2 * math.Pi * float64(j) / float64(sides)
			d := n.mul(math.Cos(a)).add(b.mul(math.Sin(a)))
			p := c.add(d.mul(r))
			fmt.Fprintf(w, "v %.4f %.4f %.4f\n", p[0], p[1], p[2])
			fmt.Fprintf(w, "vt %.4f %.4f\n", 4*float64(i)/float64(seg), float64(j)/float64(sides))
			fmt.Fprintf(w, "vn %.4f %.4f %.4f\n", d[0], d[1], d[2])
		}
	}
	idx := func(i, j int) int { return i*(sides+1) + j + 1 }
	for i := 0; i < seg; i++ {
		for j := 0; j < sides; j++ {
			a, b, c, d := idx(i, j), idx(i+1, j), idx(i+1, j+1), idx(i, j+1)
			fmt.Fprintf(w, "f %d/%d/%d %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, b, b, b, c, c, c, d, d, d)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeTiles writes a size×size texture of 4×4 glazed tiles in warm and
// cool colours with dark grout.
func writeTiles(path string, size int) error {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	palette := [][3]float64{{0.85, 0.45, 0.2}, {0.2, 0.45, 0.7}, {0.9, 0.8, 0.45}, {0.35, 0.6, 0.45}}
	tile := size / 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			tx, ty := x/tile, y/tile
			c := palette[(tx+2*ty+ty/2)%len(palette)]
			fx, fy := float64(x%tile)/float64(tile), float64(y%tile)/float64(tile)
			// Grout at the edges, a soft glaze shading inside.
			edge := math.Min(math.Min(fx, 1-fx), math.Min(fy, 1-fy))
			shade := lerp(0.75, 1.0, clamp(edge*6)) * (0.92 + 0.08*math.Sin(fx*7+fy*5+float64(tx*3+ty)))
			if edge < 0.04 {
				c, shade = [3]float64{0.25, 0.23, 0.22}, 1
			}
			img.SetNRGBA(x, y, color.NRGBA{
				uint8(255 * clamp(c[0]*shade)), uint8(255 * clamp(c[1]*shade)), uint8(255 * clamp(c[2]*shade)), 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		return err
	}
	return f.Close()
}
