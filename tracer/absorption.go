package tracer

import (
	"fmt"
	"math"

	"github.com/tracerender/trace/tracer/fmath"
)

// Absorption inside glass (Beer–Lambert). A dielectric with an
// AttenuationDistance absorbs the light that travels inside it: a path
// segment of length t keeps exp(−σ·t) of its light per channel, σ the
// material's Absorption. Which segments are inside is decided by the
// segment's end: a segment that ends on the back of an absorbing
// dielectric (surfaceHit.front false) ran inside it, from wherever it
// began (a refraction into it, a reflection inside it, or the camera).
// That is exact for closed glass shapes whose faces point outward, trace's
// convention for glass (the front is where it is entered). It keeps no
// medium stack: a segment inside glass that ends on some other surface (an
// object embedded in the glass, a light inside it, another glass touching
// it) is not absorbed, and nested glass absorbs by the medium whose back it
// reaches, as the dielectric refracts by that surface's index alone.

// absorptionCoefficient returns σ = −ln(c) / d per channel for an
// attenuation colour c (in [0, 1]) at distance d (positive): the
// coefficient under which light keeps the fraction c of itself after
// travelling d. A channel of c of 0 (σ infinite: the channel is absorbed
// at any distance) gives the largest float32, so that σ·t stays a number
// for every t ≥ 0 (0 at t = 0) and exp(−σ·t) is 0 past the shortest
// distances.
func absorptionCoefficient(c vec3, d float32) vec3 {
	var sigma vec3
	for i := range sigma {
		// −ln(1) is −0: the channel does not absorb.
		sigma[i] = min(-fmath.Log(c[i])/d, math.MaxFloat32)
	}
	return sigma
}

// transmittance returns exp(−σ·t) per channel: the fraction of light
// that a path segment of length t keeps inside a medium of absorption
// coefficient sigma.
func transmittance(sigma vec3, t float32) vec3 {
	return vec3{
		fmath.Exp(-float32(sigma[0] * t)),
		fmath.Exp(-float32(sigma[1] * t)),
		fmath.Exp(-float32(sigma[2] * t)),
	}
}

// absorbs reports whether the surface sf, reached by a ray, absorbs the
// light of the segment that reached it: it is the back of a dielectric
// with an absorption, so the segment ran inside the glass.
func absorbs(sf *surfaceHit) bool {
	m := sf.m
	return m.Kind == MaterialDielectric && !sf.front && m.Absorption != (vec3{})
}

// absorbed returns what light keeps of itself along the segment from
// `from` to sf.p that ended at the back of an absorbing dielectric
// (absorbs): exp(−σ·t), t the segment's length. from is where the segment
// began: the origin of its ray before any pass through see-through
// surfaces (alpha.go), which only move the ray along its line.
func absorbed(sf *surfaceHit, from vec3) vec3 {
	return transmittance(sf.m.Absorption, length(sf.p.Sub(from)))
}

// compileAbsorption fills in each material's Absorption: σ for a
// dielectric with an AttenuationDistance, zero for every other material.
func (s *Scene) compileAbsorption() {
	for i := range s.Materials {
		m := &s.Materials[i]
		m.Absorption = vec3{}
		if m.Kind == MaterialDielectric && m.AttenuationDistance != 0 {
			m.Absorption = absorptionCoefficient(m.AttenuationColor, m.AttenuationDistance)
		}
	}
}

// checkAttenuation checks a material's AttenuationColor and
// AttenuationDistance: a distance of 0 (none), or a positive finite one
// with every colour component in [0, 1].
func checkAttenuation(m *Material) error {
	if m.AttenuationDistance == 0 {
		return nil
	}
	if !(m.AttenuationDistance > 0) || !finite(m.AttenuationDistance) {
		return fmt.Errorf("attenuation distance %g is not a positive finite number", m.AttenuationDistance)
	}
	for _, c := range m.AttenuationColor {
		if !(c >= 0 && c <= 1) {
			return fmt.Errorf("attenuation colour %v is outside [0, 1]", m.AttenuationColor)
		}
	}
	return nil
}
