/*
 * sheen.h: the sheen of a pbr material (KHR_materials_sheen's Charlie
 * distribution and visibility); a port of tracer/sheen.go's functions,
 * operation for operation. pbrLobes' newSheen and evalSheen are
 * microfacet.h's pbr_new_sheen and pbr_eval_sheen (it includes this).
 */
#ifndef TRACE_SHEEN_H
#define TRACE_SHEEN_H

#include "vec.h"
#include "fmath.h"
#include "ggx_albedo_gen.h"

/* sheenMinRough, and float32(1 / (1 − sheenMinRough)). */
#define TR_SHEEN_MIN_ROUGH 0.07f
#define TR_SHEEN_ROUGH_SCALE 1.0752689f

/* sheen_roughness: sheenRoughness. */
DEVFN float sheen_roughness(float rough) { return go_minf(go_maxf(rough, TR_SHEEN_MIN_ROUGH), 1.0f); }

/* sheen_d: sheenD. */
DEVFN float sheen_d(float c, float alpha) {
    float inv = 1.0f / alpha;
    float s2 = go_maxf(0.0f, 1.0f - (c * c));
    return ((2.0f + inv) * fm_pow(s2, 0.5f * inv)) * (0.5f * TR_INV_PI);
}

/* sheen_l: sheenL. */
DEVFN float sheen_l(float x, float t) {
    float a = 21.5473f + (3.7772f * t);
    float b = 3.82987f + (-0.50552f * t);
    float c = 0.19823f + (-0.03022f * t);
    float d = -1.97760f + (0.70367f * t);
    float e = -4.32054f + (-0.53913f * t);
    return ((a / (1.0f + (b * fm_pow(x, c)))) + (d * x)) + e;
}

/* sheen_lambda: sheenLambda (c taken as at most 1). */
DEVFN_CALL float sheen_lambda(float c, float alpha) {
    c = go_minf(c, 1.0f);
    float t = (1.0f - alpha) * (1.0f - alpha);
    if (c < 0.5f) {
        return fm_exp(sheen_l(c, t));
    }
    return fm_exp((2.0f * sheen_l(0.5f, t)) - sheen_l(1.0f - c, t));
}

/* sheen_albedo: sheenAlbedo, E of a white sheen of roughness rough at
 * cosine co (ggx_albedo_gen.h's sheen_e). */
DEVFN float sheen_albedo(float co, float rough) {
    const int n = TR_SHEEN_ALBEDO_N;
    float x = fm_sqrt(clamp01(co)) * (float)(n - 1);
    float y = ((sheen_roughness(rough) - TR_SHEEN_MIN_ROUGH) * TR_SHEEN_ROUGH_SCALE) * (float)(n - 1);
    int i = (int)x, j = (int)y;
    if (i > n - 2) {
        i = n - 2;
    }
    if (j > n - 2) {
        j = n - 2;
    }
    float tx = x - (float)i, ty = y - (float)j;
    int k = j * n + i;
    float a = sheen_e[k] + ((sheen_e[k + 1] - sheen_e[k]) * tx);
    float b = sheen_e[k + n] + ((sheen_e[k + n + 1] - sheen_e[k + n]) * tx);
    return a + ((b - a) * ty);
}

/* uniformHemisphere is in pbr_sample, through surface.h's hemisphere_dir
 * (cosine_hemisphere's common part, one copy for both). */

#endif /* TRACE_SHEEN_H */
