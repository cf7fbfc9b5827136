/*
 * path.h: unidirectional path tracing with next-event estimation; a port
 * of tracer/path.go.
 */
#ifndef TRACE_PATH_H
#define TRACE_PATH_H

#include "light.h"

/* rouletteDepth: bounces after which Russian roulette may end a path. */
#define TR_ROULETTE_DEPTH 3

/* trace_path: Scene.tracePath, the radiance along r. */
DEVFN vec3 trace_path(const TraceScene* s, Ray r, Sampler* rng, u64* rays) {
    vec3 radiance = v3(0.0f, 0.0f, 0.0f);
    vec3 beta = v3(1.0f, 1.0f, 1.0f);
    int countEmitted = 1;
    for (int depth = 0;; depth++) {
        Hit h = scene_intersect(s, r);
        (*rays)++;
        if (h.Kind == HitNone) {
            radiance = maddv(radiance, beta, background(s, r.Dir));
            break;
        }
        SurfaceHit sf = surface_at(s, &r, &h);
        const Material* m = sf.m;
        if (m->Kind == MaterialEmissive) {
            if (countEmitted) {
                radiance = maddv(radiance, beta, emitted(s, m, sf.u, sf.v));
            }
            break;
        }
        if (depth == (int)s->MaxDepth) {
            break;
        }
        vec3 ns = sf.ns;
        vec3 dir = v3(0.0f, 0.0f, 0.0f);
        if (m->Kind == MaterialDiffuse) {
            beta = mul(beta, material_color(s, m, sf.u, sf.v));
            radiance = maddv(radiance, beta, scale(direct_light(s, &sf, rng, rays), TR_INV_PI));
            float u1 = sampler_float(rng);
            float u2 = sampler_float(rng);
            dir = cosine_hemisphere(ns, u1, u2);
            countEmitted = 0;
        } else if (m->Kind == MaterialMetal) {
            beta = mul(beta, material_color(s, m, sf.u, sf.v));
            dir = reflect(r.Dir, ns);
            float u1 = sampler_float(rng);
            float u2 = sampler_float(rng);
            vec3 fuzz = uniform_sphere(u1, u2);
            if (m->Roughness > 0.0f) {
                dir = normalize(madd(dir, fuzz, m->Roughness));
            }
            countEmitted = 1;
        } else if (m->Kind == MaterialDielectric) {
            float eta = 1.0f / m->IOR;
            if (!sf.front) {
                eta = m->IOR;
            }
            float fr;
            vec3 refr;
            int ok = refraction(r.Dir, ns, eta, &fr, &refr);
            if (!ok || sampler_float(rng) < fr) {
                dir = reflect(r.Dir, ns);
            } else {
                dir = refr;
                beta = mul(beta, material_color(s, m, sf.u, sf.v));
            }
            countEmitted = 1;
        } else if (m->Kind == MaterialPhong) {
            float lobe = sampler_float(rng);
            float u1 = sampler_float(rng);
            float u2 = sampler_float(rng);
            float kd, ks;
            phong_weights(m, &kd, &ks);
            float kr = clamp01(m->Reflection);
            if (lobe < kr) {
                dir = reflect(r.Dir, ns);
                countEmitted = 1;
            } else if (kd + ks == 0.0f) {
                return radiance;
            } else if (((lobe - kr) * (kd + ks)) < ((1.0f - kr) * kd)) {
                float w = go_minf(kd + ks, 1.0f);
                beta = mul(beta, scale(material_color(s, m, sf.u, sf.v), w));
                radiance = maddv(radiance, beta, scale(direct_light(s, &sf, rng, rays), TR_INV_PI));
                dir = cosine_hemisphere(ns, u1, u2);
                countEmitted = 0;
            } else {
                beta = scale(beta, go_minf(kd + ks, 1.0f));
                dir = phong_lobe(reflect(r.Dir, ns), m->Shininess, u1, u2);
                countEmitted = 1;
            }
        }
        if (!(dot(dir, ns) > 0.0f) && m->Kind != MaterialDielectric) {
            break;
        }
        r = spawn(sf.p, sf.ng, dir);
        if (depth + 1 >= TR_ROULETTE_DEPTH) {
            float q = go_maxf(0.05f, 1.0f - max_component(beta));
            if (sampler_float(rng) < q) {
                break;
            }
            beta = scale(beta, 1.0f / (1.0f - q));
        }
    }
    return radiance;
}

#endif /* TRACE_PATH_H */
