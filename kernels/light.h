/*
 * light.h: point lights and next-event estimation toward emissive shapes;
 * a port of tracer/light.go.
 */
#ifndef TRACE_LIGHT_H
#define TRACE_LIGHT_H

#include "surface.h"
#include "texture.h"

/* point_light_radiance: pointLightRadiance. */
DEVFN vec3 point_light_radiance(const PointLight* l, float dist) {
    vec3 li = scale(l->Color, l->Intensity);
    if (l->Falloff == FalloffInverseSquare) {
        float d2 = dist * dist;
        li = v3(li.x / d2, li.y / d2, li.z / d2);
    }
    return li;
}

/* sample_emitter: Scene.sampleEmitter, a point uniform over emitter e with
 * its unit normal, the emitter's area, material and surface coordinates. */
DEVFN vec3 sample_emitter(const TraceScene* s, Emitter e, float u1, float u2, vec3* n, float* area,
                          const Material** m, float* u, float* v) {
    if (e.Kind == HitTriangle) {
        const Triangle* tr = &s->Triangles[e.Index];
        const TriangleAttr* a = &s->TriangleAttrs[e.Index];
        float b1, b2;
        vec3 q = triangle_sample_point(tr, u1, u2, &b1, &b2);
        Hit h = hit(0.0f, HitTriangle, e.Index, b1, b2);
        Ray r = ray(q, v3(0.0f, 0.0f, 0.0f), 0.0f);
        SurfaceHit sf = surface_at(s, &r, &h);
        *n = normalize(cross(tr->E1, tr->E2));
        *area = triangle_area(tr);
        *m = &s->Materials[a->Material];
        *u = sf.u;
        *v = sf.v;
        return q;
    }
    const Shape* sh = &s->Shapes[e.Index];
    float b1, b2;
    vec3 q = shape_sample_point(sh, u1, u2, n, &b1, &b2);
    shape_surface(sh, q, b1, b2, u, v);
    *area = sh->Area;
    *m = &s->Materials[sh->Material];
    return q;
}

/* direct_light: Scene.directLight, Σ Li·cos θ / pdf over every point light
 * and one emitter chosen at random. It draws exactly three numbers. */
DEVFN vec3 direct_light(const TraceScene* s, const SurfaceHit* sf, Sampler* rng, u64* rays) {
    vec3 p = sf->p, n = sf->ng, ns = sf->ns;
    vec3 sum = v3(0.0f, 0.0f, 0.0f);
    for (u32 i = 0; i < s->NumLights; i++) {
        const PointLight* l = &s->Lights[i];
        float dist;
        Ray r = spawn_to(p, n, l->Position, &dist);
        float cos = dot(ns, r.Dir);
        if (!(cos > 0.0f)) {
            continue;
        }
        (*rays)++;
        if (scene_occluded(s, r)) {
            continue;
        }
        sum = madd(sum, point_light_radiance(l, dist), cos);
    }
    float u0 = sampler_float(rng);
    float u1 = sampler_float(rng);
    float u2 = sampler_float(rng);
    int ne = (int)s->NumEmitters;
    if (ne == 0) {
        return sum;
    }
    int k = go_mini((int)(u0 * (float)ne), ne - 1);
    vec3 nl;
    float area, eu, ev;
    const Material* m;
    vec3 q = sample_emitter(s, s->Emitters[k], u1, u2, &nl, &area, &m, &eu, &ev);
    float dist;
    Ray r = spawn_to(p, n, q, &dist);
    float cos = dot(ns, r.Dir);
    float cosl = absf(dot(nl, r.Dir));
    if (!(cos > 0.0f && cosl > 0.0f && dist > 0.0f)) {
        return sum;
    }
    (*rays)++;
    if (scene_occluded(s, r)) {
        return sum;
    }
    float g = (((cos * cosl) * area) * (float)ne) / (dist * dist);
    return maddv(sum, emitted(s, m, eu, ev), v3(g, g, g));
}

#endif /* TRACE_LIGHT_H */
