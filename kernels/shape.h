/*
 * shape.h: ray intersection, surface coordinates and area sampling of the
 * analytic shapes and triangles; ports of tracer/shape.go, triangle.go and
 * the samplePoint functions of sample.go.
 */
#ifndef TRACE_SHAPE_H
#define TRACE_SHAPE_H

#include "vec.h"

/* intersect_sphere: intersectSphere (Haines et al.'s careful form). */
DEVFN int intersect_sphere(const Shape* s, const Ray* r, float* t) {
    float rad = s->P1.x;
    vec3 oc = vsub(r->Origin, s->P0);
    float a = dot(r->Dir, r->Dir);
    float b = dot(oc, r->Dir);
    vec3 l = madd(oc, r->Dir, -(b / a));
    float disc = (rad * rad) - dot(l, l);
    if (disc < 0.0f) {
        return 0;
    }
    float c = dot(oc, oc) - (rad * rad);
    float sq = fm_sqrt(a * disc);
    float q = -b - sq;
    if (b < 0.0f) {
        q = -b + sq;
    }
    float t0, t1;
    if (q == 0.0f) {
        t0 = 0.0f;
        t1 = 0.0f;
    } else {
        t0 = c / q;
        t1 = q / a;
    }
    if (t0 > t1) {
        float tmp = t0;
        t0 = t1;
        t1 = tmp;
    }
    if (t0 > 0.0f && t0 < r->TMax) {
        *t = t0;
        return 1;
    }
    if (t1 > 0.0f && t1 < r->TMax) {
        *t = t1;
        return 1;
    }
    return 0;
}

/* intersect_quad: intersectQuad. */
DEVFN int intersect_quad(const Shape* s, const Ray* r, float* t, float* a, float* b) {
    float denom = dot(s->N, r->Dir);
    if (denom == 0.0f) {
        return 0;
    }
    float tt = dot(s->N, vsub(s->P0, r->Origin)) / denom;
    if (!(tt > 0.0f && tt < r->TMax)) {
        return 0;
    }
    vec3 q = vsub(ray_at(r, tt), s->P0);
    float aa = dot(s->W, cross(q, s->P2));
    float bb = dot(s->W, cross(s->P1, q));
    if (aa < 0.0f || aa > 1.0f || bb < 0.0f || bb > 1.0f) {
        return 0;
    }
    *t = tt;
    *a = aa;
    *b = bb;
    return 1;
}

/* intersect_plane: intersectPlane. */
DEVFN int intersect_plane(const Shape* s, const Ray* r, float* t) {
    float denom = dot(s->N, r->Dir);
    if (denom == 0.0f) {
        return 0;
    }
    float tt = dot(s->N, vsub(s->P0, r->Origin)) / denom;
    if (!(tt > 0.0f && tt < r->TMax)) {
        return 0;
    }
    *t = tt;
    return 1;
}

/* shape_intersect: Shape.intersect. On a hit, *t is the ray parameter and
 * (*b1, *b2) the surface coordinates the hit needs later (0 for spheres and
 * planes). */
DEVFN int shape_intersect(const Shape* s, const Ray* r, float* t, float* b1, float* b2) {
    *b1 = 0.0f;
    *b2 = 0.0f;
    switch (s->Kind) {
    case ShapeSphere:
        return intersect_sphere(s, r, t);
    case ShapeQuad:
        return intersect_quad(s, r, t, b1, b2);
    case ShapePlane:
        return intersect_plane(s, r, t);
    }
    return 0;
}

/* shape_surface: Shape.surface, the unit normal and (u, v) at p. */
DEVFN vec3 shape_surface(const Shape* s, vec3 p, float b1, float b2, float* u, float* v) {
    vec3 n = v3(0.0f, 0.0f, 0.0f);
    *u = 0.0f;
    *v = 0.0f;
    switch (s->Kind) {
    case ShapeSphere: {
        float rad = s->P1.x;
        vec3 d = vsub(p, s->P0);
        n = normalize(v3(d.x / rad, d.y / rad, d.z / rad));
        sphere_uv(n, u, v);
        break;
    }
    case ShapeQuad:
        n = s->N;
        *u = b1;
        *v = b2;
        break;
    case ShapePlane: {
        vec3 d = vsub(p, s->P0);
        n = s->N;
        *u = dot(d, s->P1);
        *v = dot(d, s->P2);
        break;
    }
    }
    return n;
}

/* triangle_intersect: Triangle.intersect (Möller–Trumbore, two-sided). */
DEVFN int triangle_intersect(const Triangle* tr, const Ray* r, float* t, float* b1, float* b2) {
    vec3 p = cross(r->Dir, tr->E2);
    float det = dot(tr->E1, p);
    if (det == 0.0f) {
        return 0;
    }
    float inv = 1.0f / det;
    vec3 tv = vsub(r->Origin, tr->P0);
    float bb1 = dot(tv, p) * inv;
    if (bb1 < 0.0f || bb1 > 1.0f) {
        return 0;
    }
    vec3 q = cross(tv, tr->E1);
    float bb2 = dot(r->Dir, q) * inv;
    if (bb2 < 0.0f || bb1 + bb2 > 1.0f) {
        return 0;
    }
    float tt = dot(tr->E2, q) * inv;
    if (!(tt > 0.0f && tt < r->TMax)) {
        return 0;
    }
    *t = tt;
    *b1 = bb1;
    *b2 = bb2;
    return 1;
}

/* triangle_area: Triangle.area. */
DEVFN float triangle_area(const Triangle* tr) { return 0.5f * length(cross(tr->E1, tr->E2)); }

/* triangle_sample_point: Triangle.samplePoint. */
DEVFN vec3 triangle_sample_point(const Triangle* tr, float u1, float u2, float* b1, float* b2) {
    float su = fm_sqrt(u1);
    *b1 = su * (1.0f - u2);
    *b2 = su * u2;
    return madd(madd(tr->P0, tr->E1, *b1), tr->E2, *b2);
}

/* uniform_sphere: uniformSphere. */
DEVFN vec3 uniform_sphere(float u1, float u2) {
    float z = 1.0f - 2.0f * u1;
    float r = fm_sqrt(go_maxf(0.0f, 1.0f - (z * z)));
    float phi = TR_TWO_PI * u2;
    return v3(r * fm_cos(phi), r * fm_sin(phi), z);
}

/* shape_sample_point: Shape.samplePoint, a point uniform over a sphere or
 * quad, its unit normal *n and its surface coordinates. */
DEVFN vec3 shape_sample_point(const Shape* sh, float u1, float u2, vec3* n, float* b1, float* b2) {
    if (sh->Kind == ShapeSphere) {
        *n = uniform_sphere(u1, u2);
        *b1 = 0.0f;
        *b2 = 0.0f;
        return madd(sh->P0, *n, sh->P1.x);
    }
    *n = sh->N;
    *b1 = u1;
    *b2 = u2;
    return madd(madd(sh->P0, sh->P1, u1), sh->P2, u2);
}

/* TR_SIN2_SMALL_CONE: sin2SmallCone, sin²(1.5°). */
#define TR_SIN2_SMALL_CONE 0.00068523f

/* sphere_cone: sphereCone; returns ok. */
DEVFN int sphere_cone(vec3 c, float r, vec3 p, float* sin2Max, float* oneMinusCosMax) {
    vec3 d = vsub(c, p);
    float dc2 = dot(d, d);
    float r2 = r * r;
    if (!(dc2 > r2)) {
        *sin2Max = 0.0f;
        *oneMinusCosMax = 0.0f;
        return 0;
    }
    *sin2Max = r2 / dc2;
    if (*sin2Max < TR_SIN2_SMALL_CONE) {
        *oneMinusCosMax = *sin2Max * 0.5f;
        return 1;
    }
    *oneMinusCosMax = 1.0f - fm_sqrt(go_maxf(0.0f, 1.0f - *sin2Max));
    return 1;
}

/* sphere_cone_pdf: sphereConePdf; returns ok. */
DEVFN int sphere_cone_pdf(vec3 c, float r, vec3 p, float* pdf) {
    float sin2Max, omc;
    int ok = sphere_cone(c, r, p, &sin2Max, &omc);
    if (!ok || !(omc > 0.0f)) {
        *pdf = 0.0f;
        return 0;
    }
    *pdf = 1.0f / (TR_TWO_PI * omc);
    return 1;
}

/* sample_sphere_cone: sampleSphereCone; returns ok, with the point, its
 * outward normal *n and the solid-angle density *pdf. */
DEVFN int sample_sphere_cone(vec3 c, float r, vec3 p, float u1, float u2, vec3* q, vec3* n, float* pdf) {
    float sin2Max, omc;
    int ok = sphere_cone(c, r, p, &sin2Max, &omc);
    if (!ok || !(omc > 0.0f)) {
        return 0;
    }
    float cosT = 1.0f - (omc * u1);
    float sin2T = 1.0f - (cosT * cosT);
    if (sin2Max < TR_SIN2_SMALL_CONE) {
        sin2T = sin2Max * u1;
        cosT = fm_sqrt(1.0f - sin2T);
    }
    float sinMax = fm_sqrt(sin2Max);
    float cosA = sin2T / sinMax + (cosT * fm_sqrt(go_maxf(0.0f, 1.0f - sin2T / sin2Max)));
    float sinA = fm_sqrt(go_maxf(0.0f, 1.0f - (cosA * cosA)));
    float phi = TR_TWO_PI * u2;
    vec3 w = normalize(vsub(c, p));
    vec3 t, b;
    orthonormal(w, &t, &b);
    vec3 local = madd(madd(scale(w, cosA), t, sinA * fm_cos(phi)), b, sinA * fm_sin(phi));
    *n = vneg(local);
    *q = madd(c, *n, r);
    *pdf = 1.0f / (TR_TWO_PI * omc);
    return 1;
}

#endif /* TRACE_SHAPE_H */
