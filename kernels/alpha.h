/*
 * alpha.h: cut-outs, stochastic transparency and single-sided surfaces; a
 * port of tracer/alpha.go. Rays and shadow rays pass through the surfaces
 * that are not there at their hit, at most MaxAlphaPasses per ray; the
 * BVH traversal (intersect.h) is unchanged.
 */
#ifndef TRACE_ALPHA_H
#define TRACE_ALPHA_H

#include "surface.h"
#include "pathstate.h"

/* The alpha streams' roles (tracer's alphaRay*). */
#define TR_ALPHA_RAY_PATH 0u
#define TR_ALPHA_RAY_LIGHT 1u
#define TR_ALPHA_RAY_EMITTER 2u
#define TR_ALPHA_RAY_ENV 3u
#define TR_ALPHA_ROLES 4u

/* alpha_stream: alphaStream. */
DEVFN u32 alpha_stream(int depth, u32 role) { return (u32)depth * TR_ALPHA_ROLES + role; }

/* sampler_alpha_float: Sampler.alphaFloat. */
DEVFN float sampler_alpha_float(const Sampler* smp, u32 stream, u32 pass) {
    return unit_float(hash32(smp->seed ^ hash32(smp->index ^ hash32(stream * 0x9e3779b9u + pass * 0x85ebca6bu + 0x632be5abu))));
}

/* see_through: seeThrough (an unlit material lets through all but camera rays). */
DEVFN int see_through(const Material* m) {
    return m->AlphaMode != AlphaOpaque || m->SingleSided != 0u || m->Kind == MaterialUnlit;
}

/* hit_material: Scene.hitMaterial. */
DEVFN const Material* hit_material(const TraceScene* s, const Hit* h) {
    if (h->Kind == HitTriangle) {
        return &s->Materials[s->TriangleAttrs[h->Index].Material];
    }
    return &s->Materials[s->Shapes[h->Index].Material];
}

/* alpha_at: Scene.alphaAt. */
DEVFN float alpha_at(const TraceScene* s, const Material* m, const TexCoords* tc) {
    float a = m->Alpha;
    if (m->Texture != NoTexture) {
        a = a * texture_alpha(s, m->Texture, tc);
    }
    if (m->AlphaMap != 0u) {
        a = a * texture_alpha(s, (i32)(m->AlphaMap - 1u), tc);
    }
    return a;
}

/* alpha_present: Scene.present. */
DEVFN int alpha_present(const TraceScene* s, const Material* m, const TexCoords* tc, const Sampler* smp, u32 stream,
                        u32 pass) {
    if (m->Kind == MaterialUnlit && stream != 0u) {
        return 0; /* there for the camera ray alone */
    }
    if (m->AlphaMode == AlphaMask) {
        return alpha_at(s, m, tc) >= m->AlphaCutoff;
    }
    if (m->AlphaMode == AlphaBlend) {
        return sampler_alpha_float(smp, stream, pass) < alpha_at(s, m, tc);
    }
    return 1;
}

/* pass_through: Scene.passThrough; *sf is set when it returns 1. */
DEVFN int pass_through(const TraceScene* s, const Ray* r, const Hit* h, const Sampler* smp, u32 stream, u32 pass,
                       int fromLight, SurfaceHit* sf) {
    if (!see_through(hit_material(s, h))) {
        return 0;
    }
    *sf = surface_at(s, r, h);
    int back = (sf->front != 0) == (fromLight != 0);
    if (sf->m->SingleSided != 0u && back) {
        return 1;
    }
    return !alpha_present(s, sf->m, &sf->tc, smp, stream, pass);
}

/* The loops of Scene.intersectSeen and Scene.occludedSeen (tracer/alpha.go)
 * run as small state machines over a SeenState (pathstate.h), so that the
 * integrators can stop at each of their queries (path.h, whitted.h):
 * *_begin starts one and asks its first query in q; *_resume takes q's
 * answer and either asks the next query (it returns 1) or ends with the
 * loop's result (it returns 0). The megakernel answers each query in its
 * own loop (query_answer_kind), the wavefront in its query kernels. */
#define TR_SEEN_INTERSECT 0u
#define TR_SEEN_OCCLUDED_FIRST 1u
#define TR_SEEN_OCCLUDED_PASS 2u

/* query_ask: asks q the query of the kind given along r. */
DEVFN void query_ask(RayQuery* q, u32 kind, Ray r) {
    q->kind = kind;
    q->ray = r;
}

/* query_answer_kind: answers q's query, of the kind given (QueryClosest
 * or QueryAny), here and now. */
DEVFN void query_answer_kind(const TraceScene* s, RayQuery* q, u32 kind) {
    if (kind == QueryClosest) {
        q->hit = scene_intersect(s, q->ray);
    } else {
        q->occluded = (u32)scene_occluded(s, q->ray);
    }
}

/* query_other: the megakernels' phase after phase (QueryClosest, QueryAny,
 * QueryClosest, ...). */
DEVFN u32 query_other(u32 phase) { return phase == QueryClosest ? QueryAny : QueryClosest; }

/* intersect_begin: starts Scene.intersectSeen along r. */
DEVFN void intersect_begin(SeenState* st, Ray r, u32 stream, RayQuery* q) {
    st->r = r;
    st->stream = stream;
    st->pass = 0u;
    st->fromLight = 0u;
    st->phase = TR_SEEN_INTERSECT;
    query_ask(q, QueryClosest, r);
}

/* intersect_resume: Scene.intersectSeen's loop, one query at a time; at the
 * end *h is its hit and st->r its ray. */
DEVFN int intersect_resume(const TraceScene* s, SeenState* st, const Sampler* smp, RayQuery* q, u64* rays, Hit* h) {
    *h = q->hit;
    if (!s->SeeThrough || h->Kind == HitNone || st->pass >= MaxAlphaPasses) {
        return 0;
    }
    SurfaceHit sf;
    if (!pass_through(s, &st->r, h, smp, st->stream, st->pass, 0, &sf)) {
        return 0;
    }
    st->r = spawn(sf.p, sf.ng, sf.eps, st->r.Dir);
    st->pass++;
    (*rays)++;
    query_ask(q, QueryClosest, st->r);
    return 1;
}

/* occluded_begin: starts Scene.occludedSeen along r. */
DEVFN void occluded_begin(SeenState* st, Ray r, u32 stream, int fromLight, RayQuery* q) {
    st->r = r;
    st->stream = stream;
    st->pass = 0u;
    st->fromLight = (u32)fromLight;
    st->phase = TR_SEEN_OCCLUDED_FIRST;
    query_ask(q, QueryAny, r);
}

/* occluded_resume: Scene.occludedSeen's loop, one query at a time; at the end
 * *occluded is its result. */
DEVFN int occluded_resume(const TraceScene* s, SeenState* st, const Sampler* smp, RayQuery* q, u64* rays,
                          int* occluded) {
    if (st->phase == TR_SEEN_OCCLUDED_FIRST) {
        if (!q->occluded) {
            *occluded = 0;
            return 0;
        }
        if (!s->SeeThrough) {
            *occluded = 1;
            return 0;
        }
        st->end = ray_at(&st->r, st->r.TMax);
        st->phase = TR_SEEN_OCCLUDED_PASS;
        (*rays)++;
        query_ask(q, QueryClosest, st->r);
        return 1;
    }
    Hit h = q->hit;
    if (h.Kind == HitNone) {
        *occluded = 0;
        return 0;
    }
    if (st->pass == MaxAlphaPasses) {
        *occluded = 1;
        return 0;
    }
    SurfaceHit sf;
    if (!pass_through(s, &st->r, &h, smp, st->stream, st->pass, (int)st->fromLight, &sf)) {
        *occluded = 1;
        return 0;
    }
    vec3 o = spawn(sf.p, sf.ng, sf.eps, st->r.Dir).Origin;
    vec3 d = vsub(st->end, o);
    if (!(dot(d, st->r.Dir) > 0.0f)) {
        *occluded = 0;
        return 0;
    }
    float l = length(d);
    st->r.Origin = o;
    st->r.Dir = v3(d.x / l, d.y / l, d.z / l);
    st->r.TMax = l;
    st->pass++;
    (*rays)++;
    query_ask(q, QueryClosest, st->r);
    return 1;
}

/* emitter_alpha: Scene.emitterAlpha. */
DEVFN float emitter_alpha(const TraceScene* s, const Material* m, vec3 p, vec3 q, vec3 nq, const TexCoords* tc) {
    if (m->SingleSided != 0u && dot(nq, vsub(p, q)) < 0.0f) {
        return 0.0f;
    }
    if (m->AlphaMode == AlphaMask) {
        return alpha_at(s, m, tc) >= m->AlphaCutoff ? 1.0f : 0.0f;
    }
    if (m->AlphaMode == AlphaBlend) {
        return clamp01(alpha_at(s, m, tc));
    }
    return 1.0f;
}

#endif /* TRACE_ALPHA_H */
