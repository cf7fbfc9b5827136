/*
 * surface.h: hit points and the scattering helpers; ports of
 * tracer/surface.go, material.go and the direction samplers of sample.go.
 */
#ifndef TRACE_SURFACE_H
#define TRACE_SURFACE_H

#include "intersect.h"
#include "texture.h"

/* SurfaceHit is tracer's surfaceHit. */
typedef struct {
    vec3 p;
    vec3 ng;
    vec3 ns;
    TexCoords tc; /* tracer's embedded texCoords */
    float eps;
    /* clear and clearRough: tracer's (Scene.clearcoatParams), in what
     * was the padding before m and room that front and mapped, once
     * ints, left: SurfaceHit lives in the wavefront's slots, whose sizes
     * more would grow (kernels/README.md). */
    float clear;
    const Material* m;
    float metal, rough;
    float clearRough;
    unsigned char front; /* 0 or 1; bytes, as 16-bit loads are kept out of the PTX (TestPTXSceneLoads) */
    unsigned char mapped;
} SurfaceHit;
PORT_STATIC_ASSERT(sizeof(SurfaceHit) == 96, "SurfaceHit is 96 bytes, as before the clear coat's maps");

/* NORMAL_MAP_MIN_COS: tracer's normalMapMinCos. */
#define NORMAL_MAP_MIN_COS 0.01f

/* normal_map: Scene.normalMap (tracer/normalmap.go), sf->ns perturbed by
 * the material's tangent-space normal map, given the tangent t and the
 * handedness w. */
DEVFN void normal_map(const TraceScene* s, SurfaceHit* sf, vec3 t, float w) {
    vec3 n = sf->ns;
    t = normalize(madd(t, n, -dot(n, t)));
    if (vzero(t)) {
        return;
    }
    vec3 b = cross(n, t);
    if (w < 0.0f) {
        b = vneg(b);
    }
    const Material* m = sf->m;
    vec3 c = texture_of(s, (i32)(m->NormalMap - 1u), &sf->tc);
    float x = ((2.0f * c.x) - 1.0f) * m->NormalScale;
    float y = ((2.0f * c.y) - 1.0f) * m->NormalScale;
    float z = (2.0f * c.z) - 1.0f;
    if (x == 0.0f && y == 0.0f && z > 0.0f) {
        return;
    }
    vec3 q = normalize(madd(madd(scale(t, x), b, y), n, z));
    if (vzero(q)) {
        return;
    }
    sf->ns = q;
    sf->mapped = 1;
}

/* bends_for_reflection: bendsForReflection (tracer/validreflection.go). */
DEVFN int bends_for_reflection(const Material* m) {
    return m->Kind == MaterialMetal || m->Kind == MaterialPBR || m->Kind == MaterialPhong;
}

/* valid_reflection: validReflection, ns bent toward ng until the mirror
 * reflection of wo about it leaves the geometric surface at a cosine of
 * at least min(0.9·(wo·ng), 0.01) (Cycles' ensure_valid_specular_reflection). */
DEVFN vec3 valid_reflection(vec3 ng, vec3 wo, vec3 ns) {
    float iz = dot(wo, ng);
    float th = go_minf(0.9f * iz, 0.01f);
    vec3 r = vsub(scale(ns, 2.0f * dot(ns, wo)), wo);
    if (dot(ng, r) >= th) {
        return ns;
    }
    vec3 x = normalize(madd(ns, ng, -dot(ns, ng)));
    if (vzero(x)) {
        x = ns;
    }
    float ix = dot(wo, x);
    float a = (ix * ix) + (iz * iz);
    if (!(a > 0.0f)) {
        return ng;
    }
    float b = 2.0f * (a + (iz * th));
    float c = (th + iz) * (th + iz);
    float disc = fm_sqrt(go_maxf((b * b) - ((4.0f * a) * c), 0.0f));
    float z2;
    if (ix < 0.0f) {
        z2 = (0.25f * (b + disc)) / a;
    } else {
        z2 = (0.25f * (b - disc)) / a;
    }
    float nx = fm_sqrt(go_maxf(1.0f - z2, 0.0f));
    float nz = fm_sqrt(go_maxf(z2, 0.0f));
    return madd(scale(x, nx), ng, nz);
}

/* shape_tangent: shapeTangent, the direction of increasing u on sh where
 * the outward normal is n, and the handedness (*w). */
DEVFN vec3 shape_tangent(const Shape* sh, vec3 n, float* w) {
    if (sh->Kind == ShapeSphere) {
        *w = 1.0f;
        return v3(n.z, 0.0f, -n.x);
    }
    *w = sh->Kind == ShapeQuad ? 1.0f : -1.0f;
    return sh->P1;
}

/* surface_at: Scene.surfaceAt, the surface at hit h along r. */
DEVFN SurfaceHit surface_at(const TraceScene* s, const Ray* r, const Hit* h) {
    SurfaceHit sf;
    sf.mapped = 0;
    sf.p = ray_at(r, h->T);
    sf.eps = spawn_epsilon(sf.p, r->Origin);
    if (h->Kind == HitTriangle) {
        const Triangle* tr = &s->Triangles[h->Index];
        const TriangleAttr* a = &s->TriangleAttrs[h->Index];
        sf.m = &s->Materials[a->Material];
        sf.ng = normalize(cross(tr->E1, tr->E2));
        sf.ns = sf.ng;
        sf.tc.u = h->B1;
        sf.tc.v = h->B2;
        float b0 = (1.0f - h->B1) - h->B2;
        if (a->Flags != 0) {
            const Vertex* v0 = &s->Vertices[a->V[0]];
            const Vertex* v1 = &s->Vertices[a->V[1]];
            const Vertex* v2 = &s->Vertices[a->V[2]];
            if ((a->Flags & TriangleSmooth) != 0) {
                vec3 n = normalize(madd(madd(scale(v0->N, b0), v1->N, h->B1), v2->N, h->B2));
                if (!vzero(n)) {
                    if (dot(n, sf.ng) < 0.0f) {
                        n = vneg(n);
                    }
                    sf.ns = n;
                }
            }
            if ((a->Flags & TriangleUV) != 0) {
                sf.tc.u = ((v0->UV[0] * b0) + (v1->UV[0] * h->B1)) + (v2->UV[0] * h->B2);
                sf.tc.v = ((v0->UV[1] * b0) + (v1->UV[1] * h->B1)) + (v2->UV[1] * h->B2);
            }
        }
        triangle_coords(s, a, h->B1, h->B2, &sf.tc);
        if ((a->Flags & TriangleTangent) != 0 && sf.m->NormalMap != 0u) {
            const Tangent* t0 = &s->Tangents[a->V[0]];
            const Tangent* t1 = &s->Tangents[a->V[1]];
            const Tangent* t2 = &s->Tangents[a->V[2]];
            vec3 t = madd(madd(scale(t0->T, b0), t1->T, h->B1), t2->T, h->B2);
            float w = ((t0->W * b0) + (t1->W * h->B1)) + (t2->W * h->B2);
            normal_map(s, &sf, t, w);
        }
    } else {
        const Shape* sh = &s->Shapes[h->Index];
        sf.m = &s->Materials[sh->Material];
        sf.ng = shape_surface(sh, sf.p, h->B1, h->B2, &sf.tc.u, &sf.tc.v);
        sf.ns = sf.ng;
        sf.tc = shape_coords(sf.tc.u, sf.tc.v);
        if (sf.m->NormalMap != 0u) {
            float w;
            vec3 t = shape_tangent(sh, sf.ng, &w);
            normal_map(s, &sf, t, w);
        }
    }
    sf.metal = 0.0f;
    sf.rough = 0.0f;
    sf.clear = 0.0f;
    sf.clearRough = 0.0f;
    if (sf.m->Kind == MaterialMetal || sf.m->Kind == MaterialPBR) {
        pbr_params(s, sf.m, &sf.tc, &sf.metal, &sf.rough);
        clearcoat_params(s, sf.m, &sf.tc, &sf.clear, &sf.clearRough);
    }
    sf.front = !(dot(sf.ng, r->Dir) > 0.0f);
    if (!sf.front) {
        sf.ng = vneg(sf.ng);
        sf.ns = vneg(sf.ns);
    }
    if (sf.mapped) {
        vec3 wo = vneg(r->Dir);
        float c = dot(sf.ns, wo);
        if (c < NORMAL_MAP_MIN_COS) {
            sf.ns = normalize(madd(sf.ns, wo, NORMAL_MAP_MIN_COS - c));
        }
        if (bends_for_reflection(sf.m)) {
            sf.ns = valid_reflection(sf.ng, wo, sf.ns);
        }
    }
    return sf;
}

/* fresnel_dielectric: fresnelDielectric (tracer/microfacet.go). */
DEVFN float fresnel_dielectric(float cos, float eta) {
    float sin2t = (eta * eta) * (1.0f - (cos * cos));
    if (!(sin2t < 1.0f)) {
        return 1.0f;
    }
    float cost = fm_sqrt(1.0f - sin2t);
    float ec = eta * cos, et = eta * cost;
    float rs = (ec - cost) / (ec + cost);
    float rp = (cos - et) / (cos + et);
    return 0.5f * ((rs * rs) + (rp * rp));
}

/* refraction: the reflectance and refracted direction of d at a surface
 * with unit normal ns facing it, relative index eta; 0 on total internal
 * reflection (*reflectance is then 1). */
DEVFN int refraction(vec3 d, vec3 ns, float eta, float* reflectance, vec3* dir) {
    float cos = go_minf(-dot(d, ns), 1.0f);
    float sin2 = 1.0f - (cos * cos);
    if (((eta * eta) * sin2) > 1.0f) {
        *reflectance = 1.0f;
        *dir = v3(0.0f, 0.0f, 0.0f);
        return 0;
    }
    vec3 perp = scale(madd(d, ns, cos), eta);
    vec3 par = scale(ns, -fm_sqrt(absf(1.0f - dot(perp, perp))));
    *reflectance = fresnel_dielectric(cos, eta);
    *dir = normalize(vadd(perp, par));
    return 1;
}

/* phong_weights: phongWeights. */
DEVFN void phong_weights(const Material* m, float* kd, float* ks) {
    *kd = go_maxf(m->Diffuse, 0.0f);
    *ks = go_maxf(m->Specular, 0.0f);
    float t = *kd + *ks;
    if (t > 1.0f) {
        *kd = *kd / t;
        *ks = *ks / t;
    }
}

/* hemisphere_dir: the unit direction at cosine z and sine r to the unit
 * normal n, at azimuth 2π·u2 about it (cosineHemisphere's and
 * uniformHemisphere's common part). */
DEVFN vec3 hemisphere_dir(vec3 n, float r, float z, float u2) {
    float phi = TR_TWO_PI * u2;
    float x = r * fm_cos(phi);
    float y = r * fm_sin(phi);
    vec3 t, b;
    orthonormal(n, &t, &b);
    return normalize(madd(madd(scale(n, z), t, x), b, y));
}

/* cosine_hemisphere: cosineHemisphere. */
DEVFN vec3 cosine_hemisphere(vec3 n, float u1, float u2) {
    return hemisphere_dir(n, fm_sqrt(u1), fm_sqrt(go_maxf(0.0f, 1.0f - u1)), u2);
}

/* phong_lobe: phongLobe. */
DEVFN vec3 phong_lobe(vec3 axis, float exponent, float u1, float u2) {
    float cosA = fm_pow(u1, 1.0f / (exponent + 1.0f));
    float sinA = fm_sqrt(go_maxf(0.0f, 1.0f - (cosA * cosA)));
    float phi = TR_TWO_PI * u2;
    vec3 t, b;
    orthonormal(axis, &t, &b);
    return normalize(madd(madd(scale(axis, cosA), t, sinA * fm_cos(phi)), b, sinA * fm_sin(phi)));
}

#include "microfacet.h"

/* is_glossy: isGlossy. */
DEVFN int is_glossy(const Material* m, float metal, float rough, float clear, float clearRough) {
    if (m->Kind == MaterialDiffuse) {
        return 1;
    }
    if (m->Kind == MaterialMetal) {
        return !(ggx_alpha(clamp01(rough)) < TR_GGX_MIN_ALPHA);
    }
    if (m->Kind == MaterialPBR) {
        return !(ggx_alpha(clamp01(rough)) < TR_GGX_MIN_ALPHA) || clamp01(metal) < 1.0f ||
               (clear > 0.0f && !(ggx_alpha(clamp01(clearRough)) < TR_GGX_MIN_ALPHA)) || max_component(m->SheenColor) > 0.0f;
    }
    if (m->Kind == MaterialPhong) {
        float kd, ks;
        phong_weights(m, &kd, &ks);
        return kd + ks > 0.0f && clamp01(m->Reflection) < 1.0f;
    }
    return 0;
}

/* dielectric_eta: dielectricEta, n_from / n_to of the glass at sf. */
DEVFN float dielectric_eta(const SurfaceHit* sf) {
    if (!sf->front) {
        return sf->m->IOR;
    }
    return 1.0f / sf->m->IOR;
}

/* eval_rough_glass: evalRoughGlass, eval_scatter for glass. */
DEVFN vec3 eval_rough_glass(const SurfaceHit* sf, vec3 d, vec3 wi, vec3 c, float* pdf) {
    *pdf = 0.0f;
    if (sf->mapped && (dot(sf->ns, wi) > 0.0f) != (dot(sf->ng, wi) > 0.0f)) {
        return v3(0.0f, 0.0f, 0.0f);
    }
    float alpha = ggx_alpha(clamp01(sf->m->Roughness));
    if (alpha < TR_GGX_MIN_ALPHA) {
        return v3(0.0f, 0.0f, 0.0f);
    }
    vec3 wo = v3(-d.x, -d.y, -d.z);
    int refracted;
    float f = dielectric_eval(sf->ns, wo, wi, dielectric_eta(sf), alpha, pdf, &refracted);
    if (!refracted) {
        c = v3(1.0f, 1.0f, 1.0f);
    }
    return scale(c, f);
}

/* pbr_eval_at: eval_scatter of a metal or pbr material (new_pbr_lobes,
 * pbr_eval). Out of line: inline at next-event estimation's three calls,
 * the lobes' dielectric F0 and F90 (glTF's KHR_materials_specular) made
 * ptxas spill more in wf_shade and trace_pixels_path (kernels/README.md);
 * sample_scatter keeps its own lobes inline (called there too, it
 * spilled more). */
DEVFN_CALL vec3 pbr_eval_at(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 wi, vec3 c, float* pdf) {
    vec3 wo = v3(-d.x, -d.y, -d.z);
    vec3 f0;
    float f90;
    dielectric_specular(s, sf->m, &sf->tc, &f0, &f90);
    PBRLobes l = new_pbr_lobes(sf->m, c, sf->metal, sf->rough, f0, f90, sf->clear, sf->clearRough, dot(sf->ns, wo));
    return pbr_eval(&l, sf->m, sf->ns, wo, wi, pdf);
}

/* eval_scatter: evalScatter, f·cos θ toward wi and the density of picking
 * wi (*pdf). */
DEVFN vec3 eval_scatter(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 wi, vec3 c, float* pdf) {
    if (sf->m->Kind == MaterialDielectric) {
        return eval_rough_glass(sf, d, wi, c, pdf);
    }
    float cos = dot(sf->ns, wi);
    if (!(cos > 0.0f) || (sf->mapped && !(dot(sf->ng, wi) > 0.0f))) {
        *pdf = 0.0f;
        return v3(0.0f, 0.0f, 0.0f);
    }
    const Material* m = sf->m;
    float cd = cos * TR_INV_PI;
    if (m->Kind == MaterialDiffuse) {
        *pdf = cd;
        return scale(c, cd);
    }
    if (m->Kind == MaterialMetal || m->Kind == MaterialPBR) {
        return pbr_eval_at(s, sf, d, wi, c, pdf);
    }
    float kd, ks;
    phong_weights(m, &kd, &ks);
    float kr = clamp01(m->Reflection);
    float lobe = 0.0f;
    float cosA = dot(reflect(d, sf->ns), wi);
    if (cosA > 0.0f) {
        lobe = ((m->Shininess + 1.0f) * (0.5f * TR_INV_PI)) * fm_pow(cosA, m->Shininess);
    }
    float w = 1.0f - kr;
    vec3 fcos = scale(madd(scale(c, kd * cd), v3(1.0f, 1.0f, 1.0f), ks * lobe), w);
    float pd = kd / (kd + ks);
    *pdf = w * ((pd * cd) + ((1.0f - pd) * lobe));
    return fcos;
}

/* sample_scatter: sampleScatter; returns ok, with the direction, the
 * weight f·cos θ/pdf and the density (0 for a mirror bounce). */
DEVFN int sample_scatter(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 c, float lobe, float u1, float u2, vec3* dir, vec3* weight,
                         float* pdf) {
    const Material* m = sf->m;
    vec3 ns = sf->ns;
    if (m->Kind == MaterialDiffuse) {
        *dir = cosine_hemisphere(ns, u1, u2);
        float cos = dot(*dir, ns);
        *weight = c;
        *pdf = cos * TR_INV_PI;
        return cos > 0.0f;
    }
    if (m->Kind == MaterialMetal || m->Kind == MaterialPBR) {
        vec3 wo = v3(-d.x, -d.y, -d.z);
        vec3 f0;
        float f90;
        dielectric_specular(s, m, &sf->tc, &f0, &f90);
        PBRLobes l = new_pbr_lobes(m, c, sf->metal, sf->rough, f0, f90, sf->clear, sf->clearRough, dot(ns, wo));
        return pbr_sample(&l, m, ns, wo, lobe, u1, u2, dir, weight, pdf);
    }
    float kd, ks;
    phong_weights(m, &kd, &ks);
    float kr = clamp01(m->Reflection);
    if (lobe < kr) {
        *dir = reflect(d, ns);
        *weight = v3(1.0f, 1.0f, 1.0f);
        *pdf = 0.0f;
        return 1;
    } else if (kd + ks == 0.0f) {
        return 0;
    } else if (((lobe - kr) * (kd + ks)) < ((1.0f - kr) * kd)) {
        *dir = cosine_hemisphere(ns, u1, u2);
    } else {
        *dir = phong_lobe(reflect(d, ns), m->Shininess, u1, u2);
    }
    vec3 fcos = eval_scatter(s, sf, d, *dir, c, pdf);
    if (!(*pdf > 0.0f)) {
        return 0;
    }
    *weight = v3(fcos.x / *pdf, fcos.y / *pdf, fcos.z / *pdf);
    return 1;
}

/* power_heuristic: powerHeuristic. */
DEVFN float power_heuristic(float a, float b) {
    if (!(b > 0.0f)) {
        return 1.0f;
    }
    float r = b / a;
    return 1.0f / (1.0f + (r * r));
}

#endif /* TRACE_SURFACE_H */
