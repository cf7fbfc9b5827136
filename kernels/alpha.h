/*
 * alpha.h: cut-outs, stochastic transparency and single-sided surfaces; a
 * port of tracer/alpha.go. Rays and shadow rays pass through the surfaces
 * that are not there at their hit, at most MaxAlphaPasses per ray; the
 * BVH traversal (intersect.h) is unchanged.
 */
#ifndef TRACE_ALPHA_H
#define TRACE_ALPHA_H

#include "surface.h"

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

/* see_through: seeThrough. */
DEVFN int see_through(const Material* m) { return m->AlphaMode != AlphaOpaque || m->SingleSided != 0u; }

/* hit_material: Scene.hitMaterial. */
DEVFN const Material* hit_material(const TraceScene* s, const Hit* h) {
    if (h->Kind == HitTriangle) {
        return &s->Materials[s->TriangleAttrs[h->Index].Material];
    }
    return &s->Materials[s->Shapes[h->Index].Material];
}

/* sample_alpha: Scene.sampleAlpha, sample_wrapped for the alpha values. */
DEVFN float sample_alpha(const TraceScene* s, const Texture* t, float u, float v) {
    int W = (int)t->Width, H = (int)t->Height;
    float w = (float)t->Width, h = (float)t->Height;
    u = wrap_coord(u, t->WrapS);
    v = wrap_coord(v, t->WrapT);
    const float* a = s->Texels + t->AlphaOffset;
    if (t->Filter == FilterNearest) {
        int ix = wrap_texel((int)port_floorf(u * w), W, t->WrapS);
        int iy = wrap_texel((int)port_floorf((1.0f - v) * h), H, t->WrapT);
        return a[(i64)iy * W + ix];
    }
    float x = (u * w) - 0.5f;
    float y = ((1.0f - v) * h) - 0.5f;
    float x0 = port_floorf(x), y0 = port_floorf(y);
    float fx = x - x0, fy = y - y0;
    int ix0 = (int)x0, iy0 = (int)y0;
    int ix1 = wrap_texel(ix0 + 1, W, t->WrapS), iy1 = wrap_texel(iy0 + 1, H, t->WrapT);
    ix0 = wrap_texel(ix0, W, t->WrapS);
    iy0 = wrap_texel(iy0, H, t->WrapT);
    float top = (a[(i64)iy0 * W + ix0] * (1.0f - fx)) + (a[(i64)iy0 * W + ix1] * fx);
    float bottom = (a[(i64)iy1 * W + ix0] * (1.0f - fx)) + (a[(i64)iy1 * W + ix1] * fx);
    return (top * (1.0f - fy)) + (bottom * fy);
}

/* texture_alpha: Scene.textureAlpha. */
DEVFN float texture_alpha(const TraceScene* s, i32 ti, const TexCoords* tc) {
    const Texture* t = &s->Textures[ti];
    if (t->Kind != TextureImage || t->AlphaOffset == 0u) {
        return 1.0f;
    }
    float u = tc->u, v = tc->v;
    if (t->TexCoord == 1u) {
        u = tc->u1;
        v = tc->v1;
    }
    transform_uv(t, &u, &v);
    return sample_alpha(s, t, u, v);
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

/* intersect_seen: Scene.intersectSeen. */
DEVFN Hit intersect_seen(const TraceScene* s, Ray* r, const Sampler* smp, u32 stream, u64* rays) {
    Hit h = scene_intersect(s, *r);
    if (!s->SeeThrough) {
        return h;
    }
    for (u32 pass = 0; h.Kind != HitNone && pass < MaxAlphaPasses; pass++) {
        SurfaceHit sf;
        if (!pass_through(s, r, &h, smp, stream, pass, 0, &sf)) {
            break;
        }
        *r = spawn(sf.p, sf.ng, sf.eps, r->Dir);
        h = scene_intersect(s, *r);
        (*rays)++;
    }
    return h;
}

/* occluded_seen: Scene.occludedSeen. */
DEVFN int occluded_seen(const TraceScene* s, Ray r, const Sampler* smp, u32 stream, int fromLight, u64* rays) {
    if (!scene_occluded(s, r)) {
        return 0;
    }
    if (!s->SeeThrough) {
        return 1;
    }
    vec3 end = ray_at(&r, r.TMax);
    for (u32 pass = 0;; pass++) {
        Hit h = scene_intersect(s, r);
        (*rays)++;
        if (h.Kind == HitNone) {
            return 0;
        }
        if (pass == MaxAlphaPasses) {
            return 1;
        }
        SurfaceHit sf;
        if (!pass_through(s, &r, &h, smp, stream, pass, fromLight, &sf)) {
            return 1;
        }
        vec3 o = spawn(sf.p, sf.ng, sf.eps, r.Dir).Origin;
        vec3 d = vsub(end, o);
        if (!(dot(d, r.Dir) > 0.0f)) {
            return 0;
        }
        float l = length(d);
        r.Origin = o;
        r.Dir = v3(d.x / l, d.y / l, d.z / l);
        r.TMax = l;
    }
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
