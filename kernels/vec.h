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
#define TR_SPAWN_OFFSET 1e-5f        /* float32(spawnOffset) */
#define TR_SHADOW_SHORTEN 0.9999f    /* float32(shadowShorten) */
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

/* normalize: a / |a| (a itself when |a| is 0). Its three correctly
 * rounded divisions, inlined at each of its call sites, were 2,749 of
 * trace_pixels_path's 31,880 instructions on an H200; TRACE_VEC_CALLS
 * makes it one function, called: a variant to time on a GPU
 * (scripts/ptx-variants.sh veccalls=-DTRACE_VEC_CALLS; ptxas: 28,885
 * instructions, 159 registers). The same bits either way. */
#ifdef TRACE_VEC_CALLS
#define VEC_CALL_FN DEVFN_CALL
#else
#define VEC_CALL_FN DEVFN
#endif
VEC_CALL_FN vec3 normalize(vec3 a) {
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

/* spawn_epsilon: spawnEpsilon, the offset of rays leaving the point p found
 * by a ray from o. */
DEVFN float spawn_epsilon(vec3 p, vec3 o) {
    float mp = go_maxf(go_maxf(absf(p.x), absf(p.y)), absf(p.z));
    float mo = go_maxf(go_maxf(absf(o.x), absf(o.y)), absf(o.z));
    return TR_SPAWN_OFFSET * go_maxf(mp, mo * 0.0625f);
}

/* spawn: a ray leaving p, pushed eps along n on the side dir points to. */
DEVFN Ray spawn(vec3 p, vec3 n, float eps, vec3 dir) {
    if (dot(dir, n) < 0.0f) {
        eps = -eps;
    }
    return ray(madd(p, n, eps), dir, TR_INFINITY);
}

/* spawn_to: spawnTo, the unit direction *dir and distance *dist from p to
 * q, and the shadow ray toward q from p pushed off its surface. */
DEVFN Ray spawn_to(vec3 p, vec3 n, float eps, vec3 q, vec3* dir, float* dist) {
    vec3 d = vsub(q, p);
    *dist = length(d);
    *dir = v3(d.x / *dist, d.y / *dist, d.z / *dist);
    if (dot(*dir, n) < 0.0f) {
        eps = -eps;
    }
    vec3 o = madd(p, n, eps);
    d = vsub(q, o);
    float l = length(d);
    return ray(o, v3(d.x / l, d.y / l, d.z / l), l * TR_SHADOW_SHORTEN);
}

/* shadow_ray_from: shadowRayFrom, the visibility ray from the point q of a
 * surface (unit normal nq) to p (geometric normal n, offset eps). */
DEVFN Ray shadow_ray_from(vec3 q, vec3 nq, vec3 p, vec3 n, float eps) {
    vec3 o = madd(p, n, eps);
    if (dot(vsub(q, o), n) < 0.0f) {
        o = madd(p, n, -eps);
    }
    float eq = spawn_epsilon(q, p);
    if (dot(vsub(o, q), nq) < 0.0f) {
        eq = -eq;
    }
    vec3 qo = madd(q, nq, eq);
    vec3 d = vsub(o, qo);
    float l = length(d);
    return ray(qo, v3(d.x / l, d.y / l, d.z / l), l * TR_SHADOW_SHORTEN);
}

/* Sampler is tracer.Sampler: the stratified, counter-based random numbers
 * of the determinism contract. */
typedef struct {
    u32 seed;
    u32 index;
    u32 dim;
} Sampler;

DEVFN u64 splitmix64(u64 z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* hash32: hash32 (lowbias32). */
DEVFN u32 hash32(u32 x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* reverse_bits: bits.Reverse32. */
DEVFN u32 reverse_bits(u32 x) {
#ifdef PORT_CUDA
    return __builtin_bitreverse32(x);
#else
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
#endif
}

/* laine_karras: laineKarras. */
DEVFN u32 laine_karras(u32 x, u32 seed) {
    x ^= x * 0x3d20adeau;
    x += seed;
    x *= (seed >> 16) | 1u;
    x ^= x * 0x05526c56u;
    x ^= x * 0x53a22864u;
    return x;
}

/* sobol1_reversed: sobol1Reversed, Sobol's second dimension bit-reversed. */
DEVFN u32 sobol1_reversed(u32 i) {
    i ^= (i >> 1) & 0x55555555u;
    i ^= (i >> 2) & 0x33333333u;
    i ^= (i >> 4) & 0x0f0f0f0fu;
    i ^= (i >> 8) & 0x00ff00ffu;
    i ^= (i >> 16) & 0x0000ffffu;
    return i;
}

/* unit_float: unitFloat. */
DEVFN float unit_float(u32 x) { return (float)(x >> 8) * 0x1p-24f; }

DEVFN Sampler new_sampler(u64 seed, u32 x, u32 y, u32 s) {
    u64 k = splitmix64(splitmix64(seed) ^ ((u64)x | ((u64)y << 32)));
    Sampler r;
    r.seed = (u32)k ^ (u32)(k >> 32);
    r.index = reverse_bits(s);
    r.dim = 0u;
    return r;
}

/* sampler_set_dimension: Sampler.SetDimension. */
DEVFN void sampler_set_dimension(Sampler* s, u32 d) { s->dim = d; }

/* sampler_shuffled: Sampler.shuffled, the index in dimension d's order and
 * d's scrambling seed *h. */
DEVFN u32 sampler_shuffled(const Sampler* s, u32 d, u32* h) {
    *h = hash32(s->seed ^ (d * 0x9e3779b9u));
    return reverse_bits(laine_karras(s->index, *h));
}

/* sampler_float: Sampler.Float. */
DEVFN float sampler_float(Sampler* s) {
    u32 h;
    u32 i = sampler_shuffled(s, s->dim, &h);
    s->dim++;
    return unit_float(reverse_bits(laine_karras(i, h * 0x2c1b3c6du + 0x297a2d39u)));
}

/* sampler_float2: Sampler.Float2. */
DEVFN void sampler_float2(Sampler* s, float* a, float* b) {
    u32 h;
    u32 i = sampler_shuffled(s, s->dim, &h);
    s->dim += 2u;
    *a = unit_float(reverse_bits(laine_karras(i, h * 0x2c1b3c6du + 0x297a2d39u)));
    *b = unit_float(reverse_bits(laine_karras(sobol1_reversed(i), h * 0x5f356495u + 0x1b873593u)));
}

#endif /* TRACE_VEC_H */
