/*
 * whitted.h: classic recursive ray tracing over an explicit stack; a port
 * of tracer/whitted.go.
 *
 * Like the path integrator (path.h), it runs as a state machine, over a
 * WhittedState (pathstate.h): whitted_begin starts a camera ray,
 * whitted_step runs it until it needs a ray-scene query (a branch's
 * nearest hit and its alpha passes, or a light's shadow ray in
 * phong_local's loop and its passes), stores the query in the state's
 * RayQuery and returns; called again with the answer, it resumes. The
 * megakernel's render_pixels_whitted (trace.cu) drives it and answers each
 * query at once;
 * the wavefront answers them in wf_intersect and wf_occluded.
 */
#ifndef TRACE_WHITTED_H
#define TRACE_WHITTED_H

#include "absorption.h"
#include "light.h"

/* whitted_branch: a whittedBranch. */
DEVFN WhittedBranch whitted_branch(Ray r, vec3 weight, i32 depth) {
    WhittedBranch b;
    b.ray = r;
    b.weight = weight;
    b.depth = depth;
    return b;
}

/* The stages of the Whitted state machine (WhittedState.stage): */
#define TR_WHITTED_POP 0u    /* take the next branch off the stack */
#define TR_WHITTED_TRACE 1u  /* ask the nearest hit along the branch's ray */
#define TR_WHITTED_HIT 2u    /* take it (Scene.intersectSeen's passes) and shade it */
#define TR_WHITTED_LOCAL 3u  /* phong_local's light loop: the next light's shadow ray */
#define TR_WHITTED_SHADOW 4u /* its answer (Scene.occludedSeen's passes) */
#define TR_WHITTED_DONE 5u   /* w->radiance is the camera ray's radiance */

/* whitted_begin: starts Scene.traceWhitted along r; rng is the sample's
 * sampler, read only by the alpha tests. */
DEVFN void whitted_begin(WhittedState* w, Ray r, const Sampler* rng) {
    w->q.kind = QueryNone;
    w->radiance = v3(0.0f, 0.0f, 0.0f);
    w->rng = *rng;
    w->stack[0] = whitted_branch(r, v3(1.0f, 1.0f, 1.0f), 0);
    w->sp = 1;
    w->stage = TR_WHITTED_POP;
}

/* phong_begin: starts Scene.phongLocal at the hit w->sf, seen along the
 * branch's ray: its colour and ambient term, its light loop at light 0. */
DEVFN void phong_begin(const TraceScene* s, WhittedState* w) {
    const SurfaceHit* sf = &w->sf;
    const Material* m = sf->m;
    float ambient = 0.0f;
    if (m->Kind == MaterialPhong) {
        ambient = m->Ambient;
    }
    vec3 c = material_color(s, m, &sf->tc);
    if (m->Kind == MaterialPBR) {
        c = scale(c, 1.0f - clamp01(sf->metal));
    }
    w->c = c;
    w->local = v3(ambient, ambient, ambient);
    w->light = 0u;
}

/* phong_next: phong_local's loop from light w->light on: it asks the
 * shadow ray of the next light that faces the hit (returning 1), or ends
 * the loop (returning 0: w->local is phongLocal's result). */
DEVFN int phong_next(const TraceScene* s, WhittedState* w, u64* rays) {
    const SurfaceHit* sf = &w->sf;
    vec3 p = sf->p, n = sf->ng, ns = sf->ns;
    for (; w->light < s->NumLights; w->light++) {
        const PointLight* l = &s->Lights[w->light];
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
        w->dir = dir;
        w->dist = dist;
        w->spot = spot;
        w->ndotl = ndotl;
        occluded_begin(&w->seen, r, alpha_stream((int)w->b.depth, TR_ALPHA_RAY_LIGHT), 0, &w->q);
        return 1;
    }
    return 0;
}

/* phong_light: adds light w->light's terms to w->local, its shadow ray
 * not blocked: diffuse·max(N·L,0)·colour·light + specular·max(N·H,0)^
 * shininess·light, with V back along the branch's ray. */
DEVFN void phong_light(const TraceScene* s, WhittedState* w) {
    const SurfaceHit* sf = &w->sf;
    const Material* m = sf->m;
    float kd = 1.0f, ks = 0.0f;
    if (m->Kind == MaterialPhong) {
        kd = m->Diffuse;
        ks = m->Specular;
    }
    vec3 view = vneg(w->b.ray.Dir);
    vec3 li = point_light_radiance(&s->Lights[w->light], w->dist, w->spot);
    float kdl = kd * w->ndotl;
    w->local = maddv(w->local, mul(w->c, li), v3(kdl, kdl, kdl));
    if (ks > 0.0f) {
        vec3 hv = normalize(vadd(w->dir, view));
        float ndoth = dot(sf->ns, hv);
        if (ndoth > 0.0f) {
            float spec = ks * fm_pow(ndoth, m->Shininess);
            w->local = madd(w->local, li, spec);
        }
    }
}

/* whitted_continue: the branch goes on along next from the hit w->sf,
 * one hit deeper, unless there is no reflection or (normal-mapped) it
 * points below the surface; the stage that follows. */
DEVFN void whitted_continue(WhittedState* w, vec3 next) {
    const SurfaceHit* sf = &w->sf;
    if (vzero(next) || (sf->mapped && sf->m->Kind != MaterialDielectric && !(dot(next, sf->ng) > 0.0f))) {
        w->stage = TR_WHITTED_POP;
        return;
    }
    w->b.ray = spawn(sf->p, sf->ng, sf->eps, next);
    w->b.depth++;
    w->stage = TR_WHITTED_TRACE;
}

/* whitted_local_done: the rest of a phong, diffuse or PBR hit once
 * phong_local's loop has ended: the local shading added, the reflection. */
DEVFN void whitted_local_done(const TraceScene* s, WhittedState* w) {
    const SurfaceHit* sf = &w->sf;
    const Material* m = sf->m;
    const TexCoords* tc = &sf->tc;
    vec3 d = w->b.ray.Dir;
    vec3 next = v3(0.0f, 0.0f, 0.0f);
    if (m->Kind == MaterialPBR) {
        w->radiance = maddv(w->radiance, w->b.weight, vadd(w->local, emission(s, m, tc)));
        vec3 f0;
        float f90;
        dielectric_specular(s, m, tc, &f0, &f90);
        vec3 rf0;
        float rf90;
        pbr_reflectance(m, material_color(s, m, tc), sf->metal, f0, f90, &rf0, &rf90);
        w->b.weight = mul(w->b.weight, rf0);
        next = reflect(d, sf->ns);
    } else {
        w->radiance = maddv(w->radiance, w->b.weight, w->local);
        float kr = 0.0f;
        if (m->Kind == MaterialPhong) {
            kr = m->Reflection;
        }
        if (kr > 0.0f) {
            w->b.weight = scale(w->b.weight, kr);
            next = reflect(d, sf->ns);
        }
    }
    whitted_continue(w, next);
}

/* whitted_shade: a branch's hit h, seen along its ray from the segment's
 * start `from`: the background, an emitter, the depth limit, or the
 * material's shading; it sets the stage that follows. */
DEVFN void whitted_shade(const TraceScene* s, WhittedState* w, const Hit* h, vec3 from) {
    WhittedBranch* b = &w->b;
    if (h->Kind == HitNone) {
        w->radiance = maddv(w->radiance, b->weight, background(s, b->ray.Dir));
        w->stage = TR_WHITTED_POP;
        return;
    }
    w->sf = surface_at(s, &b->ray, h);
    const SurfaceHit* sf = &w->sf;
    const Material* m = sf->m;
    vec3 p = sf->p, n = sf->ng, ns = sf->ns;
    const TexCoords* tc = &sf->tc;
    if (absorbs(sf)) {
        b->weight = mul(b->weight, absorbed(sf, from)); /* the segment ran inside the glass */
    }
    w->stage = TR_WHITTED_POP;
    if (m->Kind == MaterialEmissive) {
        w->radiance = maddv(w->radiance, b->weight, emitted(s, m, tc));
        return;
    }
    if (m->Kind == MaterialUnlit) { /* as in path_shade */
        if (b->depth == 0) {
            w->radiance = maddv(w->radiance, b->weight, material_color(s, m, tc));
        }
        return;
    }
    if ((int)b->depth == (int)s->MaxDepth) {
        return;
    }
    if (m->Kind == MaterialDiffuse || m->Kind == MaterialPhong || m->Kind == MaterialPBR) {
        phong_begin(s, w);
        w->stage = TR_WHITTED_LOCAL;
        return;
    }
    vec3 d = b->ray.Dir;
    vec3 next = v3(0.0f, 0.0f, 0.0f);
    if (m->Kind == MaterialMetal) {
        b->weight = mul(b->weight, material_color(s, m, tc));
        next = reflect(d, ns);
    } else if (m->Kind == MaterialDielectric) {
        float eta = 1.0f / m->IOR;
        if (!sf->front) {
            eta = m->IOR;
        }
        float fr;
        vec3 refr;
        if (refraction(d, ns, eta, &fr, &refr)) {
            vec3 t = scale(mul(b->weight, material_color(s, m, tc)), 1.0f - fr);
            w->stack[w->sp] = whitted_branch(spawn(p, n, sf->eps, refr), t, b->depth + 1);
            w->sp++;
            b->weight = scale(b->weight, fr);
        }
        next = reflect(d, ns);
    }
    whitted_continue(w, next);
}

/* whitted_step: Scene.traceWhitted, resumed: it runs the camera ray's
 * branches until one needs a ray-scene query, which it asks in w->q
 * (returning 1: call again with the answer in w->q), or to the end
 * (returning 0: the radiance is w->radiance). It adds the queries to
 * *rays as traceWhitted counts them. Each hit pushes at most one branch,
 * so MaxDepth+1 stack entries suffice. */
DEVFN int whitted_step(const TraceScene* s, WhittedState* w, u64* rays) {
    for (;;) {
        switch (w->stage) {
        case TR_WHITTED_POP:
            if (w->sp <= 0) {
                w->stage = TR_WHITTED_DONE;
                break;
            }
            w->sp--;
            w->b = w->stack[w->sp];
            w->stage = TR_WHITTED_TRACE;
            break;
        case TR_WHITTED_TRACE:
            intersect_begin(&w->seen, w->b.ray, alpha_stream((int)w->b.depth, TR_ALPHA_RAY_PATH), &w->q);
            w->stage = TR_WHITTED_HIT;
            return 1;
        case TR_WHITTED_HIT: {
            Hit h;
            if (intersect_resume(s, &w->seen, &w->rng, &w->q, rays, &h)) {
                return 1;
            }
            vec3 from = w->b.ray.Origin; /* the segment's start, before the alpha passes */
            w->b.ray = w->seen.r;
            (*rays)++;
            whitted_shade(s, w, &h, from);
            break;
        }
        case TR_WHITTED_LOCAL:
            if (phong_next(s, w, rays)) {
                w->stage = TR_WHITTED_SHADOW;
                return 1;
            }
            whitted_local_done(s, w);
            break;
        case TR_WHITTED_SHADOW: {
            int occluded;
            if (occluded_resume(s, &w->seen, &w->rng, &w->q, rays, &occluded)) {
                return 1;
            }
            if (!occluded) {
                phong_light(s, w);
            }
            w->light++;
            w->stage = TR_WHITTED_LOCAL;
            break;
        }
        default: /* TR_WHITTED_DONE */
            w->q.kind = QueryNone;
            return 0;
        }
    }
}

#endif /* TRACE_WHITTED_H */
