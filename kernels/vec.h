/*
 * vec.h: vector helpers, rays and the random numbers of the ray path;
 * ports of tracer/vec.go, mathutil.go, ray.go and rng.go. Each function
 * carries the name of the Go function it mirrors.
 */
#ifndef TRACE_VEC_H
#define TRACE_VEC_H

#include "fmath.h"
#include "scene.h"

/* pi and invPi (tracer/mathutil.go), as float32 constants. */
#define TR_PI 3.14159265358979323846f
#define TR_INV_PI 0x1.45f306p-2f     /* float32(1 / 3.14159265358979323846) */
#define TR_TWO_PI (2.0f * TR_PI)     /* float32(2*pi), exact */
#define TR_INFINITY 3.4e38f          /* infinity, the TMax of an unbounded ray */
#define TR_SPAWN_OFFSET 1e-4f        /* float32(spawnOffset) */
#define TR_SHADOW_SHORTEN 0.9999f    /* float32(1 - 1e-4), spawnTo */
#define TR_MAX_INV_DIR 1e30f         /* maxInvDir */

DEVFN vec3 v3(float x, float y, float z) {
    vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

/* vadd, vsub, vneg: mgl32's Add and Sub, and the negation vec3{-a[0], ...}. */
DEVFN vec3 vadd(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
DEVFN vec3 vsub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
DEVFN vec3 vneg(vec3 a) { return v3(-a.x, -a.y, -a.z); }
/* vzero reports a == vec3{} (Go's array ==: −0 equals 0, NaN equals nothing). */
DEVFN int vzero(vec3 a) { return a.x == 0.0f && a.y == 0.0f && a.z == 0.0f; }

/* dot: float32(a0*b0) + float32(a1*b1) + float32(a2*b2), left to right. */
DEVFN float dot(vec3 a, vec3 b) { return ((a.x * b.x) + (a.y * b.y)) + (a.z * b.z); }

DEVFN vec3 cross(vec3 a, vec3 b) {
    return v3((a.y * b.z) - (a.z * b.y), (a.z * b.x) - (a.x * b.z), (a.x * b.y) - (a.y * b.x));
}

DEVFN float length(vec3 a) { return fm_sqrt(dot(a, a)); }

DEVFN vec3 normalize(vec3 a) {
    float l = length(a);
    if (l == 0.0f) {
        return a;
    }
    return v3(a.x / l, a.y / l, a.z / l);
}

DEVFN vec3 mul(vec3 a, vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
DEVFN vec3 scale(vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
/* madd returns a + b·s, maddv a + b·c, the product rounded first. */
DEVFN vec3 madd(vec3 a, vec3 b, float s) { return v3(a.x + (b.x * s), a.y + (b.y * s), a.z + (b.z * s)); }
DEVFN vec3 maddv(vec3 a, vec3 b, vec3 c) { return v3(a.x + (b.x * c.x), a.y + (b.y * c.y), a.z + (b.z * c.z)); }

DEVFN float max_component(vec3 a) { return go_maxf(go_maxf(a.x, a.y), a.z); }

/* absf is tracer's absf, not fabsf: absf(−0) is −0. */
DEVFN float absf(float x) {
    if (x < 0.0f) {
        return -x;
    }
    return x;
}

DEVFN vec3 reflect(vec3 d, vec3 n) { return madd(d, n, -2.0f * dot(d, n)); }

/* orthonormal: Duff et al.'s basis (t, b) about the unit vector n. */
DEVFN void orthonormal(vec3 n, vec3* t, vec3* b) {
    float sign = 1.0f;
    if (n.z < 0.0f) {
        sign = -1.0f;
    }
    float a = -1.0f / (sign + n.z);
    float c = (n.x * n.y) * a;
    *t = v3(1.0f + (sign * ((n.x * n.x) * a)), sign * c, -sign * n.x);
    *b = v3(c, sign + ((n.y * n.y) * a), -n.y);
}

/* sphere_uv: sphereUV. */
DEVFN void sphere_uv(vec3 n, float* u, float* v) {
    float phi = fm_atan2(-n.z, n.x) + TR_PI;
    float theta = fm_acos(go_maxf(-1.0f, go_minf(1.0f, -n.y)));
    *u = phi / TR_TWO_PI;
    if (*u >= 1.0f) {
        *u = 0.0f;
    }
    *v = theta / TR_PI;
}

DEVFN float clamp01(float x) { return go_maxf(0.0f, go_minf(1.0f, x)); }

/* finite32: tracer.finite, x−x == 0, false for NaN and ±Inf. */
DEVFN int finite32(float x) { return x - x == 0.0f; }

/* Ray is tracer.Ray. */
typedef struct {
    vec3 Origin;
    vec3 Dir;
    float TMax;
} Ray;

DEVFN Ray ray(vec3 o, vec3 d, float tmax) {
    Ray r;
    r.Origin = o;
    r.Dir = d;
    r.TMax = tmax;
    return r;
}

DEVFN vec3 ray_at(const Ray* r, float t) { return madd(r->Origin, r->Dir, t); }

/* spawn: a ray leaving p on the side of n that dir points to. */
DEVFN Ray spawn(vec3 p, vec3 n, vec3 dir) {
    float eps = TR_SPAWN_OFFSET * (1.0f + go_maxf(go_maxf(absf(p.x), absf(p.y)), absf(p.z)));
    if (dot(dir, n) < 0.0f) {
        eps = -eps;
    }
    return ray(madd(p, n, eps), dir, TR_INFINITY);
}

/* spawn_to: spawnTo, a shadow ray from p toward q; *dist = |q − p|. */
DEVFN Ray spawn_to(vec3 p, vec3 n, vec3 q, float* dist) {
    vec3 d = vsub(q, p);
    *dist = length(d);
    vec3 dir = v3(d.x / *dist, d.y / *dist, d.z / *dist);
    Ray r = spawn(p, n, dir);
    r.TMax = *dist * TR_SHADOW_SHORTEN;
    return r;
}

/* Sampler is tracer.Sampler: the counter-based random numbers of the
 * determinism contract. */
typedef struct {
    u64 key;
    u64 counter;
} Sampler;

DEVFN u64 splitmix64(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

DEVFN Sampler new_sampler(u64 seed, u32 x, u32 y, u32 s) {
    u64 k = splitmix64(seed);
    k = splitmix64(k ^ ((u64)x | ((u64)y << 32)));
    k = splitmix64(k ^ (u64)s);
    Sampler r;
    r.key = k;
    r.counter = 0;
    return r;
}

/* sampler_float: Sampler.Float, uniform in [0, 1) with 24 random bits. */
DEVFN float sampler_float(Sampler* s) {
    s->counter++;
    u64 v = splitmix64(s->key + s->counter * 0xd1342543de82ef95ull);
    return (float)(u32)(v >> 40) * 0x1p-24f;
}

#endif /* TRACE_VEC_H */
