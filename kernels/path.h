/*
 * path.h: unidirectional path tracing with next-event estimation and
 * multiple importance sampling; a port of tracer/path.go.
 */
#ifndef TRACE_PATH_H
#define TRACE_PATH_H

#include "light.h"

/* rouletteDepth: bounces after which Russian roulette may end a path. */
#define TR_ROULETTE_DEPTH 3
/* cameraDims and bounceDims: the sampler's dimensions per use. */
#define TR_CAMERA_DIMS 4u
#define TR_BOUNCE_DIMS 9u
PORT_STATIC_ASSERT(TR_SUN_DIMS == TR_CAMERA_DIMS + (MaxDepth + 1) * TR_BOUNCE_DIMS,
                   "the sun disks' dimensions follow the bounces'");

/* trace_path: Scene.tracePath, the radiance along r. */
DEVFN vec3 trace_path(const TraceScene* s, Ray r, Sampler* rng, u64* rays) {
    vec3 radiance = v3(0.0f, 0.0f, 0.0f);
    vec3 beta = v3(1.0f, 1.0f, 1.0f);
    float lastPdf = 0.0f;
    vec3 lastP = v3(0.0f, 0.0f, 0.0f);
    Hit lastAt = hit(0.0f, HitNone, 0u, 0.0f, 0.0f);
    for (int depth = 0;; depth++) {
        Hit h = intersect_seen(s, &r, rng, alpha_stream(depth, TR_ALPHA_RAY_PATH), rays);
        (*rays)++;
        if (h.Kind == HitNone) {
            vec3 bg = background(s, r.Dir);
            if (lastPdf > 0.0f && s->Background.Kind == BackgroundImage && s->Background.Distribution != 0) {
                bg = scale(bg, power_heuristic(lastPdf, environment_pdf(s, r.Dir)));
            }
            radiance = maddv(radiance, beta, bg);
            break;
        }
        SurfaceHit sf = surface_at(s, &r, &h);
        const Material* m = sf.m;
        if (m->Kind == MaterialEmissive) {
            vec3 le = emitted(s, m, &sf.tc);
            if (lastPdf > 0.0f) {
                le = scale(le, power_heuristic(lastPdf, emitter_pdf(s, lastP, &lastAt, &sf, &h)));
            }
            radiance = maddv(radiance, beta, le);
            break;
        }
        if (m->Kind == MaterialPBR && !(m->Emission.x == 0.0f && m->Emission.y == 0.0f && m->Emission.z == 0.0f)) {
            /* An emitter that also scatters: weighed as an emissive one. */
            vec3 le = emission(s, m, &sf.tc);
            if (lastPdf > 0.0f) {
                le = scale(le, power_heuristic(lastPdf, emitter_pdf(s, lastP, &lastAt, &sf, &h)));
            }
            radiance = maddv(radiance, beta, le);
        }
        if (depth == (int)s->MaxDepth) {
            break;
        }
        u32 base = TR_CAMERA_DIMS + (u32)depth * TR_BOUNCE_DIMS;
        sampler_set_dimension(rng, base);
        vec3 ns = sf.ns;
        vec3 dir = v3(0.0f, 0.0f, 0.0f);
        lastPdf = 0.0f;
        if (m->Kind == MaterialDiffuse || m->Kind == MaterialPhong || m->Kind == MaterialMetal || m->Kind == MaterialPBR) {
            vec3 c = material_color(s, m, &sf.tc);
            if (is_glossy(m, sf.metal, sf.rough)) {
                radiance = maddv(radiance, beta, direct_light(s, &sf, &h, r.Dir, c, rng, depth, rays));
            } else {
                sampler_set_dimension(rng, base + 5u);
            }
            float lobe = sampler_float(rng);
            float u1, u2;
            sampler_float2(rng, &u1, &u2);
            vec3 w;
            float pdf;
            if (!sample_scatter(&sf, r.Dir, c, lobe, u1, u2, &dir, &w, &pdf)) {
                return radiance;
            }
            beta = mul(beta, w);
            lastPdf = pdf;
            lastP = sf.p;
            lastAt = h;
        } else if (m->Kind == MaterialDielectric) {
            float eta = 1.0f / m->IOR;
            if (!sf.front) {
                eta = m->IOR;
            }
            sampler_set_dimension(rng, base + 5u);
            float lobe = sampler_float(rng);
            float u1, u2;
            sampler_float2(rng, &u1, &u2);
            float w;
            int refracted;
            if (!sample_dielectric(ns, r.Dir, eta, ggx_alpha(clamp01(m->Roughness)), lobe, u1, u2, &dir, &w,
                                   &refracted)) {
                return radiance;
            }
            beta = scale(beta, w);
            if (refracted) {
                beta = mul(beta, material_color(s, m, &sf.tc));
            }
        }
        if ((!(dot(dir, ns) > 0.0f) || (sf.mapped && !(dot(dir, sf.ng) > 0.0f))) && m->Kind != MaterialDielectric) {
            break;
        }
        r = spawn(sf.p, sf.ng, sf.eps, dir);
        if (depth + 1 >= TR_ROULETTE_DEPTH) {
            sampler_set_dimension(rng, base + 8u);
            float survive = go_minf(1.0f, fm_sqrt(max_component(beta)));
            if (!(sampler_float(rng) < survive)) {
                break;
            }
            beta = scale(beta, 1.0f / survive);
        }
    }
    return radiance;
}

#endif /* TRACE_PATH_H */
