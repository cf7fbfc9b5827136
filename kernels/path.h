/*
 * path.h: unidirectional path tracing with next-event estimation and
 * multiple importance sampling; a port of tracer/path.go.
 */
#ifndef TRACE_PATH_H
#define TRACE_PATH_H

#include "absorption.h"
#include "light.h"

/* rouletteDepth: bounces after which Russian roulette may end a path. */
#define TR_ROULETTE_DEPTH 3
/* cameraDims and bounceDims: the sampler's dimensions per use. */
#define TR_CAMERA_DIMS 4u
#define TR_BOUNCE_DIMS 9u
PORT_STATIC_ASSERT(TR_SUN_DIMS == TR_CAMERA_DIMS + (MaxDepth + 1) * TR_BOUNCE_DIMS,
                   "the sun disks' dimensions follow the bounces'");

/* The path integrator is a state machine over a PathState (pathstate.h):
 * path_begin starts a path, path_step runs it to its next query or its
 * end. Its stages (PathState.stage): */
#define TR_PATH_BOUNCE 0u  /* ask the nearest hit along p->r */
#define TR_PATH_HIT 1u     /* take it (Scene.intersectSeen's passes) and shade it */
#define TR_PATH_DIRECT 2u  /* next-event estimation (direct_step) */
#define TR_PATH_SCATTER 3u /* the scattered ray and Russian roulette */
#define TR_PATH_DONE 4u    /* p->radiance is the path's radiance */

/* path_begin: starts Scene.tracePath along r with the sampler rng. */
DEVFN void path_begin(PathState* p, Ray r, const Sampler* rng) {
    p->q.kind = QueryNone;
    p->r = r;
    p->radiance = v3(0.0f, 0.0f, 0.0f);
    p->beta = v3(1.0f, 1.0f, 1.0f);
    p->lastPdf = 0.0f;
    p->lastP = v3(0.0f, 0.0f, 0.0f);
    p->lastN = v3(0.0f, 0.0f, 0.0f);
    p->lastAt = hit(0.0f, HitNone, 0u, 0.0f, 0.0f);
    p->rng = *rng;
    p->depth = 0;
    p->stage = TR_PATH_BOUNCE;
}

/* path_shade: a bounce from its hit p->h, seen along p->r from the
 * segment's start `from`, to next-event estimation; it sets the stage
 * that follows. */
DEVFN void path_shade(const TraceScene* s, PathState* p, vec3 from) {
    const Hit* h = &p->h;
    if (h->Kind == HitNone) {
        vec3 bg = background(s, p->r.Dir);
        if (p->lastPdf > 0.0f && s->Background.Kind == BackgroundImage && s->Background.Distribution != 0) {
            bg = scale(bg, power_heuristic(p->lastPdf, environment_pdf(s, p->r.Dir)));
        }
        p->radiance = maddv(p->radiance, p->beta, bg);
        p->stage = TR_PATH_DONE;
        return;
    }
    p->sf = surface_at(s, &p->r, h);
    const SurfaceHit* sf = &p->sf;
    const Material* m = sf->m;
    if (absorbs(sf)) {
        p->beta = mul(p->beta, absorbed(sf, from)); /* the segment ran inside the glass */
    }
    if (m->Kind == MaterialEmissive) {
        vec3 le = emitted(s, m, &sf->tc);
        if (p->lastPdf > 0.0f) {
            le = scale(le, power_heuristic(p->lastPdf, emitter_pdf(s, p->lastP, p->lastN, &p->lastAt, sf, h)));
        }
        p->radiance = maddv(p->radiance, p->beta, le);
        p->stage = TR_PATH_DONE;
        return;
    }
    if (m->Kind == MaterialUnlit) {
        /* Only a camera ray stops here (alpha_present): its colour. */
        if (p->depth == 0) {
            p->radiance = maddv(p->radiance, p->beta, material_color(s, m, &sf->tc));
        }
        p->stage = TR_PATH_DONE;
        return;
    }
    if (m->Kind == MaterialPBR && !(m->Emission.x == 0.0f && m->Emission.y == 0.0f && m->Emission.z == 0.0f)) {
        /* An emitter that also scatters: weighed as an emissive one. */
        vec3 le = emission(s, m, &sf->tc);
        if (p->lastPdf > 0.0f) {
            le = scale(le, power_heuristic(p->lastPdf, emitter_pdf(s, p->lastP, p->lastN, &p->lastAt, sf, h)));
        }
        p->radiance = maddv(p->radiance, p->beta, le);
    }
    if (p->depth == (int)s->MaxDepth) {
        p->stage = TR_PATH_DONE;
        return;
    }
    u32 base = TR_CAMERA_DIMS + (u32)p->depth * TR_BOUNCE_DIMS;
    sampler_set_dimension(&p->rng, base);
    p->lastPdf = 0.0f;
    p->stage = TR_PATH_SCATTER;
    if (m->Kind == MaterialDiffuse || m->Kind == MaterialPhong || m->Kind == MaterialMetal || m->Kind == MaterialPBR) {
        p->c = material_color(s, m, &sf->tc);
        if (is_glossy(m, sf->metal, sf->rough, sf->clear, sf->clearRough)) {
            direct_begin(p);
            p->stage = TR_PATH_DIRECT;
        } else {
            sampler_set_dimension(&p->rng, base + 5u);
        }
    } else if (m->Kind == MaterialDielectric) {
        /* Rough glass is light-sampled; smooth glass's lobes are deltas. */
        p->c = material_color(s, m, &sf->tc);
        if (!(ggx_alpha(clamp01(m->Roughness)) < TR_GGX_MIN_ALPHA)) {
            direct_begin(p);
            p->stage = TR_PATH_DIRECT;
        } else {
            sampler_set_dimension(&p->rng, base + 5u);
        }
    }
}

/* path_scatter: the rest of a bounce: the scattered direction, the next
 * ray and Russian roulette; the stage that follows is TR_PATH_BOUNCE, one
 * bounce deeper, or TR_PATH_DONE. */
DEVFN void path_scatter(const TraceScene* s, PathState* p) {
    const SurfaceHit* sf = &p->sf;
    const Material* m = sf->m;
    Sampler* rng = &p->rng;
    u32 base = TR_CAMERA_DIMS + (u32)p->depth * TR_BOUNCE_DIMS;
    vec3 ns = sf->ns;
    vec3 dir = v3(0.0f, 0.0f, 0.0f);
    p->stage = TR_PATH_DONE;
    if (m->Kind == MaterialDiffuse || m->Kind == MaterialPhong || m->Kind == MaterialMetal || m->Kind == MaterialPBR) {
        float lobe = sampler_float(rng);
        float u1, u2;
        sampler_float2(rng, &u1, &u2);
        vec3 w;
        float pdf;
        if (!sample_scatter(s, sf, p->r.Dir, p->c, lobe, u1, u2, &dir, &w, &pdf)) {
            return;
        }
        p->beta = mul(p->beta, w);
        p->lastPdf = pdf;
        p->lastP = sf->p;
        p->lastN = sf->ng;
        p->lastAt = p->h;
    } else if (m->Kind == MaterialDielectric) {
        float alpha = ggx_alpha(clamp01(m->Roughness));
        int rough = !(alpha < TR_GGX_MIN_ALPHA);
        float lobe = sampler_float(rng);
        float u1, u2;
        sampler_float2(rng, &u1, &u2);
        float w, pdf;
        int refracted;
        if (!sample_dielectric(ns, p->r.Dir, dielectric_eta(sf), alpha, lobe, u1, u2, &dir, &w, &refracted, &pdf)) {
            return;
        }
        /* On a normal-mapped surface, a rough reflection below the
         * geometric surface or refraction above it is absorbed. */
        if (rough && sf->mapped && refracted == (dot(dir, sf->ng) > 0.0f)) {
            return;
        }
        p->beta = scale(p->beta, w);
        if (refracted) {
            p->beta = mul(p->beta, p->c);
        }
        if (rough) {
            p->lastPdf = pdf;
            p->lastP = sf->p;
            p->lastN = sf->ng;
            p->lastAt = p->h;
        }
    }
    if ((!(dot(dir, ns) > 0.0f) || (sf->mapped && !(dot(dir, sf->ng) > 0.0f))) && m->Kind != MaterialDielectric) {
        return;
    }
    p->r = spawn(sf->p, sf->ng, sf->eps, dir);
    if (p->depth + 1 >= TR_ROULETTE_DEPTH) {
        sampler_set_dimension(rng, base + 8u);
        float survive = go_minf(1.0f, fm_sqrt(max_component(p->beta)));
        if (!(sampler_float(rng) < survive)) {
            return;
        }
        p->beta = scale(p->beta, 1.0f / survive);
    }
    p->depth++;
    p->stage = TR_PATH_BOUNCE;
}

/* path_step: Scene.tracePath, resumed: it runs the path until it needs a
 * ray-scene query, which it asks in p->q (returning 1: call again with
 * the answer in p->q), or to its end (returning 0: the radiance is
 * p->radiance). It adds the path's ray-scene queries to *rays, as
 * tracePath counts them. */
DEVFN int path_step(const TraceScene* s, PathState* p, u64* rays) {
    for (;;) {
        switch (p->stage) {
        case TR_PATH_BOUNCE:
            intersect_begin(&p->seen, p->r, alpha_stream(p->depth, TR_ALPHA_RAY_PATH), &p->q);
            p->stage = TR_PATH_HIT;
            return 1;
        case TR_PATH_HIT: {
            if (intersect_resume(s, &p->seen, &p->rng, &p->q, rays, &p->h)) {
                return 1;
            }
            vec3 from = p->r.Origin; /* the segment's start, before the alpha passes */
            p->r = p->seen.r;
            (*rays)++;
            path_shade(s, p, from);
            break;
        }
        case TR_PATH_DIRECT:
            if (direct_step(s, p, rays)) {
                return 1;
            }
            p->radiance = maddv(p->radiance, p->beta, p->sum);
            p->stage = TR_PATH_SCATTER;
            break;
        case TR_PATH_SCATTER:
            path_scatter(s, p);
            break;
        default: /* TR_PATH_DONE */
            p->q.kind = QueryNone;
            return 0;
        }
    }
}

#endif /* TRACE_PATH_H */
