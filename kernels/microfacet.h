/*
 * microfacet.h: GGX microfacet scattering and the metallic-roughness
 * model; a port of tracer/microfacet.go, operation for operation.
 */
#ifndef TRACE_MICROFACET_H
#define TRACE_MICROFACET_H

#include "vec.h"
#include "ggx_albedo_gen.h"
#include "sheen.h"

/* ggxMinAlpha: below it a GGX lobe is a mirror. */
#define TR_GGX_MIN_ALPHA 1e-3f

/* ggx_alpha: ggxAlpha. */
DEVFN float ggx_alpha(float roughness) { return roughness * roughness; }

/* ggx_d: ggxD. */
DEVFN float ggx_d(float c, float a2) {
    float t = ((c * c) * (a2 - 1.0f)) + 1.0f;
    return a2 / ((TR_PI * t) * t);
}

/* ggx_root: ggxRoot. */
DEVFN float ggx_root(float c, float a2) { return fm_sqrt(a2 + ((1.0f - a2) * (c * c))); }

/* ggx_g1: ggxG1. */
DEVFN float ggx_g1(float c, float a2) { return (2.0f * c) / (c + ggx_root(c, a2)); }

/* ggx_g2: ggxG2. */
DEVFN float ggx_g2(float co, float ci, float a2) {
    return ((2.0f * co) * ci) / ((ci * ggx_root(co, a2)) + (co * ggx_root(ci, a2)));
}

/* ggx_sample_normal: ggxSampleNormal. */
DEVFN vec3 ggx_sample_normal(vec3 n, vec3 wo, float alpha, float u1, float u2) {
    vec3 t, b;
    orthonormal(n, &t, &b);
    vec3 vh = normalize(v3(alpha * dot(wo, t), alpha * dot(wo, b), dot(wo, n)));
    vec3 t1 = v3(1.0f, 0.0f, 0.0f);
    float l2 = (vh.x * vh.x) + (vh.y * vh.y);
    if (l2 > 0.0f) {
        float il = 1.0f / fm_sqrt(l2);
        t1 = v3(-vh.y * il, vh.x * il, 0.0f);
    }
    vec3 t2 = cross(vh, t1);
    float r = fm_sqrt(u1);
    float phi = TR_TWO_PI * u2;
    float p1 = r * fm_cos(phi);
    float p2 = r * fm_sin(phi);
    float s = 0.5f * (1.0f + vh.z);
    p2 = ((1.0f - s) * fm_sqrt(go_maxf(0.0f, 1.0f - (p1 * p1)))) + (s * p2);
    float pz = fm_sqrt(go_maxf(0.0f, (1.0f - (p1 * p1)) - (p2 * p2)));
    vec3 nh = madd(madd(scale(vh, pz), t1, p1), t2, p2);
    float x = alpha * nh.x, y = alpha * nh.y, z = go_maxf(0.0f, nh.z);
    return normalize(madd(madd(scale(n, z), t, x), b, y));
}

/* GGXReflection: ggxReflection's results. */
typedef struct {
    float spec, pdf;
} GGXReflection;

/* ggx_reflection: ggxReflection, D·G2 / (4 cos θo) and the density
 * D·G1 / (4 cos θo); out of line, so that its temporaries do not add to
 * its callers' registers (inline, the base's and the clear coat's lobes
 * made ptxas spill in wf_shade and trace_pixels_path). */
DEVFN_CALL GGXReflection ggx_reflection(float cnh, float co, float ci, float a2) {
    float dh = ggx_d(cnh, a2);
    GGXReflection r;
    r.spec = dh * ggx_g2(co, ci, a2) / (4.0f * co);
    r.pdf = (ggx_g1(co, a2) * dh) / (4.0f * co);
    return r;
}

/* pow5: pow5. */
DEVFN float pow5(float x) {
    float x2 = x * x;
    return (x2 * x2) * x;
}

/* schlick3: schlick3. */
DEVFN vec3 schlick3(vec3 f0, vec3 f90, float c5) {
    return v3(f0.x + ((f90.x - f0.x) * c5), f0.y + ((f90.y - f0.y) * c5), f0.z + ((f90.z - f0.z) * c5));
}

/* albedo_lerp: albedoLerp. */
DEVFN float albedo_lerp(const float* tab, int k, float tx, float ty) {
    float a = tab[k] + ((tab[k + 1] - tab[k]) * tx);
    float b = tab[k + TR_GGX_ALBEDO_N] + ((tab[k + TR_GGX_ALBEDO_N + 1] - tab[k + TR_GGX_ALBEDO_N]) * tx);
    return a + ((b - a) * ty);
}

/* ggx_albedo: ggxAlbedo, E1 and E5 of the lobe of roughness rough seen at
 * cosine co (ggx_albedo_gen.h's tables). */
DEVFN void ggx_albedo(float co, float rough, float* e1, float* e5) {
    float x = fm_sqrt(clamp01(co)) * (float)(TR_GGX_ALBEDO_N - 1);
    float y = fm_sqrt(clamp01(rough)) * (float)(TR_GGX_ALBEDO_N - 1);
    int i = (int)x, j = (int)y;
    if (i > TR_GGX_ALBEDO_N - 2) {
        i = TR_GGX_ALBEDO_N - 2;
    }
    if (j > TR_GGX_ALBEDO_N - 2) {
        j = TR_GGX_ALBEDO_N - 2;
    }
    float tx = x - (float)i, ty = y - (float)j;
    int k = j * TR_GGX_ALBEDO_N + i;
    *e1 = albedo_lerp(ggx_e1, k, tx, ty);
    *e5 = albedo_lerp(ggx_e5, k, tx, ty);
}

/* glass_lerp: glassLerp, in the table tab. */
DEVFN float glass_lerp(const float* tab, int k, float tx, float ty) {
    float a = tab[k] + ((tab[k + 1] - tab[k]) * tx);
    float b = tab[k + TR_GLASS_ALBEDO_N] + ((tab[k + TR_GLASS_ALBEDO_N + 1] - tab[k + TR_GLASS_ALBEDO_N]) * tx);
    return a + ((b - a) * ty);
}

/* glass_lookup: glassLookup, tab (glass_e) interpolated at
 * cosine co, GGX α alpha and relative index eta. */
DEVFN float glass_lookup(const float* tab, float co, float alpha, float eta) {
    const int n = TR_GLASS_ALBEDO_N;
    int s = 0;
    float ior = 1.0f / eta;
    if (eta > 1.0f) {
        s = 1;
        ior = eta;
    }
    float x = fm_sqrt(clamp01(co)) * (float)(n - 1);
    float y = fm_sqrt(clamp01(alpha)) * (float)(n - 1);
    float z = fm_sqrt(clamp01((ior - 1.0f) * (1.0f / 3.0f))) * (float)(n - 1);
    int i = (int)x, j = (int)y, l = (int)z;
    if (i > n - 2) {
        i = n - 2;
    }
    if (j > n - 2) {
        j = n - 2;
    }
    if (l > n - 2) {
        l = n - 2;
    }
    float tx = x - (float)i, ty = y - (float)j, tz = z - (float)l;
    int k = ((s * n + l) * n + j) * n + i;
    float a = glass_lerp(tab, k, tx, ty), b = glass_lerp(tab, k + n * n, tx, ty);
    return a + ((b - a) * tz);
}

/* glass_albedo: glassAlbedo, the albedo of rough glass of GGX α alpha and
 * relative index eta seen at cosine co (ggx_albedo_gen.h's glass_e). */
DEVFN float glass_albedo(float co, float alpha, float eta) { return glass_lookup(glass_e, co, alpha, eta); }

/* glass_kept: glassKept, the probability that sample_dielectric keeps one
 * of its TR_GLASS_TRIES tries, 1 − (1 − E)^TR_GLASS_TRIES (glass_e). */
DEVFN_CALL float glass_kept(float co, float alpha, float eta) {
    float q = 1.0f - go_minf(go_maxf(glass_albedo(co, alpha, eta), 1e-3f), 1.0f);
    float q2 = q * q;
    float q4 = q2 * q2;
    return 1.0f - (q4 * q4);
}

/* ggx_energy: ggxEnergy; returns the multiple-scattering factor, with the
 * compensated albedo in *e. */
DEVFN float ggx_energy(float f0, float f90, float e1, float e5, float c5, int mirror, float* e) {
    if (mirror) {
        *e = f0 + ((f90 - f0) * c5);
        return 1.0f;
    }
    float ms = 1.0f + (f0 * ((1.0f - e1) / e1));
    *e = ((f0 * (e1 - e5)) + (f90 * e5)) * ms;
    return ms;
}

/* PBRLobes: pbrLobes. */
typedef struct {
    vec3 f0;
    vec3 f90;
    vec3 kd;
    float alpha;
    float coat;
    float pSpec0;
    float clear;
    float clearAlpha;
    float clearBase;
    float pClear;
    /* The probability of sampling the sheen, or −1 for none (pbrLobes'
     * sheenMax 0); pbr_eval_sheen and sheen_under compute pbrLobes' other
     * sheen fields again from the material, so that they take no
     * registers here (kernels/README.md, Registers). */
    float pSheen;
} PBRLobes;

/* pbr_sheen: whether m has a sheen (pbrLobes' sheenMax > 0). */
DEVFN int pbr_sheen(const Material* m) { return m->Kind == MaterialPBR && max_component(m->SheenColor) > 0.0f; }

/* sheen_under: a mirror base's weight w under the sheen of m, seen at
 * cosine co ∈ [0, 1]: times (1 − sheenMax·sheenEo), what the sheen lets
 * through, over 1 − pSheen, the probability of sampling the base. */
DEVFN_CALL vec3 sheen_under(vec3 w, const Material* m, float co, float pSheen) {
    float e = go_minf(sheen_albedo(co, sheen_roughness(m->SheenRoughness)), 1.0f);
    return scale(w, (1.0f - (max_component(m->SheenColor) * e)) / (1.0f - pSheen));
}

/* PBRSheen: pbrLobes.newSheen's results, PBRLobes' sheen fields and the
 * albedo fb of the sheen and the base under it. */
typedef struct {
    float pSheen, fb;
} PBRSheen;

/* pbr_new_sheen: pbrLobes.newSheen, the sheen of the pbr material m seen
 * at cosine co ∈ [0, 1] over a base of albedo fb. Out of line, as the
 * other sheen code: inline, it made ptxas spill in wf_shade and
 * trace_pixels_path. */
DEVFN_CALL PBRSheen pbr_new_sheen(const Material* m, float co, float fb) {
    PBRSheen l;
    vec3 c = m->SheenColor;
    float rough = m->SheenRoughness;
    float e = go_minf(sheen_albedo(co, sheen_roughness(rough)), 1.0f);
    float fsh = (((c.x + c.y) + c.z) * (1.0f / 3.0f)) * e;
    float under = fb * (1.0f - (max_component(c) * e));
    l.pSheen = 1.0f;
    if (fsh + under > 0.0f) {
        l.pSheen = fsh / (fsh + under);
    }
    l.fb = fsh + under;
    return l;
}

/* pbr_eval_sheen: pbrLobes.evalSheen's f·cos θi, the base's fcos under
 * the sheen of the pbr material m and the sheen's added, for the cosines
 * cnh of the half vector, co > 0 of the viewer and ci > 0 of the light
 * (pbr_eval mixes the densities); out of line. */
DEVFN_CALL vec3 pbr_eval_sheen(const Material* m, float cnh, float co, float ci, vec3 fcos) {
    /* pbrLobes.newSheen's sheen, sheenMax, sheenRough, sheenAlpha,
     * sheenLo and sheenEo. */
    float rough = sheen_roughness(m->SheenRoughness);
    float alpha = rough * rough;
    float lo = sheen_lambda(clamp01(co), alpha);
    float sheenEo = sheen_albedo(clamp01(co), rough);
    vec3 sheen = m->SheenColor;
    if (sheenEo > 1.0f) {
        sheen = scale(sheen, 1.0f / sheenEo);
        sheenEo = 1.0f;
    }
    float sheenMax = max_component(m->SheenColor);
    float ei = go_minf(sheen_albedo(ci, rough), 1.0f);
    fcos = scale(fcos, 1.0f - (sheenMax * go_maxf(sheenEo, ei)));
    float v = (4.0f * co) * ((1.0f + lo) + sheen_lambda(ci, alpha));
    float sv = sheen_d(cnh, alpha) / v;
    return madd(fcos, sheen, sv);
}

/* clearcoat_f: clearcoatF. */
DEVFN float clearcoat_f(float c5) { return 0.04f + (0.96f * c5); }

/* pbr_reflectance: pbrReflectance; returns metal. */
DEVFN float pbr_reflectance(const Material* m, vec3 c, float metallic, vec3 f0d, float f90d, vec3* f0, float* f90) {
    float metal = 1.0f;
    if (m->Kind == MaterialPBR) {
        metal = clamp01(metallic);
    }
    float dm = 1.0f - metal;
    *f0 = v3((f0d.x * dm) + (c.x * metal), (f0d.y * dm) + (c.y * metal), (f0d.z * dm) + (c.z * metal));
    *f90 = 1.0f - ((1.0f - f90d) * dm);
    return metal;
}

/* new_pbr_lobes: newPBRLobes. */
DEVFN PBRLobes new_pbr_lobes(const Material* m, vec3 c, float metallic, float rough, vec3 f0d, float f90d, float clear, float clearRough,
                              float co) {
    vec3 f0;
    float f90;
    float metal = pbr_reflectance(m, c, metallic, f0d, f90d, &f0, &f90);
    rough = clamp01(rough);
    PBRLobes l;
    l.kd = scale(c, 1.0f - metal);
    l.alpha = ggx_alpha(rough);
    /* The lobes' albedos seen from co, compensated. */
    co = clamp01(co);
    float c5 = pow5(1.0f - co);
    int mirror = l.alpha < TR_GGX_MIN_ALPHA;
    float e1 = 1.0f, e5 = c5;
    if (!mirror) {
        ggx_albedo(co, rough, &e1, &e5);
    }
    vec3 es, ed;
    float ms = ggx_energy(f0.x, f90, e1, e5, c5, mirror, &es.x);
    l.f0.x = f0.x * ms;
    l.f90.x = f90 * ms;
    ggx_energy(f0d.x, f90d, e1, e5, c5, mirror, &ed.x);
    ms = ggx_energy(f0.y, f90, e1, e5, c5, mirror, &es.y);
    l.f0.y = f0.y * ms;
    l.f90.y = f90 * ms;
    ggx_energy(f0d.y, f90d, e1, e5, c5, mirror, &ed.y);
    ms = ggx_energy(f0.z, f90, e1, e5, c5, mirror, &es.z);
    l.f0.z = f0.z * ms;
    l.f90.z = f90 * ms;
    ggx_energy(f0d.z, f90d, e1, e5, c5, mirror, &ed.z);
    l.coat = go_maxf(0.0f, 1.0f - max_component(ed));
    /* Sample the lobes in proportion to their albedos (mean channel). */
    float fs = ((es.x + es.y) + es.z) * (1.0f / 3.0f);
    float fd = (((l.kd.x + l.kd.y) + l.kd.z) * (1.0f / 3.0f)) * l.coat;
    l.pSpec0 = 1.0f;
    if (fs + fd > 0.0f) {
        l.pSpec0 = fs / (fs + fd);
    }
    /* fb: the albedo of what lies under the clear coat. */
    float fb = fs + fd;
    l.pSheen = -1.0f;
    if (pbr_sheen(m)) {
        PBRSheen sh = pbr_new_sheen(m, co, fb);
        l.pSheen = sh.pSheen;
        fb = sh.fb;
    }
    l.clear = 0.0f;
    l.clearAlpha = 0.0f;
    l.clearBase = 0.0f;
    l.pClear = 0.0f;
    if (m->Kind == MaterialPBR && clear > 0.0f) {
        clear = clamp01(clear);
        clearRough = clamp01(clearRough);
        l.clearAlpha = ggx_alpha(clearRough);
        int cmirror = l.clearAlpha < TR_GGX_MIN_ALPHA;
        float ce1 = 1.0f, ce5 = c5;
        if (!cmirror) {
            ggx_albedo(co, clearRough, &ce1, &ce5);
        }
        float ec;
        float cms = ggx_energy(0.04f, 1.0f, ce1, ce5, c5, cmirror, &ec);
        l.clear = clear * cms;
        float fc = clear * ec;
        l.clearBase = 1.0f - fc;
        l.pClear = fc / (fc + (fb * l.clearBase));
    }
    return l;
}

/* pbr_eval: pbrLobes.eval, for l made for the material m. */
DEVFN vec3 pbr_eval(const PBRLobes* l, const Material* m, vec3 n, vec3 wo, vec3 wi, float* pdf) {
    float co = dot(n, wo), ci = dot(n, wi);
    if (!(co > 0.0f && ci > 0.0f)) {
        *pdf = 0.0f;
        return v3(0.0f, 0.0f, 0.0f);
    }
    vec3 h = normalize(vadd(wo, wi));
    float c5 = pow5(1.0f - clamp01(dot(wo, h)));
    float cnh = dot(n, h);
    float cd = ci * TR_INV_PI;
    vec3 fcos = scale(l->kd, l->coat * cd);
    *pdf = (1.0f - l->pSpec0) * cd;
    if (!(l->alpha < TR_GGX_MIN_ALPHA)) {
        GGXReflection r = ggx_reflection(cnh, co, ci, l->alpha * l->alpha);
        fcos = maddv(fcos, schlick3(l->f0, l->f90, c5), v3(r.spec, r.spec, r.spec));
        *pdf += l->pSpec0 * r.pdf;
    }
    if (l->pSheen >= 0.0f) {
        fcos = pbr_eval_sheen(m, cnh, co, ci, fcos);
        *pdf = ((1.0f - l->pSheen) * *pdf) + (l->pSheen * (0.5f * TR_INV_PI));
    }
    if (!(l->clear > 0.0f)) {
        return fcos;
    }
    /* The base under the clear coat, and the coat (unless a mirror). */
    fcos = scale(fcos, l->clearBase);
    *pdf = (1.0f - l->pClear) * *pdf;
    if (!(l->clearAlpha < TR_GGX_MIN_ALPHA)) {
        GGXReflection r = ggx_reflection(cnh, co, ci, l->clearAlpha * l->clearAlpha);
        float spec = (l->clear * clearcoat_f(c5)) * r.spec;
        fcos = v3(fcos.x + spec, fcos.y + spec, fcos.z + spec);
        *pdf += l->pClear * r.pdf;
    }
    return fcos;
}

/* pbr_sample: pbrLobes.sample; returns ok. */
DEVFN int pbr_sample(const PBRLobes* l, const Material* m, vec3 n, vec3 wo, float lobe, float u1, float u2, vec3* dir, vec3* weight,
                     float* pdf) {
    float co = dot(n, wo);
    if (!(co > 0.0f)) {
        return 0;
    }
    vec3 d = v3(-wo.x, -wo.y, -wo.z);
    /* The clear coat takes lobe's first pClear, the base's lobes the
     * rest, stretched back to [0, 1). */
    int coat = l->clear > 0.0f && lobe < l->pClear;
    if (l->clear > 0.0f && !coat) {
        lobe = (lobe - l->pClear) / (1.0f - l->pClear);
    }
    /* The sheen takes the first pSheen of the rest, the base's lobes what
     * remains, stretched back to [0, 1). */
    /* The sheen's uniform_hemisphere and the diffuse base's
     * cosine_hemisphere go through one copy of their common part. */
    int hemi = 0;
    float r = 0.0f, z = 0.0f;
    if (!coat && l->pSheen >= 0.0f) {
        if (lobe < l->pSheen) {
            hemi = 1;
            z = u1;
            r = fm_sqrt(go_maxf(0.0f, 1.0f - (z * z)));
        } else {
            lobe = (lobe - l->pSheen) / (1.0f - l->pSheen);
        }
    }
    if (!hemi && !coat && lobe >= l->pSpec0) {
        hemi = 1;
        r = fm_sqrt(u1);
        z = fm_sqrt(go_maxf(0.0f, 1.0f - u1));
    }
    float alpha = l->alpha;
    if (coat) {
        alpha = l->clearAlpha;
    }
    if (hemi) {
        *dir = hemisphere_dir(n, r, z, u2);
    } else if (alpha < TR_GGX_MIN_ALPHA) {
        /* A mirror: the coat's, chosen with probability pClear, or the
         * base's, with probability pSpec0 (of the base's share, under
         * the coat). */
        float c5 = pow5(1.0f - clamp01(co));
        if (coat) {
            float f = (l->clear * clearcoat_f(c5)) / l->pClear;
            *weight = v3(f, f, f);
        } else {
            *weight = scale(schlick3(l->f0, l->f90, c5), 1.0f / l->pSpec0);
            if (l->pSheen >= 0.0f) {
                /* Under the sheen. */
                *weight = sheen_under(*weight, m, clamp01(co), l->pSheen);
            }
            if (l->clear > 0.0f) {
                *weight = scale(*weight, l->clearBase / (1.0f - l->pClear));
            }
        }
        *dir = reflect(d, n);
        *pdf = 0.0f;
        return 1;
    } else {
        *dir = reflect(d, ggx_sample_normal(n, wo, alpha, u1, u2));
    }
    vec3 fcos = pbr_eval(l, m, n, wo, *dir, pdf);
    if (!(*pdf > 0.0f)) {
        return 0;
    }
    *weight = v3(fcos.x / *pdf, fcos.y / *pdf, fcos.z / *pdf);
    return 1;
}

/* dielectric_eval: dielectricEval, f·cos θi of rough glass (the tint
 * aside) toward wi, its density *pdf and whether wi refracts
 * (*refracted). */
DEVFN float dielectric_eval(vec3 ns, vec3 wo, vec3 wi, float eta, float alpha, float* pdf, int* refracted) {
    float co = dot(ns, wo), cwi = dot(ns, wi);
    *pdf = 0.0f;
    *refracted = 0;
    if (!(co > 0.0f) || cwi == 0.0f) {
        return 0.0f;
    }
    int refr = cwi < 0.0f;
    vec3 h;
    if (refr) {
        h = normalize(madd(wi, wo, eta));
    } else {
        h = normalize(vadd(wo, wi));
    }
    float ch = dot(ns, h);
    if (ch < 0.0f) {
        h = v3(-h.x, -h.y, -h.z);
        ch = -ch;
    }
    float cosO = dot(wo, h), cosI = dot(wi, h);
    if (!(ch > 0.0f && cosO > 0.0f) || refr != (cosI < 0.0f) || cosI == 0.0f) {
        return 0.0f;
    }
    float a2 = alpha * alpha;
    float fr = fresnel_dielectric(go_minf(cosO, 1.0f), eta);
    /* D·(wo·h)·(dh/dwi)/cos θo, and the lobe's probability. */
    float common, sel;
    if (refr) {
        float den = (eta * cosO) + cosI;
        common = ((ggx_d(ch, a2) * cosO) * -cosI) / ((co * den) * den);
        sel = 1.0f - fr;
    } else {
        common = ggx_d(ch, a2) / (4.0f * co);
        sel = fr;
    }
    float fcos = ((sel * ggx_g2(co, absf(cwi), a2)) * common) / glass_albedo(co, alpha, eta);
    *pdf = fcos * glass_kept(co, alpha, eta);
    *refracted = refr;
    return fcos;
}

/* TR_GLASS_TRIES: glassTries, the most normals sample_dielectric draws. */
#define TR_GLASS_TRIES 8u

/* glass_retry: glassRetry, the numbers of try number try > 0. */
DEVFN_CALL void glass_retry(float lobe, float u1, float u2, u32 try_, float* l, float* v1, float* v2) {
    const float one = 16777216.0f;
    u32 k = hash32((u32)(lobe * one) ^ hash32((u32)(u1 * one) ^ hash32((u32)(u2 * one) + try_ * 0x9e3779b9u)));
    u32 k2 = hash32(k);
    *l = unit_float(k);
    *v1 = unit_float(k2);
    *v2 = unit_float(hash32(k2));
}

/* sample_dielectric: sampleDielectric; returns ok, with the direction,
 * the weight (the tint aside), whether it refracted and the density (0
 * for smooth glass). A try is kept with the probability G2/G1(ωo), from
 * what is left of its Fresnel choice's number. */
DEVFN int sample_dielectric(vec3 ns, vec3 d, float eta, float alpha, float lobe, float u1, float u2, vec3* dir,
                            float* weight, int* refracted, float* pdf) {
    float fr;
    vec3 refr;
    *refracted = 0;
    *pdf = 0.0f;
    if (alpha < TR_GGX_MIN_ALPHA) {
        int ok = refraction(d, ns, eta, &fr, &refr);
        *weight = 1.0f;
        if (!ok || lobe < fr) {
            *dir = reflect(d, ns);
        } else {
            *dir = refr;
            *refracted = 1;
        }
        return 1;
    }
    vec3 wo = v3(-d.x, -d.y, -d.z);
    float co = dot(ns, wo);
    if (!(co > 0.0f)) {
        return 0;
    }
    float a2 = alpha * alpha;
    float g1 = ggx_g1(co, a2);
    vec3 hn;
    float cosO, g2;
    for (u32 try_ = 0;; try_++) {
        if (try_ == TR_GLASS_TRIES) {
            *refracted = 0;
            return 0; /* no try kept: absorbed */
        }
        float l = lobe, v1 = u1, v2 = u2;
        if (try_ > 0) {
            glass_retry(lobe, u1, u2, try_, &l, &v1, &v2);
        }
        hn = ggx_sample_normal(ns, wo, alpha, v1, v2);
        cosO = dot(wo, hn);
        if (!(cosO > 0.0f)) {
            continue;
        }
        int through = refraction(d, hn, eta, &fr, &refr);
        float ci, keep;
        if (!through || l < fr) {
            *dir = reflect(d, hn);
            *refracted = 0;
            ci = dot(ns, *dir);
            keep = l / fr;
        } else {
            *dir = refr;
            *refracted = 1;
            ci = -dot(ns, *dir);
            keep = (l - fr) / (1.0f - fr);
        }
        if (!(ci > 0.0f)) {
            continue;
        }
        g2 = ggx_g2(co, ci, a2);
        if ((keep * g1) < g2) {
            break;
        }
    }
    /* dielectric_eval's f·cos θi and density, from the sampled normal. */
    float dh = ggx_d(dot(ns, hn), a2);
    float fcos;
    if (*refracted) {
        float cosI = dot(*dir, hn);
        float den = (eta * cosO) + cosI;
        fcos = ((1.0f - fr) * g2) * (((dh * cosO) * -cosI) / ((co * den) * den));
    } else {
        fcos = (fr * g2) * (dh / (4.0f * co));
    }
    float kept = glass_kept(co, alpha, eta);
    fcos = fcos / glass_albedo(co, alpha, eta);
    *pdf = fcos * kept;
    *weight = 1.0f / kept;
    return 1;
}

#endif /* TRACE_MICROFACET_H */
