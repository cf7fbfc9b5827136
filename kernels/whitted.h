/*
 * whitted.h: classic recursive ray tracing over an explicit stack; a port
 * of tracer/whitted.go.
 */
#ifndef TRACE_WHITTED_H
#define TRACE_WHITTED_H

#include "light.h"

/* WhittedBranch is tracer's whittedBranch: a ray waiting to be traced with
 * the weight its radiance adds with. */
typedef struct {
    Ray ray;
    vec3 weight;
    i32 depth;
} WhittedBranch;

DEVFN WhittedBranch whitted_branch(Ray r, vec3 weight, i32 depth) {
    WhittedBranch b;
    b.ray = r;
    b.weight = weight;
    b.depth = depth;
    return b;
}

/* phong_local: Scene.phongLocal, ambient + Σ over the point lights not in
 * shadow of diffuse·max(N·L,0)·colour·light + specular·max(N·H,0)^
 * shininess·light. */
DEVFN vec3 phong_local(const TraceScene* s, const SurfaceHit* sf, vec3 d, const Sampler* smp, int depth, u64* rays) {
    const Material* m = sf->m;
    vec3 p = sf->p, n = sf->ng, ns = sf->ns;
    float ambient = 0.0f, kd = 1.0f, ks = 0.0f;
    if (m->Kind == MaterialPhong) {
        ambient = m->Ambient;
        kd = m->Diffuse;
        ks = m->Specular;
    }
    vec3 c = material_color(s, m, &sf->tc);
    if (m->Kind == MaterialPBR) {
        c = scale(c, 1.0f - clamp01(sf->metal));
    }
    vec3 out = v3(ambient, ambient, ambient);
    vec3 view = vneg(d);
    for (u32 i = 0; i < s->NumLights; i++) {
        const PointLight* l = &s->Lights[i];
        vec3 dir;
        float dist;
        Ray r = light_ray(l, p, n, sf->eps, &dir, &dist);
        float ndotl = dot(ns, dir);
        if (!(ndotl > 0.0f) || (sf->mapped && !(dot(n, dir) > 0.0f))) {
            continue;
        }
        float spot = spot_factor(l, dir);
        if (!(spot > 0.0f)) {
            continue; /* outside a spot light's cone */
        }
        (*rays)++;
        if (occluded_seen(s, r, smp, alpha_stream(depth, TR_ALPHA_RAY_LIGHT), 0, rays)) {
            continue;
        }
        vec3 li = point_light_radiance(l, dist, spot);
        float kdl = kd * ndotl;
        out = maddv(out, mul(c, li), v3(kdl, kdl, kdl));
        if (ks > 0.0f) {
            vec3 hv = normalize(vadd(dir, view));
            float ndoth = dot(ns, hv);
            if (ndoth > 0.0f) {
                float spec = ks * fm_pow(ndoth, m->Shininess);
                out = madd(out, li, spec);
            }
        }
    }
    return out;
}

/* trace_whitted: Scene.traceWhitted, the radiance along r. Each hit pushes
 * at most one branch, so MaxDepth+1 slots suffice. */
DEVFN vec3 trace_whitted(const TraceScene* s, Ray r, const Sampler* smp, u64* rays) {
    vec3 radiance = v3(0.0f, 0.0f, 0.0f);
    WhittedBranch stack[MaxDepth + 1];
    stack[0] = whitted_branch(r, v3(1.0f, 1.0f, 1.0f), 0);
    int sp = 1;
    while (sp > 0) {
        sp--;
        WhittedBranch b = stack[sp];
        for (;;) {
            Hit h = intersect_seen(s, &b.ray, smp, alpha_stream((int)b.depth, TR_ALPHA_RAY_PATH), rays);
            (*rays)++;
            if (h.Kind == HitNone) {
                radiance = maddv(radiance, b.weight, background(s, b.ray.Dir));
                break;
            }
            SurfaceHit sf = surface_at(s, &b.ray, &h);
            const Material* m = sf.m;
            vec3 p = sf.p, n = sf.ng, ns = sf.ns;
            const TexCoords* tc = &sf.tc;
            if (m->Kind == MaterialEmissive) {
                radiance = maddv(radiance, b.weight, emitted(s, m, tc));
                break;
            }
            if ((int)b.depth == (int)s->MaxDepth) {
                break;
            }
            vec3 d = b.ray.Dir;
            vec3 next = v3(0.0f, 0.0f, 0.0f);
            if (m->Kind == MaterialDiffuse || m->Kind == MaterialPhong) {
                radiance = maddv(radiance, b.weight, phong_local(s, &sf, d, smp, (int)b.depth, rays));
                float kr = 0.0f;
                if (m->Kind == MaterialPhong) {
                    kr = m->Reflection;
                }
                if (kr > 0.0f) {
                    b.weight = scale(b.weight, kr);
                    next = reflect(d, ns);
                }
            } else if (m->Kind == MaterialMetal) {
                b.weight = mul(b.weight, material_color(s, m, tc));
                next = reflect(d, ns);
            } else if (m->Kind == MaterialPBR) {
                radiance = maddv(radiance, b.weight, vadd(phong_local(s, &sf, d, smp, (int)b.depth, rays), emission(s, m, tc)));
                PBRLobes l = new_pbr_lobes(m, material_color(s, m, tc), sf.metal, sf.rough, 1.0f);
                b.weight = mul(b.weight, l.f0);
                next = reflect(d, ns);
            } else if (m->Kind == MaterialDielectric) {
                float eta = 1.0f / m->IOR;
                if (!sf.front) {
                    eta = m->IOR;
                }
                float fr;
                vec3 refr;
                if (refraction(d, ns, eta, &fr, &refr)) {
                    vec3 t = scale(mul(b.weight, material_color(s, m, tc)), 1.0f - fr);
                    stack[sp] = whitted_branch(spawn(p, n, sf.eps, refr), t, b.depth + 1);
                    sp++;
                    b.weight = scale(b.weight, fr);
                }
                next = reflect(d, ns);
            }
            if (vzero(next) || (sf.mapped && m->Kind != MaterialDielectric && !(dot(next, n) > 0.0f))) {
                break; /* no reflection, or (normal-mapped) one below the surface */
            }
            b.ray = spawn(p, n, sf.eps, next);
            b.depth++;
        }
    }
    return radiance;
}

#endif /* TRACE_WHITTED_H */
