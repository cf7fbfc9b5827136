package main

import (
	"bytes"
	"math"
	"os"
	"sync"
	"testing"
)

// testTables is tables, computed once for the tests.
var testTables = sync.OnceValues(tables)

// testGlassTables is glassTables, computed once for the tests.
var testGlassTables = sync.OnceValue(glassTables)

// testSheenTable is sheenTable, computed once for the tests.
var testSheenTable = sync.OnceValue(sheenTable)

// TestTablesAreFresh: the committed tracer/ggx_albedo_gen.go and
// kernels/ggx_albedo_gen.h are what genalbedo writes today, so a change
// to the quadrature or the grid without `make gen` fails here (and in
// make check-gen).
func TestTablesAreFresh(t *testing.T) {
	e1, e5 := testTables()
	ge := testGlassTables()
	se := testSheenTable()
	for _, f := range []struct {
		path string
		want []byte
	}{{"../../../tracer/ggx_albedo_gen.go", goFile(e1, e5, ge, se)}, {"../../ggx_albedo_gen.h", header(e1, e5, ge, se)}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is stale: run 'make gen' (go generate ./kernels/...) and commit it", f.path)
		}
	}
}

// TestQuadrature: albedo at the grid's quadN points agrees with itself
// at 1024 points within 1e-4 (it converges: the two differ by 4e-5 at
// most at these points), a mirror (roughness 0) reflects exactly 1 and
// (1 − μ)⁵, and the known single-scattering losses (tracer's
// TestGGXAlbedo: a white metal of roughness 1 seen head-on reflects 0.31).
func TestQuadrature(t *testing.T) {
	for _, r := range []float64{0.05, 0.25, 0.5, 1} {
		for _, co := range []float64{0.01, 0.1, 0.5, 1} {
			a1, a5 := albedo(co, r, 1024)
			e1, e5 := albedo(co, r, quadN)
			if math.Abs(e1-a1) > 1e-4 || math.Abs(e5-a5) > 1e-4 {
				t.Errorf("roughness %g, cos θo %g: E1 %.6f, E5 %.6f at %d points; %.6f, %.6f at 1024", r, co, e1, e5, quadN, a1, a5)
			}
		}
	}
	for _, co := range []float64{minCosine, 0.3, 1} {
		if e1, e5 := albedo(co, 0, quadN); math.Abs(e1-1) > 1e-12 || math.Abs(e5-math.Pow(1-co, 5)) > 1e-12 {
			t.Errorf("roughness 0, cos θo %g: E1 %g, E5 %g, want 1 and %g", co, e1, e5, math.Pow(1-co, 5))
		}
	}
	if e1, _ := albedo(1, 1, quadN); math.Abs(e1-0.3069) > 1e-3 {
		t.Errorf("roughness 1, head-on: E1 %.4f, want 0.3069", e1)
	}
}

// TestInterpolation: the tables interpolated bilinearly at √μ and √r, as
// ggxAlbedo does, against albedo integrated at the same points, between
// the grid's points: E1 within 0.2 % (relative) and E5 within 0.003 for
// views from cos θo 0.02 and roughness from 0.032 (√ggxMinAlpha, below
// which a lobe is a mirror and reads no table).
func TestInterpolation(t *testing.T) {
	e1, e5 := testTables()
	var worst1, worst5 float64
	for _, co := range []float64{0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 0.95} {
		for _, r := range []float64{0.032, 0.05, 0.07, 0.1, 0.13, 0.17, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 0.9} {
			x, y := math.Sqrt(co)*(albedoN-1), math.Sqrt(r)*(albedoN-1)
			i, j := min(int(x), albedoN-2), min(int(y), albedoN-2)
			tx, ty := x-float64(i), y-float64(j)
			k := j*albedoN + i
			lerp := func(tab []float32) float64 {
				a := float64(tab[k]) + float64(tab[k+1]-tab[k])*tx
				b := float64(tab[k+albedoN]) + float64(tab[k+albedoN+1]-tab[k+albedoN])*tx
				return a + (b-a)*ty
			}
			a1, a5 := albedo(co, r, quadN)
			d1, d5 := math.Abs(lerp(e1)-a1)/a1, math.Abs(lerp(e5)-a5)
			worst1, worst5 = max(worst1, d1), max(worst5, d5)
			if d1 > 0.002 || d5 > 0.003 {
				t.Errorf("roughness %g, cos θo %g: E1 %.5f, E5 %.5f interpolated; %.5f, %.5f integrated", r, co, lerp(e1), lerp(e5), a1, a5)
			}
		}
	}
	t.Logf("interpolation error: E1 %.2g (relative), E5 %.2g", worst1, worst5)
}

// TestGlassQuadrature: glassAlbedo at the glass tables' glassQuadN points
// agrees with itself at 512 points within 1.5e-3 (9.8e-4 at most at
// these points; it converges more slowly than albedo: the refracted and
// reflected directions cross the horizon, and the critical angle, inside
// the quadrature's cells); a smooth glass (roughness 0) reflects and
// refracts exactly 1 at any view and ior, entering or leaving.
func TestGlassQuadrature(t *testing.T) {
	var worst float64
	for _, r := range []float64{0.25, 0.5, 1} {
		for _, ior := range []float64{1.33, 2.4} {
			for _, eta := range []float64{1 / ior, ior} {
				for _, co := range []float64{0.1, 0.5, 0.9} {
					a := glassAlbedo(co, r, eta, 512)
					e := glassAlbedo(co, r, eta, glassQuadN)
					worst = max(worst, math.Abs(e-a))
					if math.Abs(e-a) > 1.5e-3 {
						t.Errorf("roughness %g, eta %g, cos θo %g: %.5f at %d points, %.5f at 512", r, eta, co, e, glassQuadN, a)
					}
				}
			}
		}
	}
	t.Logf("quadrature error: %.2g", worst)
	for _, eta := range []float64{1 / 2.4, 1 / 1.5, 1, 1.5, 2.4} {
		for _, co := range []float64{minCosine, 0.3, 1} {
			if e := glassAlbedo(co, 0, eta, glassQuadN); math.Abs(e-1) > 1e-12 {
				t.Errorf("roughness 0, eta %g, cos θo %g: %g, want 1", eta, co, e)
			}
		}
	}
}

// TestGlassInterpolation: the glass tables interpolated trilinearly at
// √μ, the roughness and √((ior − 1)/3), as tracer's glassAlbedo does,
// against glassAlbedo integrated at the same points, between the grid's
// points, entering and leaving: within 1.5 % (relative) for views from
// cos θo 0.05, roughness 0.1 to 1 and ior 1.2 to 3.2 (1.2 % at most, at
// grazing views, and 0.14 % on average).
func TestGlassInterpolation(t *testing.T) {
	ge := testGlassTables()
	const n = glassN
	var worst, sum float64
	var count int
	for s, inv := range []bool{true, false} {
		for _, ior := range []float64{1.2, 1.33, 1.5, 1.8, 2.4, 3.2} {
			eta := ior
			if inv {
				eta = 1 / ior
			}
			for _, r := range []float64{0.1, 0.25, 0.4, 0.5, 0.7, 0.9, 1} {
				for _, co := range []float64{0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9} {
					x, y, z := math.Sqrt(co)*(n-1), r*(n-1), math.Sqrt((ior-1)/(glassMaxIOR-1))*(n-1)
					i, j, l := min(int(x), n-2), min(int(y), n-2), min(int(z), n-2)
					tx, ty, tz := x-float64(i), y-float64(j), z-float64(l)
					bilerp := func(k int) float64 {
						a := float64(ge[k]) + float64(ge[k+1]-ge[k])*tx
						b := float64(ge[k+n]) + float64(ge[k+n+1]-ge[k+n])*tx
						return a + (b-a)*ty
					}
					k := ((s*n+l)*n+j)*n + i
					a, b := bilerp(k), bilerp(k+n*n)
					got := a + (b-a)*tz
					want := glassAlbedo(co, r, eta, glassQuadN)
					d := math.Abs(got-want) / want
					worst, sum, count = max(worst, d), sum+d, count+1
					if d > 0.015 {
						t.Errorf("roughness %g, eta %g, cos θo %g: %.5f interpolated, %.5f integrated", r, eta, co, got, want)
					}
				}
			}
		}
	}
	t.Logf("interpolation error: %.2g at most (relative), %.2g on average", worst, sum/float64(count))
}

// TestSheenQuadrature: sheenAlbedo at the sheen table's sheenQuadN points
// agrees with itself at 1024 points within 0.5 % (relative) from cos θo
// 0.03 and within 1e-3 (absolute) from 0.1, where the lobe's albedo is
// below 1 and read as it is (tracer caps it at 1 above); and a rough
// sheen's known albedos (the Enterprise PBR table's order: 0.16 head-on
// at roughness 1, growing toward grazing views).
func TestSheenQuadrature(t *testing.T) {
	var worst float64
	for _, r := range []float64{sheenMinRough, 0.1, 0.2, 0.5, 1} {
		for _, co := range []float64{0.03, 0.1, 0.3, 0.5, 0.8, 1} {
			a, e := sheenAlbedo(co, r, 1024), sheenAlbedo(co, r, sheenQuadN)
			d := math.Abs(e - a)
			worst = max(worst, d)
			if d > 0.005*a+1e-6 || co >= 0.1 && d > 1e-3 {
				t.Errorf("roughness %g, cos θo %g: %.6f at %d points, %.6f at 1024", r, co, e, sheenQuadN, a)
			}
		}
	}
	t.Logf("quadrature error: %.2g", worst)
	if e := sheenAlbedo(1, 1, sheenQuadN); math.Abs(e-0.1638) > 1e-3 {
		t.Errorf("roughness 1, head-on: %.4f, want 0.1638", e)
	}
}

// TestSheenInterpolation: the sheen table interpolated bilinearly at √μ
// and the roughness, as tracer's sheenAlbedo does, against sheenAlbedo
// integrated at the same points between the grid's points, where the
// albedo is at most 1 (tracer caps it there): within 0.01 (absolute;
// 0.0093 at most, 4.5e-4 on average) for
// views from cos θo 0.05 and every roughness from sheenMinRough.
func TestSheenInterpolation(t *testing.T) {
	se := testSheenTable()
	const n = sheenN
	var worst, sum float64
	var count int
	for _, r := range []float64{0.08, 0.1, 0.13, 0.17, 0.22, 0.3, 0.37, 0.45, 0.55, 0.65, 0.8, 0.95} {
		for _, co := range []float64{0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6, 0.8, 0.95} {
			x, y := math.Sqrt(co)*(n-1), (r-sheenMinRough)/(1-sheenMinRough)*(n-1)
			i, j := min(int(x), n-2), min(int(y), n-2)
			tx, ty := x-float64(i), y-float64(j)
			k := j*n + i
			a := float64(se[k]) + float64(se[k+1]-se[k])*tx
			b := float64(se[k+n]) + float64(se[k+n+1]-se[k+n])*tx
			got := a + (b-a)*ty
			want := sheenAlbedo(co, r, sheenQuadN)
			if want > 1 {
				continue
			}
			d := math.Abs(got - want)
			worst, sum, count = max(worst, d), sum+d, count+1
			if d > 0.01 {
				t.Errorf("roughness %g, cos θo %g: %.5f interpolated, %.5f integrated", r, co, got, want)
			}
		}
	}
	t.Logf("interpolation error: %.2g at most, %.2g on average (%d points)", worst, sum/float64(count), count)
}
