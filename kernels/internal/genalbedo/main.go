// Command genalbedo writes the directional albedo tables of trace's
// single-scattering GGX lobe (tracer/microfacet.go) that its energy
// compensation reads: tracer/ggx_albedo_gen.go for the Go tracer and
// kernels/ggx_albedo_gen.h for the kernel, the same float32 numbers.
//
// For a view at cosine μ to the normal and a perceptual roughness r
// (α = r²), E1(μ, r) is the lobe's albedo for F = 1 and E5(μ, r) its
// albedo for F = (1 − ωo·h)⁵, so that its albedo for Schlick's Fresnel
// of F0 and F90 is F0·(E1 − E5) + F90·E5. Both are integrated in float64
// by a fixed quadrature (albedo; no random numbers), on a grid of
// albedoN × albedoN points, √μ and √r each from 0 to 1 in equal steps (μ
// 0 taken as 1e-4), which ggxAlbedo (tracer) and ggx_albedo (kernel)
// interpolate bilinearly. The square roots put more points where the
// albedos change fastest, at grazing views and low roughness: the
// interpolation is within 0.17 % of the integral (E1, relative; E5 0.0026)
// for μ ≥ 0.02 and roughness ≥ 0.032 (tracer's TestGGXAlbedoTable), where
// equal steps of μ and r on a 32 × 32 grid were 6 % off at grazing views.
//
// It writes too the tables of the rough dielectric's albedo that the
// compensation of rough glass reads (glassAlbedo: reflection and
// refraction together, the exact Fresnel reflectance at each microfacet
// normal), on glassN × glassN × glassN points for a ray entering the
// glass (relative index 1/ior) and as many for one leaving it (ior): √μ,
// the roughness r and √((ior − 1)/3) each from 0 to 1 in equal steps (ior
// 1 to 4, the range a dielectric's ior may take), integrated on
// glassQuadN × glassQuadN points, which glassAlbedo (tracer) and
// glass_albedo (kernel) interpolate trilinearly.
//
// And it writes the directional albedo E(μ, r) of a pbr material's
// sheen (sheenAlbedo: the Charlie distribution and KHR_materials_sheen's
// visibility, a white colour), which weighs the base below it (sheenE,
// sheen_e), on sheenN × sheenN points, √μ and the sheen roughness from
// sheenMinRough to 1 each in equal steps, integrated over the light's
// directions on sheenQuadN × sheenQuadN points; interpolated bilinearly
// it is within 0.0093 of the integral where E ≤ 1 from μ 0.05
// (TestSheenInterpolation).
//
// It runs from package kernels:
//
//	go generate ./kernels/...      (or make gen)
//
// and CI checks that the committed files are what it writes (make
// check-gen, and TestTablesAreFresh in go test). Usage:
//
//	genalbedo [-go FILE] [-h FILE]      write the Go file and the C header
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// The grid's points on each axis, and the quadrature's on each of its
// two (about 4e-5 from the integral: TestQuadrature).
const (
	albedoN   = 48
	quadN     = 256
	minCosine = 1e-4
)

// The glass tables' points on each of their three axes, the quadrature's
// on each of its two (within 1e-3 of 512 points: TestGlassQuadrature),
// and the largest ior of the last point.
const (
	glassN      = 16
	glassQuadN  = 64
	glassMaxIOR = 4
)

func main() {
	goOut := flag.String("go", "", "write the Go table to `file`")
	hOut := flag.String("h", "", "write the C header to `file`")
	flag.Parse()
	if flag.NArg() != 0 || *goOut == "" && *hOut == "" {
		fmt.Fprintln(os.Stderr, "usage: genalbedo [-go file] [-h file]")
		os.Exit(2)
	}
	e1, e5 := tables()
	ge := glassTables()
	se := sheenTable()
	for _, o := range []struct {
		path string
		text []byte
	}{{*goOut, goFile(e1, e5, ge, se)}, {*hOut, header(e1, e5, ge, se)}} {
		if o.path == "" {
			continue
		}
		if err := os.WriteFile(o.path, o.text, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "genalbedo:", err)
			os.Exit(1)
		}
	}
}

// gridCos and gridRough are the cosine and roughness of the grid's
// points i and j.
func gridCos(i int) float64 {
	x := float64(i) / (albedoN - 1)
	return max(x*x, minCosine)
}

func gridRough(j int) float64 {
	y := float64(j) / (albedoN - 1)
	return y * y
}

// tables returns E1 and E5 on the grid, row j (roughness) by column i
// (cosine): entry j·albedoN + i.
func tables() (e1, e5 []float32) {
	e1 = make([]float32, albedoN*albedoN)
	e5 = make([]float32, albedoN*albedoN)
	eachRow(albedoN, func(j int) {
		for i := range albedoN {
			a1, a5 := albedo(gridCos(i), gridRough(j), quadN)
			e1[j*albedoN+i], e5[j*albedoN+i] = float32(a1), float32(a5)
		}
	})
	return e1, e5
}

// eachRow calls fn for rows 0 to n − 1, on as many goroutines as Go may
// run at once, and returns when all are done.
func eachRow(n int, fn func(row int)) {
	var wg sync.WaitGroup
	rows := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for row := range rows {
				fn(row)
			}
		}()
	}
	for row := range n {
		rows <- row
	}
	close(rows)
	wg.Wait()
}

// gridGlassCos, gridGlassRough and gridIOR are the cosine, roughness and
// ior of the glass tables' points i, j and l.
func gridGlassCos(i int) float64 {
	x := float64(i) / (glassN - 1)
	return max(x*x, minCosine)
}

func gridGlassRough(j int) float64 {
	return float64(j) / (glassN - 1)
}

func gridIOR(l int) float64 {
	z := float64(l) / (glassN - 1)
	return 1 + (glassMaxIOR-1)*z*z
}

// glassTables returns the rough dielectric's albedo on the glass grid:
// entry ((s·glassN + l)·glassN + j)·glassN + i is at cosine i, roughness
// j and ior l, entering the glass (relative index 1/ior) for s = 0,
// leaving it (ior) for s = 1.
func glassTables() []float32 {
	e := make([]float32, 2*glassN*glassN*glassN)
	eachRow(2*glassN*glassN, func(row int) {
		s, l, j := row/(glassN*glassN), row/glassN%glassN, row%glassN
		eta := gridIOR(l)
		if s == 0 {
			eta = 1 / eta
		}
		for i := range glassN {
			e[row*glassN+i] = float32(glassAlbedo(gridGlassCos(i), gridGlassRough(j), eta, glassQuadN))
		}
	})
	return e
}

// literal writes v as the shortest decimal that reads back as the same
// float32, with a C float's suffix when c.
func literal(v float32, c bool) string {
	s := strconv.FormatFloat(float64(v), 'g', -1, 32)
	if c {
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		s += "f"
	}
	return s
}

// rows writes tab's rows, 8 numbers a line, each line led by indent.
func rows(b *bytes.Buffer, tab []float32, c bool, indent string) {
	for k := 0; k < len(tab); k += 8 {
		b.WriteString(indent)
		for m := k; m < k+8; m++ {
			if m > k {
				b.WriteByte(' ')
			}
			b.WriteString(literal(tab[m], c) + ",")
		}
		b.WriteByte('\n')
	}
}

const doc = `
// directional albedos of the single-scattering GGX lobe (E1: F = 1;
// E5: F = (1 − ωo·h)⁵) on a grid of %d × %d points, the square roots of
// the view's cosine μ (columns) and of the roughness r (rows) each from
// 0 to 1 in equal steps: entry j·%d + i is at √μ = i/%d (μ 1e-4 for 0)
// and √r = j/%d. Integrated in float64 by kernels/internal/genalbedo
// (make gen).
`

const glassDoc = `
// directional albedos of the rough dielectric's single-scattering lobe
// (reflection and refraction together, the exact Fresnel reflectance at
// each microfacet normal) on %d × %d × %d points for a ray entering the
// glass (relative index 1/ior, the first half) and as many leaving it
// (ior, the second): entry ((s·%d + l)·%d + j)·%d + i is at √μ = i/%d (μ
// 1e-4 for 0), roughness j/%d and √((ior − 1)/%d) = l/%d, s 0 entering
// and 1 leaving. Integrated in float64 by kernels/internal/genalbedo
// (make gen).
`

const sheenDoc = `
// directional albedos of the sheen lobe (the Charlie distribution and
// KHR_materials_sheen's visibility, a white sheen colour) on a grid of
// %d × %d points: entry j·%d + i is at √μ = i/%d (μ 1e-4 for 0) and the
// sheen roughness %g + %g·j/%d. Integrated in float64 by
// kernels/internal/genalbedo (make gen).
`

// sheenDocf is sheenDoc with its numbers.
func sheenDocf() string {
	n := sheenN - 1
	return fmt.Sprintf(sheenDoc, sheenN, sheenN, sheenN, n, sheenMinRough, 1-sheenMinRough, n)
}

// glassDocf is glassDoc with its numbers.
func glassDocf() string {
	n := glassN - 1
	return fmt.Sprintf(glassDoc, glassN, glassN, glassN, glassN, glassN, glassN, n, n, glassMaxIOR-1, n)
}

// goFile returns the text of tracer/ggx_albedo_gen.go.
func goFile(e1, e5, ge, se []float32) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by kernels/internal/genalbedo; DO NOT EDIT.\n\npackage tracer\n\n")
	fmt.Fprintf(&b, "// ggxAlbedoN is the side of the grid of ggxE1 and ggxE5, the"+doc, albedoN, albedoN, albedoN, albedoN-1, albedoN-1)
	fmt.Fprintf(&b, "const ggxAlbedoN = %d\n", albedoN)
	for _, t := range []struct {
		name string
		tab  []float32
	}{{"ggxE1", e1}, {"ggxE5", e5}} {
		fmt.Fprintf(&b, "\n// %s: see ggxAlbedoN.\nvar %s = [ggxAlbedoN * ggxAlbedoN]float32{\n", t.name, t.name)
		rows(&b, t.tab, false, "\t")
		b.WriteString("}\n")
	}
	goTable(&b, "glassAlbedoN", "glassE", glassDocf(), glassN, "2 * glassAlbedoN * glassAlbedoN * glassAlbedoN", ge)
	goTable(&b, "sheenAlbedoN", "sheenE", sheenDocf(), sheenN, "sheenAlbedoN * sheenAlbedoN", se)
	return b.Bytes()
}

// goTable writes a table of tracer/ggx_albedo_gen.go: the constant side,
// its grid's side n, with its doc, then the array name of size entries.
func goTable(b *bytes.Buffer, side, name, doc string, n int, size string, tab []float32) {
	b.WriteString("\n// " + side + " is the side of the grid of " + name + ", the" + doc)
	fmt.Fprintf(b, "const %s = %d\n", side, n)
	fmt.Fprintf(b, "\n// %s: see %s.\nvar %s = [%s]float32{\n", name, side, name, size)
	rows(b, tab, false, "\t")
	b.WriteString("}\n")
}

// header returns the text of kernels/ggx_albedo_gen.h.
func header(e1, e5, ge, se []float32) []byte {
	var b bytes.Buffer
	b.WriteString("/* Code generated by kernels/internal/genalbedo; DO NOT EDIT.\n *\n" +
		" * ggx_albedo_gen.h: tracer/ggx_albedo_gen.go's tables for the kernel\n" +
		" * (microfacet.h includes it); TR_GGX_ALBEDO_N is the side of the grid of\n * ggx_e1 and ggx_e5, the")
	d := fmt.Sprintf(doc, albedoN, albedoN, albedoN, albedoN-1, albedoN-1)
	b.WriteString(strings.ReplaceAll(strings.TrimSuffix(d, "\n"), "\n//", "\n *"))
	b.WriteString("\n */\n#ifndef TRACE_GGX_ALBEDO_GEN_H\n#define TRACE_GGX_ALBEDO_GEN_H\n\n")
	fmt.Fprintf(&b, "#define TR_GGX_ALBEDO_N %d\n", albedoN)
	for _, t := range []struct {
		name string
		tab  []float32
	}{{"ggx_e1", e1}, {"ggx_e5", e5}} {
		fmt.Fprintf(&b, "\nPORT_TABLE float %s[TR_GGX_ALBEDO_N * TR_GGX_ALBEDO_N] = {\n", t.name)
		rows(&b, t.tab, true, "    ")
		b.WriteString("};\n")
	}
	cTable(&b, "TR_GLASS_ALBEDO_N", "glass_e", glassDocf(), glassN, "2 * TR_GLASS_ALBEDO_N * TR_GLASS_ALBEDO_N * TR_GLASS_ALBEDO_N", ge)
	cTable(&b, "TR_SHEEN_ALBEDO_N", "sheen_e", sheenDocf(), sheenN, "TR_SHEEN_ALBEDO_N * TR_SHEEN_ALBEDO_N", se)
	b.WriteString("\n#endif /* TRACE_GGX_ALBEDO_GEN_H */\n")
	return b.Bytes()
}

// cTable writes a table of kernels/ggx_albedo_gen.h: the macro side, its
// grid's side n, with doc (a Go comment made a C one), then the array
// name of size entries.
func cTable(b *bytes.Buffer, side, name, doc string, n int, size string, tab []float32) {
	b.WriteString("\n/* " + side + " is the side of the grid of " + name + ", the")
	b.WriteString(strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n//", "\n *"))
	fmt.Fprintf(b, "\n */\n#define %s %d\n", side, n)
	fmt.Fprintf(b, "\nPORT_TABLE float %s[%s] = {\n", name, size)
	rows(b, tab, true, "    ")
	b.WriteString("};\n")
}
