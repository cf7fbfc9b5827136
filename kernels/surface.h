/*
 * surface.h: hit points and the scattering helpers; ports of
 * tracer/surface.go, material.go and the direction samplers of sample.go.
 */
#ifndef TRACE_SURFACE_H
#define TRACE_SURFACE_H

#include "intersect.h"

/* SurfaceHit is tracer's surfaceHit. */
typedef struct {
    vec3 p;
    vec3 ng;
    vec3 ns;
    float u, v;
    const Material* m;
    int front;
} SurfaceHit;

/* surface_at: Scene.surfaceAt, the surface at hit h along r. */
DEVFN SurfaceHit surface_at(const TraceScene* s, const Ray* r, const Hit* h) {
    SurfaceHit sf;
    sf.p = ray_at(r, h->T);
    if (h->Kind == HitTriangle) {
        const Triangle* tr = &s->Triangles[h->Index];
        const TriangleAttr* a = &s->TriangleAttrs[h->Index];
        sf.m = &s->Materials[a->Material];
        sf.ng = normalize(cross(tr->E1, tr->E2));
        sf.ns = sf.ng;
        sf.u = h->B1;
        sf.v = h->B2;
        float b0 = (1.0f - h->B1) - h->B2;
        if (a->Flags != 0) {
            const Vertex* v0 = &s->Vertices[a->V[0]];
            const Vertex* v1 = &s->Vertices[a->V[1]];
            const Vertex* v2 = &s->Vertices[a->V[2]];
            if ((a->Flags & TriangleSmooth) != 0) {
                vec3 n = normalize(madd(madd(scale(v0->N, b0), v1->N, h->B1), v2->N, h->B2));
                if (!vzero(n)) {
                    if (dot(n, sf.ng) < 0.0f) {
                        n = vneg(n);
                    }
                    sf.ns = n;
                }
            }
            if ((a->Flags & TriangleUV) != 0) {
                sf.u = ((v0->UV[0] * b0) + (v1->UV[0] * h->B1)) + (v2->UV[0] * h->B2);
                sf.v = ((v0->UV[1] * b0) + (v1->UV[1] * h->B1)) + (v2->UV[1] * h->B2);
            }
        }
    } else {
        const Shape* sh = &s->Shapes[h->Index];
        sf.m = &s->Materials[sh->Material];
        sf.ng = shape_surface(sh, sf.p, h->B1, h->B2, &sf.u, &sf.v);
        sf.ns = sf.ng;
    }
    sf.front = !(dot(sf.ng, r->Dir) > 0.0f);
    if (!sf.front) {
        sf.ng = vneg(sf.ng);
        sf.ns = vneg(sf.ns);
    }
    return sf;
}

/* fresnel_schlick: fresnelSchlick. */
DEVFN float fresnel_schlick(float cos, float eta) {
    float r0 = (1.0f - eta) / (1.0f + eta);
    r0 = r0 * r0;
    float c = 1.0f - cos;
    float c5 = ((c * c) * (c * c)) * c;
    return r0 + ((1.0f - r0) * c5);
}

/* refraction: the reflectance and refracted direction of d at a surface
 * with unit normal ns facing it, relative index eta; 0 on total internal
 * reflection (*reflectance is then 1). */
DEVFN int refraction(vec3 d, vec3 ns, float eta, float* reflectance, vec3* dir) {
    float cos = go_minf(-dot(d, ns), 1.0f);
    float sin2 = 1.0f - (cos * cos);
    if (((eta * eta) * sin2) > 1.0f) {
        *reflectance = 1.0f;
        *dir = v3(0.0f, 0.0f, 0.0f);
        return 0;
    }
    vec3 perp = scale(madd(d, ns, cos), eta);
    vec3 par = scale(ns, -fm_sqrt(absf(1.0f - dot(perp, perp))));
    *reflectance = fresnel_schlick(cos, eta);
    *dir = normalize(vadd(perp, par));
    return 1;
}

/* phong_weights: phongWeights. */
DEVFN void phong_weights(const Material* m, float* kd, float* ks) {
    *kd = go_maxf(m->Diffuse, 0.0f);
    *ks = go_maxf(m->Specular, 0.0f);
    float t = *kd + *ks;
    if (t > 1.0f) {
        *kd = *kd / t;
        *ks = *ks / t;
    }
}

/* cosine_hemisphere: cosineHemisphere. */
DEVFN vec3 cosine_hemisphere(vec3 n, float u1, float u2) {
    float r = fm_sqrt(u1);
    float phi = TR_TWO_PI * u2;
    float x = r * fm_cos(phi);
    float y = r * fm_sin(phi);
    float z = fm_sqrt(go_maxf(0.0f, 1.0f - u1));
    vec3 t, b;
    orthonormal(n, &t, &b);
    return normalize(madd(madd(scale(n, z), t, x), b, y));
}

/* phong_lobe: phongLobe. */
DEVFN vec3 phong_lobe(vec3 axis, float exponent, float u1, float u2) {
    float cosA = fm_pow(u1, 1.0f / (exponent + 1.0f));
    float sinA = fm_sqrt(go_maxf(0.0f, 1.0f - (cosA * cosA)));
    float phi = TR_TWO_PI * u2;
    vec3 t, b;
    orthonormal(axis, &t, &b);
    return normalize(madd(madd(scale(axis, cosA), t, sinA * fm_cos(phi)), b, sinA * fm_sin(phi)));
}

#endif /* TRACE_SURFACE_H */
