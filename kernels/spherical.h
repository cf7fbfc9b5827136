/*
 * spherical.h: solid-angle sampling of triangle and quad emitters (Arvo
 * 1995); a port of tracer/spherical.go.
 */
#ifndef TRACE_SPHERICAL_H
#define TRACE_SPHERICAL_H

#include "surface.h"

/* minSphericalArea, maxSphericalArea and sphericalNear. */
#define TR_MIN_SPHERICAL_AREA 0.01f
#define TR_MAX_SPHERICAL_AREA 6.0f
#define TR_SPHERICAL_NEAR 0.5f

/* angle_between: angleBetween. */
DEVFN float angle_between(vec3 a, vec3 b) { return 2.0f * fm_atan2(length(vsub(a, b)), length(vadd(a, b))); }

/* triangle_solid_angle: triangleSolidAngle. */
DEVFN float triangle_solid_angle(vec3 p, vec3 v0, vec3 v1, vec3 v2) {
    vec3 a = normalize(vsub(v0, p)), b = normalize(vsub(v1, p)), c = normalize(vsub(v2, p));
    float den = ((1.0f + dot(a, b)) + dot(a, c)) + dot(b, c);
    return absf(2.0f * fm_atan2(dot(a, cross(b, c)), den));
}

/* gram_schmidt: gramSchmidt. */
DEVFN vec3 gram_schmidt(vec3 v, vec3 w) { return madd(v, w, -dot(v, w)); }

/* sample_spherical_triangle: sampleSphericalTriangle; returns ok. */
DEVFN int sample_spherical_triangle(vec3 p, vec3 v0, vec3 v1, vec3 v2, float u1, float u2, vec3* w) {
    vec3 a = normalize(vsub(v0, p)), b = normalize(vsub(v1, p)), c = normalize(vsub(v2, p));
    vec3 nab = cross(a, b), nbc = cross(b, c), nca = cross(c, a);
    if (dot(nab, nab) == 0.0f || dot(nbc, nbc) == 0.0f || dot(nca, nca) == 0.0f) {
        return 0;
    }
    nab = normalize(nab);
    nbc = normalize(nbc);
    nca = normalize(nca);
    float alpha = angle_between(nab, vneg(nca));
    float beta = angle_between(nbc, vneg(nab));
    float gamma = angle_between(nca, vneg(nbc));
    float apPi = TR_PI + (u1 * (((alpha + beta) + gamma) - TR_PI));
    float cosAlpha = fm_cos(alpha), sinAlpha = fm_sin(alpha);
    float sinAp = fm_sin(apPi), cosAp = fm_cos(apPi);
    float sinPhi = (sinAp * cosAlpha) - (cosAp * sinAlpha);
    float cosPhi = (cosAp * cosAlpha) + (sinAp * sinAlpha);
    float k1 = cosPhi + cosAlpha;
    float k2 = sinPhi - (sinAlpha * dot(a, b));
    float num = k2 + (((k2 * cosPhi) - (k1 * sinPhi)) * cosAlpha);
    float den = ((k2 * sinPhi) + (k1 * cosPhi)) * sinAlpha;
    float cosBp = num / den;
    if (!(cosBp == cosBp) || !(den != 0.0f)) {
        return 0;
    }
    cosBp = go_maxf(-1.0f, go_minf(1.0f, cosBp));
    float sinBp = fm_sqrt(go_maxf(0.0f, 1.0f - (cosBp * cosBp)));
    vec3 cp = madd(scale(a, cosBp), normalize(gram_schmidt(c, a)), sinBp);
    float cosT = 1.0f - (u2 * (1.0f - dot(cp, b)));
    float sinT = fm_sqrt(go_maxf(0.0f, 1.0f - (cosT * cosT)));
    *w = normalize(madd(scale(b, cosT), normalize(gram_schmidt(cp, b)), sinT));
    return w->x == w->x && w->y == w->y && w->z == w->z;
}

/* quad_triangles: quadTriangles. */
DEVFN void quad_triangles(const Shape* sh, vec3* c0, vec3* c1, vec3* c2, vec3* c3) {
    *c0 = sh->P0;
    *c1 = vadd(sh->P0, sh->P1);
    *c2 = vadd(*c1, sh->P2);
    *c3 = vadd(sh->P0, sh->P2);
}

/* flat_solid_angle: Scene.flatSolidAngle; returns spherical. */
DEVFN int flat_solid_angle(const TraceScene* s, u32 kind, u32 index, float area, vec3 p, float* omega, float* first) {
    vec3 c0, c1, c2, c3;
    if (kind == HitTriangle) {
        const Triangle* tr = &s->Triangles[index];
        c0 = tr->P0;
        c1 = vadd(tr->P0, tr->E1);
        c2 = vadd(tr->P0, tr->E2);
        c3 = c0;
    } else {
        quad_triangles(&s->Shapes[index], &c0, &c1, &c2, &c3);
    }
    *omega = 0.0f;
    *first = 0.0f;
    vec3 d = vsub(c0, p);
    if (!(area > (TR_SPHERICAL_NEAR * dot(d, d)))) {
        return 0;
    }
    *omega = triangle_solid_angle(p, c0, c1, c2);
    *first = *omega;
    if (kind != HitTriangle) {
        *omega = *first + triangle_solid_angle(p, c0, c2, c3);
    }
    return *omega >= TR_MIN_SPHERICAL_AREA && *omega <= TR_MAX_SPHERICAL_AREA;
}

/* sample_flat_by_solid_angle: Scene.sampleFlatBySolidAngle; returns ok,
 * with the point *q and its surface coordinates. */
DEVFN int sample_flat_by_solid_angle(const TraceScene* s, Emitter e, vec3 p, float omega, float first, float u1, float u2,
                                     vec3* q, float* b1, float* b2) {
    vec3 w;
    int ok;
    if (e.Kind == HitTriangle) {
        const Triangle* tr = &s->Triangles[e.Index];
        ok = sample_spherical_triangle(p, tr->P0, vadd(tr->P0, tr->E1), vadd(tr->P0, tr->E2), u1, u2, &w);
    } else {
        vec3 c0, c1, c2, c3;
        quad_triangles(&s->Shapes[e.Index], &c0, &c1, &c2, &c3);
        float f = first / omega;
        if (u1 < f) {
            ok = sample_spherical_triangle(p, c0, c1, c2, go_minf(u1 / f, 0.99999994f), u2, &w);
        } else {
            ok = sample_spherical_triangle(p, c0, c2, c3, go_minf((u1 - f) / (1.0f - f), 0.99999994f), u2, &w);
        }
    }
    if (!ok) {
        return 0;
    }
    Ray r = ray(p, w, TR_INFINITY);
    float t;
    if (e.Kind == HitTriangle) {
        ok = triangle_intersect(&s->Triangles[e.Index], &r, &t, b1, b2);
    } else {
        ok = intersect_quad(&s->Shapes[e.Index], &r, &t, b1, b2);
    }
    if (!ok) {
        return 0;
    }
    *q = ray_at(&r, t);
    return 1;
}

#endif /* TRACE_SPHERICAL_H */
