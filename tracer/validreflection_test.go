package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestValidReflection: for random geometric normals, viewers and shading
// normals, the normal validReflection returns is unit, faces the viewer,
// and mirrors the viewer above the geometric surface at a cosine of at
// least min(0.9·(wo·ng), 0.01); a normal whose reflection already does is
// returned as it is, and a bent one lifts the reflection to that
// threshold and no further (it is rotated just enough), staying in the
// plane of ng and the original normal.
func TestValidReflection(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 76))
	unit := func() vec3 {
		for {
			v := vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}
			if l := dot(v, v); l > 0.01 && l <= 1 {
				return normalize(v)
			}
		}
	}
	bent := 0
	for i := 0; i < 20000; i++ {
		ng, wo, ns := unit(), unit(), unit()
		if dot(wo, ng) < 0 {
			wo = vec3{-wo[0], -wo[1], -wo[2]}
		}
		if dot(ns, wo) < 0.01 {
			continue // surfaceAt pulls such normals toward the viewer first
		}
		th := min(0.9*dot(wo, ng), 0.01)
		valid := dot(ng, reflect(vec3{-wo[0], -wo[1], -wo[2]}, ns)) >= th
		got := validReflection(ng, wo, ns)
		if valid {
			if got != ns {
				t.Fatalf("ng %v wo %v ns %v: a valid normal changed to %v", ng, wo, ns, got)
			}
			continue
		}
		bent++
		r := reflect(vec3{-wo[0], -wo[1], -wo[2]}, got)
		if l := length(got); math.Abs(float64(l)-1) > 1e-5 {
			t.Fatalf("ng %v wo %v ns %v: |N'| = %v", ng, wo, ns, l)
		}
		if c := dot(got, wo); !(c > 0) {
			t.Fatalf("ng %v wo %v ns %v: N'·wo = %v", ng, wo, ns, c)
		}
		if rz := dot(ng, r); math.Abs(float64(rz-th)) > 2e-4 {
			t.Fatalf("ng %v wo %v ns %v: reflection's cosine %v, want the threshold %v", ng, wo, ns, rz, th)
		}
		if c := dot(got, cross(ng, ns)); math.Abs(float64(c)) > 1e-5 {
			t.Fatalf("ng %v wo %v ns %v: N' %v left the plane of ng and ns (%v)", ng, wo, ns, got, c)
		}
	}
	if bent < 1000 {
		t.Fatalf("only %d of the normals needed bending: the test does not reach the bend", bent)
	}
}
