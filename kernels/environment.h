/*
 * environment.h: next-event estimation toward an image background; a port
 * of tracer/environment.go. The tables are built by tracer.Compile and
 * read here from s->Texels at s->Background.Distribution.
 */
#ifndef TRACE_ENVIRONMENT_H
#define TRACE_ENVIRONMENT_H

#include "surface.h"
#include "texture.h"
#include "alpha.h"

/* TR_TWO_PI_SQ: float32(2*pi*pi). */
#define TR_TWO_PI_SQ (TR_TWO_PI * TR_PI)

/* search_cdf: searchCDF over cdf[0..n), the bin of u and *f, u's place
 * inside it. */
DEVFN int search_cdf(const float* cdf, int n, float u, float* f) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u < cdf[mid]) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    float below = 0.0f;
    if (lo > 0) {
        below = cdf[lo - 1];
    }
    float x = (u - below) / (cdf[lo] - below);
    *f = go_minf(go_maxf(x, 0.0f), 0.99999994f);
    return lo;
}

/* bin_probability: binProbability. */
DEVFN float bin_probability(const float* cdf, int k) {
    if (k == 0) {
        return cdf[0];
    }
    return cdf[k] - cdf[k - 1];
}

/* sample_environment: Scene.sampleEnvironment, a direction and its density
 * *pdf (0 if unusable). */
DEVFN vec3 sample_environment(const TraceScene* s, float u1, float u2, float* pdf) {
    const Texture* t = &s->Textures[s->Background.Texture];
    int W = (int)t->Width, H = (int)t->Height;
    const float* rows = s->Texels + s->Background.Distribution;
    const float* cols = rows + H;
    float fy, fx;
    int j = search_cdf(rows, H, u1, &fy);
    const float* row = cols + (u64)j * (u64)W;
    int i = search_cdf(row, W, u2, &fx);
    float theta = TR_PI * ((float)j + fy) / (float)H;
    float phi = ((TR_TWO_PI * ((float)i + fx)) / (float)W) - TR_PI;
    float sinT = fm_sin(theta), cosT = fm_cos(theta);
    if (!(sinT > 0.0f)) {
        *pdf = 0.0f;
        return v3(0.0f, 0.0f, 0.0f);
    }
    vec3 dir = background_to_world(&s->Background, v3(-(sinT * fm_sin(phi)), cosT, sinT * fm_cos(phi)));
    float p = (bin_probability(rows, j) * bin_probability(row, i)) * (float)(W * H);
    *pdf = p / (TR_TWO_PI_SQ * sinT);
    return dir;
}

/* environment_pdf: Scene.environmentPdf. */
DEVFN float environment_pdf(const TraceScene* s, vec3 d) {
    const Texture* t = &s->Textures[s->Background.Texture];
    int W = (int)t->Width, H = (int)t->Height;
    const float* rows = s->Texels + s->Background.Distribution;
    const float* cols = rows + H;
    d = background_to_map(&s->Background, d);
    float sinT = fm_sqrt(go_maxf(0.0f, 1.0f - (d.y * d.y)));
    if (!(sinT > 0.0f)) {
        return 0.0f;
    }
    float u = (fm_atan2(-d.x, d.z) + TR_PI) / TR_TWO_PI;
    float v = fm_acos(go_maxf(-1.0f, go_minf(1.0f, d.y))) / TR_PI;
    if (!(u >= 0.0f)) {
        u = 0.0f;
    }
    if (!(v >= 0.0f)) {
        v = 0.0f;
    }
    int i = go_mini(go_maxi((int)go_minf(u * (float)W, 1e9f), 0), W - 1);
    int j = go_mini(go_maxi((int)go_minf(v * (float)H, 1e9f), 0), H - 1);
    float p = (bin_probability(rows, j) * bin_probability(cols + (u64)j * (u64)W, i)) * (float)(W * H);
    return p / (TR_TWO_PI_SQ * sinT);
}

/* environment_light_prepare: Scene.environmentLight up to its shadow ray.
 * It returns 1 when the light's contribution *value counts only if the
 * shadow ray *shadow (Scene.occludedSeen, fromLight 0) is not occluded, and 0
 * when *value is the contribution (black) without one. Out of line: with
 * pbr_eval_at, it keeps the spills of the pbr materials' dielectric
 * specular (kernels/README.md) small. */
DEVFN_CALL int environment_light_prepare(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 c, float u1,
                                         float u2, Ray* shadow, vec3* value) {
    *value = v3(0.0f, 0.0f, 0.0f);
    float pdf;
    vec3 dir = sample_environment(s, u1, u2, &pdf);
    if (!(pdf > 0.0f)) {
        return 0;
    }
    float bpdf;
    vec3 fcos = eval_scatter(s, sf, d, dir, c, &bpdf);
    if (vzero(fcos)) {
        return 0;
    }
    *shadow = spawn(sf->p, sf->ng, sf->eps, dir);
    float w = power_heuristic(pdf, bpdf) / pdf;
    *value = mul(fcos, scale(background(s, dir), w));
    return 1;
}

#endif /* TRACE_ENVIRONMENT_H */
