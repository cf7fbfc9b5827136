/*
 * absorption.h: absorption inside glass (Beer–Lambert); a port of
 * tracer/absorption.go. A path segment that ends on the back of a
 * dielectric with an Absorption (sigma, which Compile fills in) ran
 * inside the glass and keeps exp(-sigma*t) of its light, t its length.
 */
#ifndef TRACE_ABSORPTION_H
#define TRACE_ABSORPTION_H

#include "surface.h"

/* transmittance: exp(-sigma*t) per channel. */
DEVFN vec3 transmittance(vec3 sigma, float t) {
    return v3(fm_exp(-(sigma.x * t)), fm_exp(-(sigma.y * t)), fm_exp(-(sigma.z * t)));
}

/* absorbs: whether the segment that reached sf ran inside an absorbing
 * dielectric: sf is the back of one. */
DEVFN int absorbs(const SurfaceHit* sf) {
    const Material* m = sf->m;
    return m->Kind == MaterialDielectric && !sf->front && !vzero(m->Absorption);
}

/* absorbed: what the segment from `from` to sf->p keeps of its light. */
DEVFN vec3 absorbed(const SurfaceHit* sf, vec3 from) {
    return transmittance(sf->m->Absorption, length(vsub(sf->p, from)));
}

#endif /* TRACE_ABSORPTION_H */
