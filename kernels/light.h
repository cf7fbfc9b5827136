/*
 * light.h: point and directional lights and next-event estimation toward
 * emitters (emissive and emitting pbr surfaces) and image backgrounds, with
 * multiple importance sampling; a port of tracer/light.go.
 */
#ifndef TRACE_LIGHT_H
#define TRACE_LIGHT_H

#include "environment.h"
#include "spherical.h"

/* spot_factor: spotFactor, the share of l's intensity toward a point in
 * the unit direction dir from the point to the light. */
DEVFN float spot_factor(const PointLight* l, vec3 dir) {
    if (vzero(l->SpotDir)) {
        return 1.0f;
    }
    float cd = -dot(l->SpotDir, dir);
    float a = clamp01((cd * l->SpotScale) + l->SpotOffset);
    return a * a;
}

/* light_ray: lightRay, the shadow ray from p toward light l, the unit
 * direction *dir toward it and its distance *dist (TR_INFINITY for a
 * directional light). */
DEVFN Ray light_ray(const PointLight* l, vec3 p, vec3 n, float eps, vec3* dir, float* dist) {
    if (l->Falloff == FalloffDirectional) {
        *dir = l->Position;
        *dist = TR_INFINITY;
        return spawn(p, n, eps, l->Position);
    }
    return spawn_to(p, n, eps, l->Position, dir, dist);
}

/* point_light_radiance: pointLightRadiance. */
DEVFN vec3 point_light_radiance(const PointLight* l, float dist, float spot) {
    vec3 li = scale(l->Color, l->Intensity * spot);
    if (l->Falloff == FalloffInverseSquare) {
        float d2 = dist * dist;
        li = v3(li.x / d2, li.y / d2, li.z / d2);
    }
    return li;
}

/* sunDims, sunDimension: the sampler's dimensions of the sun disks, past
 * every bounce's (tracer/light.go): TR_CAMERA_DIMS + (MaxDepth + 1) ×
 * TR_BOUNCE_DIMS, which path.h checks. */
#define TR_SUN_DIMS 589u
DEVFN u32 sun_dimension(int depth, u32 i) { return TR_SUN_DIMS + 2u * (i * (u32)(MaxDepth + 1) + (u32)depth); }

/* sample_sun_disk: sampleSunDisk, a direction uniform in the cone about w
 * whose directions have 1 − cos θ ≤ omc. */
DEVFN vec3 sample_sun_disk(vec3 w, float omc, float u1, float u2) {
    float s = u1 * omc;
    float sinT = fm_sqrt(go_maxf(0.0f, s * (2.0f - s)));
    vec3 t, b;
    orthonormal(w, &t, &b);
    float phi = TR_TWO_PI * u2;
    return normalize(madd(madd(scale(w, 1.0f - s), t, sinT * fm_cos(phi)), b, sinT * fm_sin(phi)));
}

/* sun_radiance_scale: sunRadianceScale. */
DEVFN float sun_radiance_scale(float omc) { return 2.0f / (2.0f - omc); }

/* The light tree (tracer/lighttree.go): light_importance is
 * LightNode.importance, child_pick Scene.childPick, pick_light
 * Scene.pickLight, light_pick Scene.lightPick, emitter_of Scene.emitterOf,
 * the same operations in the same order. */
#define TR_LIGHT_ONE_MINUS_EPSILON 0x1.fffffep-1f

/* cos_sub_clamped, sin_sub_clamped: cosSubClamped, sinSubClamped. */
DEVFN float cos_sub_clamped(float sinA, float cosA, float sinB, float cosB) {
    if (cosA > cosB) {
        return 1.0f;
    }
    return (cosA * cosB) + (sinA * sinB);
}
DEVFN float sin_sub_clamped(float sinA, float cosA, float sinB, float cosB) {
    if (cosA > cosB) {
        return 0.0f;
    }
    return (sinA * cosB) - (cosA * sinB);
}

/* safe_sqrt_1m: safeSqrt1m, sqrt(1 - c*c) and 0 below. */
DEVFN float safe_sqrt_1m(float c) { return fm_sqrt(go_maxf(0.0f, 1.0f - c * c)); }

/* light_importance: LightNode.importance, the estimate of the light the
 * emitters under node n send to p, on a surface of unit normal nrm (zero:
 * none). Out of line: inline, its temporaries made wf_shade and
 * trace_pixels_path spill 4 to 8 B at 168 registers. */
DEVFN_CALL float light_importance(const LightNode* n, vec3 p, vec3 nrm) {
    vec3 c = n->Center;
    float dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
    float dist2 = ((dx * dx) + (dy * dy)) + (dz * dz);
    float radius = n->Radius;
    float d2 = go_maxf(dist2, radius);
    float dist = 0.0f, cosW = 1.0f;
    if (dist2 > 0.0f) {
        dist = fm_sqrt(dist2);
        vec3 a = n->Axis;
        cosW = (((a.x * dx) + (a.y * dy)) + (a.z * dz)) / dist;
    }
    if (n->Flags & LightTwoSided) {
        cosW = absf(cosW);
    }
    float sinW = safe_sqrt_1m(cosW);
    float r2 = radius * radius;
    float cosB = -1.0f, sinB = 0.0f;
    if (dist2 > r2) {
        float sin2 = r2 / dist2;
        cosB = fm_sqrt(go_maxf(0.0f, 1.0f - sin2));
        sinB = fm_sqrt(sin2);
    }
    float sinT = n->SinTheta, cosT = n->CosTheta;
    float cosX = cos_sub_clamped(sinW, cosW, sinT, cosT);
    float sinX = sin_sub_clamped(sinW, cosW, sinT, cosT);
    float cosP = cos_sub_clamped(sinX, cosX, sinB, cosB);
    if (!(cosP > n->CosThetaE)) { /* past θo + θe */
        return 0.0f;
    }
    float imp = (n->Power * cosP) / d2;
    if (dist > 0.0f && !vzero(nrm)) {
        float cosI = absf((((nrm.x * dx) + (nrm.y * dy)) + (nrm.z * dz)) / dist);
        float cosPI = cos_sub_clamped(safe_sqrt_1m(cosI), cosI, sinB, cosB);
        if (!(cosPI > 0.0f)) {
            return 0.0f;
        }
        imp = imp * cosPI;
    }
    return imp;
}

/* child_pick: Scene.childPick, the probability that the inner node i
 * sends a pick from p (normal nrm) to its first child (not in [0, 1]:
 * none). */
DEVFN float child_pick(const TraceScene* s, u32 i, vec3 p, vec3 nrm) {
    float i0 = light_importance(&s->LightNodes[i + 1u], p, nrm);
    float i1 = light_importance(&s->LightNodes[s->LightNodes[i].Ref], p, nrm);
    return i0 / (i0 + i1);
}

/* LightPick: an emitter (-1: none; NumEmitters + i: light i, a point or
 * spot light in the tree) and the probability it was picked with. */
typedef struct {
    int k;
    float pick;
} LightPick;

/* pick_light: Scene.pickLight, the emitter the light tree picks for the
 * point sf->p (normal sf->ng) with u in [0, 1), and its probability (0, emitter -1: none). Out of
 * line: its loop's temporaries do not add to the shading loop's
 * registers. */
DEVFN_CALL LightPick pick_light(const TraceScene* s, const SurfaceHit* sf, float u) {
    vec3 p = sf->p, nrm = sf->ng;
    u32 i = 0u;
    float pk = 1.0f;
    LightPick r;
    for (;;) {
        const LightNode* n = &s->LightNodes[i];
        if (n->Flags & LightLeaf) {
            r.k = (n->Flags & LightPoint) ? (int)(s->NumEmitters + n->Ref) : (int)n->Ref;
            r.pick = pk;
            return r;
        }
        float p0 = child_pick(s, i, p, nrm);
        if (!(p0 >= 0.0f)) {
            r.k = -1;
            r.pick = 0.0f;
            return r;
        }
        if (u < p0) {
            u = go_minf(u / p0, TR_LIGHT_ONE_MINUS_EPSILON);
            pk = pk * p0;
            i++;
        } else {
            u = go_minf((u - p0) / (1.0f - p0), TR_LIGHT_ONE_MINUS_EPSILON);
            pk = pk * (1.0f - p0);
            i = n->Ref;
        }
    }
}

/* light_pick: Scene.lightPick, the probability that pick_light picks
 * emitter k at p (normal nrm), following its Trail. */
DEVFN float light_pick(const TraceScene* s, vec3 p, vec3 nrm, u32 k) {
    u32 trail = s->Emitters[k].Trail;
    u32 i = 0u;
    float pk = 1.0f;
    for (;;) {
        const LightNode* n = &s->LightNodes[i];
        if (n->Flags & LightLeaf) {
            return pk;
        }
        float p0 = child_pick(s, i, p, nrm);
        if (!(p0 >= 0.0f)) {
            return 0.0f;
        }
        if ((trail & 1u) == 0u) {
            pk = pk * p0;
            i++;
        } else {
            pk = pk * (1.0f - p0);
            i = n->Ref;
        }
        trail >>= 1;
    }
}

/* emitter_of: Scene.emitterOf, the index in Emitters of the triangle or
 * shape of the kind and index given, or -1. */
DEVFN int emitter_of(const TraceScene* s, u32 kind, u32 index) {
    u32 lo = 0u, hi = s->NumEmitters;
    while (lo < hi) {
        u32 mid = (lo + hi) >> 1;
        Emitter e = s->Emitters[mid];
        if (e.Kind < kind || (e.Kind == kind && e.Index < index)) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    if (lo < s->NumEmitters && s->Emitters[lo].Kind == kind && s->Emitters[lo].Index == index) {
        return (int)lo;
    }
    return -1;
}

/* emitter_pick: Scene.emitterPick, the probability that pick_light at p
 * (normal nrm) picks the triangle or shape of the kind and index given (0: no
 * emitter). */
DEVFN float emitter_pick(const TraceScene* s, vec3 p, vec3 nrm, u32 kind, u32 index) {
    int k = emitter_of(s, kind, index);
    if (k < 0) {
        return 0.0f;
    }
    return light_pick(s, p, nrm, (u32)k);
}

/* on_emitter: onEmitter, whether the hit at is on the emitter of the kind
 * and index given. */
DEVFN int on_emitter(const Hit* at, u32 kind, u32 index) { return at->Kind == kind && at->Index == index; }

/* area_to_solid_angle: areaToSolidAngle. */
DEVFN float area_to_solid_angle(float pdf, vec3 p, vec3 q, vec3 n) {
    vec3 d = vsub(q, p);
    float d2 = dot(d, d);
    float cos = absf(dot(n, d)) / fm_sqrt(d2);
    if (!(cos > 0.0f)) {
        return 0.0f;
    }
    return (pdf * d2) / cos;
}

/* sample_emitter: Scene.sampleEmitter, a point of emitter e (picked with
 * probability pick) seen from p (on the surface of hit at), its unit
 * normal, its solid-angle density *pdf, material and surface
 * coordinates. */
DEVFN vec3 sample_emitter(const TraceScene* s, Emitter e, float pick, vec3 p, const Hit* at, float u1, float u2,
                          vec3* n, float* pdf, const Material** m, TexCoords* tc) {
    vec3 q;
    float area;
    const Triangle* tr = 0;
    const Shape* sh = 0;
    if (e.Kind == HitTriangle) {
        tr = &s->Triangles[e.Index];
        *m = &s->Materials[s->TriangleAttrs[e.Index].Material];
        *n = normalize(cross(tr->E1, tr->E2));
        area = triangle_area(tr);
    } else {
        sh = &s->Shapes[e.Index];
        *m = &s->Materials[sh->Material];
        *n = sh->N;
        area = sh->Area;
    }
    if (!((*m)->LightPDF > 0.0f)) {
        pick = 0.0f;
    }
    if (sh) {
        if (sh->Kind == ShapeSphere) {
            vec3 cq, cn;
            float cpdf;
            if (sample_sphere_cone(sh->P0, sh->P1.x, p, u1, u2, &cq, &cn, &cpdf) && !on_emitter(at, e.Kind, e.Index)) {
                float u, v;
                shape_surface(sh, cq, 0.0f, 0.0f, &u, &v);
                *tc = shape_coords(u, v);
                *n = cn;
                *pdf = pick * cpdf;
                return cq;
            }
            float b1, b2;
            q = shape_sample_point(sh, u1, u2, n, &b1, &b2);
            float u, v;
            shape_surface(sh, q, b1, b2, &u, &v);
            *tc = shape_coords(u, v);
            *pdf = area_to_solid_angle(pick / area, p, q, *n);
            return q;
        }
    }
    /* A triangle or a quad: by solid angle from close by, else by area. */
    float b1, b2, omega, first;
    /* The pick's share of the density is worked out before the point is
     * sampled, the same operations as Go's after: pick and area are then
     * not live across the sampling. */
    if (flat_solid_angle(s, e.Kind, e.Index, area, p, &omega, &first)) {
        float dens = pick / omega;
        if (!sample_flat_by_solid_angle(s, e, p, omega, first, u1, u2, &q, &b1, &b2)) {
            *pdf = 0.0f;
            *tc = shape_coords(0.0f, 0.0f);
            return q;
        }
        *pdf = dens;
    } else {
        float dens = pick / area;
        if (tr) {
            q = triangle_sample_point(tr, u1, u2, &b1, &b2);
        } else {
            q = shape_sample_point(sh, u1, u2, n, &b1, &b2);
        }
        *pdf = area_to_solid_angle(dens, p, q, *n);
    }
    if (tr) {
        /* Scene.triangleCoords, by way of surface_at. */
        Hit h = hit(0.0f, HitTriangle, e.Index, b1, b2);
        Ray r = ray(q, v3(0.0f, 0.0f, 0.0f), 0.0f);
        SurfaceHit sf = surface_at(s, &r, &h);
        *tc = sf.tc;
    } else {
        *tc = shape_coords(b1, b2); /* a quad's (u, v) are its edge fractions */
    }
    return q;
}

/* emitter_pdf: Scene.emitterPdf, the density with which emitter_light from
 * p (on the surface of hit at, geometric normal nrm) picks the point of the emissive surface sf
 * (hit h). */
DEVFN_CALL float emitter_pdf(const TraceScene* s, vec3 p, vec3 nrm, const Hit* at, const SurfaceHit* sf,
                             const Hit* h) {
    if (!(sf->m->LightPDF > 0.0f)) {
        return 0.0f;
    }
    float pick = emitter_pick(s, p, nrm, h->Kind, h->Index);
    if (!(pick > 0.0f)) {
        return 0.0f;
    }
    float area;
    if (h->Kind == HitShape) {
        const Shape* sh = &s->Shapes[h->Index];
        if (sh->Kind == ShapeSphere) {
            float cpdf;
            if (sphere_cone_pdf(sh->P0, sh->P1.x, p, &cpdf) && !on_emitter(at, h->Kind, h->Index)) {
                return pick * cpdf;
            }
            /* Seen from inside or from itself, sampled by area
             * (sample_emitter). */
            return area_to_solid_angle(pick / sh->Area, p, sf->p, sf->ng);
        }
        area = sh->Area;
    } else {
        area = triangle_area(&s->Triangles[h->Index]);
    }
    float omega, first;
    if (flat_solid_angle(s, h->Kind, h->Index, area, p, &omega, &first)) {
        return pick / omega;
    }
    return area_to_solid_angle(pick / area, p, sf->p, sf->ng);
}

/* emitter_radiance: Scene.emitterRadiance, the radiance a surface of the
 * emitting material m sends out at tc: emitted for an emissive material,
 * emission for a pbr one. */
DEVFN vec3 emitter_radiance(const TraceScene* s, const Material* m, const TexCoords* tc) {
    if (m->Kind == MaterialPBR) {
        return emission(s, m, tc);
    }
    return emitted(s, m, tc);
}

/* tree_light_prepare: Scene.treeLight up to its shadow ray, for the
 * point or spot light l that pick_light picked with probability pick:
 * emitter_light_prepare's answer, 2 for a shadow ray from the point to the
 * light (fromLight 0, the lights' alpha stream). Out of line: rarely run
 * beside the emitters' code. */
DEVFN_CALL int tree_light_prepare(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 c, const PointLight* l, float pick, Ray* shadow,
                                  vec3* value) {
    vec3 dir;
    float dist;
    Ray r = light_ray(l, sf->p, sf->ng, sf->eps, &dir, &dist);
    float spot = spot_factor(l, dir);
    if (!(spot > 0.0f)) {
        return 0;
    }
    float pdf;
    vec3 fcos = eval_scatter(s, sf, d, dir, c, &pdf);
    if (vzero(fcos)) {
        return 0;
    }
    *shadow = r;
    vec3 li = point_light_radiance(l, dist, spot);
    *value = mul(fcos, v3(li.x / pick, li.y / pick, li.z / pick));
    return 2;
}

/* point_light_prepare: directLight's term for light i, l, at the surface
 * sf seen along d, of colour c, at the path's vertex depth, up to its
 * shadow ray: 0 when it casts none (outside a spot light's cone, or the
 * surface scatters none of it toward the camera), else 1 with the shadow
 * ray *shadow (fromLight 0, the lights' alpha stream), f·cos θ toward the
 * light *fcos and its radiance *li, which count when the ray is not
 * occluded. A sun of finite disk samples its direction at its own
 * dimensions of rng and leaves rng where it was. Out of line: inline in
 * direct_step, where the point and spot lights of the light tree
 * (tree_light_prepare) and the pbr materials' dielectric specular
 * (pbr_eval_at) met, it took path_step's registers so high that wf_shade
 * and trace_pixels_path spilled what they keep across the call
 * (kernels/README.md). */
DEVFN_CALL int point_light_prepare(const TraceScene* s, const SurfaceHit* sf, vec3 d, vec3 c, const PointLight* l, u32 i, int depth,
                                   Sampler* rng, Ray* shadow, vec3* fcos, vec3* li) {
    vec3 pp = sf->p, n = sf->ng;
    vec3 dir;
    float dist;
    Ray r = light_ray(l, pp, n, sf->eps, &dir, &dist);
    int sun = l->Falloff == FalloffDirectional && l->DiskOneMinusCos > 0.0f;
    if (sun) {
        u32 base = rng->dim;
        sampler_set_dimension(rng, sun_dimension(depth, i));
        float u1, u2;
        sampler_float2(rng, &u1, &u2);
        sampler_set_dimension(rng, base);
        dir = sample_sun_disk(l->Position, l->DiskOneMinusCos, u1, u2);
        r = spawn(pp, n, sf->eps, dir);
    }
    float spot = spot_factor(l, dir);
    if (!(spot > 0.0f)) {
        return 0;
    }
    float pdf;
    vec3 f = eval_scatter(s, sf, d, dir, c, &pdf);
    if (vzero(f)) {
        return 0;
    }
    vec3 radiance = point_light_radiance(l, dist, spot);
    if (sun) {
        radiance = scale(radiance, sun_radiance_scale(l->DiskOneMinusCos));
    }
    *shadow = r;
    *fcos = f;
    *li = radiance;
    return 1;
}

/* emitter_light_prepare: Scene.emitterLight up to its shadow ray, for the
 * emitter lp that pick_light picked (direct_step calls it first: so
 * called, no register of the shading loop spills). It
 * returns 1 when the contribution *value counts only if the shadow ray
 * *shadow (Scene.occludedSeen, fromLight 1) is not occluded, 2 the same
 * for a light in the tree (tree_light_prepare), and 0 when *value
 * is the contribution (black) without one. */
DEVFN int emitter_light_prepare(const TraceScene* s, const SurfaceHit* sf, const Hit* at, vec3 d, vec3 c, LightPick lp,
                                float u1, float u2, Ray* shadow, vec3* value) {
    *value = v3(0.0f, 0.0f, 0.0f);
    float pick = lp.pick;
    if (!(pick > 0.0f)) {
        return 0;
    }
    if ((u32)lp.k >= s->NumEmitters) {
        return tree_light_prepare(s, sf, d, c, &s->Lights[(u32)lp.k - s->NumEmitters], pick, shadow, value);
    }
    Emitter e = s->Emitters[lp.k];
    vec3 nl;
    float pdf;
    const Material* m;
    TexCoords etc;
    vec3 q = sample_emitter(s, e, pick, sf->p, at, u1, u2, &nl, &pdf, &m, &etc);
    if (!(pdf > 0.0f)) {
        return 0;
    }
    vec3 dq = vsub(q, sf->p);
    float dist = length(dq);
    vec3 dir = v3(dq.x / dist, dq.y / dist, dq.z / dist);
    float bpdf;
    vec3 fcos = eval_scatter(s, sf, d, dir, c, &bpdf);
    if (vzero(fcos)) {
        return 0;
    }
    float alpha = 1.0f;
    if (see_through(m)) {
        alpha = emitter_alpha(s, m, sf->p, q, nl, &etc);
        if (!(alpha > 0.0f)) {
            return 0;
        }
    }
    *shadow = shadow_ray_from(q, nl, sf->p, sf->ng, sf->eps);
    float w = power_heuristic(pdf, bpdf) / pdf;
    if (alpha != 1.0f) {
        w = w * alpha;
    }
    *value = mul(fcos, scale(emitter_radiance(s, m, &etc), w));
    return 1;
}

/* direct_light's stages (PathState.dlStage). */
#define TR_DIRECT_LIGHTS 0u
#define TR_DIRECT_LIGHT_WAIT 1u
#define TR_DIRECT_EMITTER 2u
#define TR_DIRECT_EMITTER_WAIT 3u
#define TR_DIRECT_ENV 4u
#define TR_DIRECT_ENV_WAIT 5u
#define TR_DIRECT_DONE 6u

/* direct_begin: starts direct_light at the surface p->sf of the hit p->h,
 * seen along p->r, of colour p->c. */
DEVFN void direct_begin(PathState* p) {
    p->sum = v3(0.0f, 0.0f, 0.0f);
    p->light = 0u;
    p->dlStage = TR_DIRECT_LIGHTS;
}

/* direct_step: Scene.directLight as a state machine (pathstate.h): it
 * returns 1 when it has asked p->q a query, and 0 at the end, p->sum then
 * the direct light. The sum's terms are added in Go's order: each light's
 * in light order (but those in the light tree: TreeLights), then the
 * light tree's pick (an emitter or a point or spot light), then the
 * background's. It uses the
 * next five dimensions of p->rng and leaves it at the sixth. */
DEVFN int direct_step(const TraceScene* s, PathState* p, u64* rays) {
    const SurfaceHit* sf = &p->sf;
    vec3 d = p->r.Dir;
    Sampler* rng = &p->rng;
    int depth = p->depth;
    for (;;) {
        switch (p->dlStage) {
        case TR_DIRECT_LIGHTS:
            for (; p->light < s->NumLights; p->light++) {
                u32 i = p->light;
                const PointLight* l = &s->Lights[i];
                if (s->TreeLights && l->Falloff == FalloffInverseSquare) {
                    continue; /* picked from the light tree below */
                }
                Ray r;
                vec3 fcos, li;
                if (!point_light_prepare(s, sf, d, p->c, l, i, depth, rng, &r, &fcos, &li)) {
                    continue; /* outside a spot light's cone, or no scattering toward it: no shadow ray */
                }
                (*rays)++;
                p->fcos = fcos;
                p->li = li;
                occluded_begin(&p->seen, r, alpha_stream(depth, TR_ALPHA_RAY_LIGHT), 0, &p->q);
                p->dlStage = TR_DIRECT_LIGHT_WAIT;
                return 1;
            }
            p->dlStage = TR_DIRECT_EMITTER;
            break;
        case TR_DIRECT_LIGHT_WAIT: {
            int occluded;
            if (occluded_resume(s, &p->seen, rng, &p->q, rays, &occluded)) {
                return 1;
            }
            if (!occluded) {
                p->sum = maddv(p->sum, p->fcos, p->li);
            }
            p->light++;
            p->dlStage = TR_DIRECT_LIGHTS;
            break;
        }
        case TR_DIRECT_EMITTER:
            p->dlBase = rng->dim;
            p->dlStage = TR_DIRECT_ENV;
            if (s->NumEmitters > 0 || s->TreeLights) {
                LightPick lp = pick_light(s, sf, sampler_float(rng));
                float u1, u2;
                sampler_float2(rng, &u1, &u2);
                Ray r;
                vec3 value;
                int kind = emitter_light_prepare(s, sf, &p->h, d, p->c, lp, u1, u2, &r, &value);
                if (kind) {
                    (*rays)++;
                    p->li = value;
                    /* An emitter's shadow ray runs from the light, a tree light's to it. */
                    int fromLight = kind == 1;
                    occluded_begin(&p->seen, r, alpha_stream(depth, fromLight ? TR_ALPHA_RAY_EMITTER : TR_ALPHA_RAY_LIGHT),
                                   fromLight, &p->q);
                    p->dlStage = TR_DIRECT_EMITTER_WAIT;
                    return 1;
                }
                p->sum = vadd(p->sum, value);
            }
            break;
        case TR_DIRECT_EMITTER_WAIT:
        case TR_DIRECT_ENV_WAIT: {
            int occluded;
            if (occluded_resume(s, &p->seen, rng, &p->q, rays, &occluded)) {
                return 1;
            }
            p->sum = vadd(p->sum, occluded ? v3(0.0f, 0.0f, 0.0f) : p->li);
            p->dlStage = p->dlStage == TR_DIRECT_EMITTER_WAIT ? TR_DIRECT_ENV : TR_DIRECT_DONE;
            break;
        }
        case TR_DIRECT_ENV:
            p->dlStage = TR_DIRECT_DONE;
            if (s->Background.Kind == BackgroundImage && s->Background.Distribution != 0) {
                sampler_set_dimension(rng, p->dlBase + 3u);
                float e1, e2;
                sampler_float2(rng, &e1, &e2);
                Ray r;
                vec3 value;
                if (environment_light_prepare(s, sf, d, p->c, e1, e2, &r, &value)) {
                    (*rays)++;
                    p->li = value;
                    occluded_begin(&p->seen, r, alpha_stream(depth, TR_ALPHA_RAY_ENV), 0, &p->q);
                    p->dlStage = TR_DIRECT_ENV_WAIT;
                    return 1;
                }
                p->sum = vadd(p->sum, value);
            }
            break;
        default: /* TR_DIRECT_DONE */
            sampler_set_dimension(rng, p->dlBase + 5u);
            return 0;
        }
    }
}

#endif /* TRACE_LIGHT_H */
