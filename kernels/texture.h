/*
 * texture.h: material colours, image filtering and the background; a port
 * of tracer/texture.go.
 */
#ifndef TRACE_TEXTURE_H
#define TRACE_TEXTURE_H

#include "vec.h"
#include "sampler.h"

/* sample_image: Scene.sampleImage, bilinear filtering at (u, v), repeating
 * in u, and in v unless clampV. */
DEVFN vec3 sample_image(const TraceScene* s, const Texture* t, float u, float v, int clampV) {
    float w = (float)t->Width, h = (float)t->Height;
    u -= port_floorf(u);
    if (!clampV) {
        v -= port_floorf(v);
    }
    if (!(u >= 0.0f && u <= 1.0f)) {
        u = 0.0f;
    }
    if (!(v >= 0.0f && v <= 1.0f)) {
        v = 0.0f;
    }
    float x = (u * w) - 0.5f;
    float y = ((1.0f - v) * h) - 0.5f;
    float x0 = port_floorf(x), y0 = port_floorf(y);
    float fx = x - x0, fy = y - y0;
    int ix0 = (int)x0, iy0 = (int)y0; /* in [−1, W−1] and [−1, H] */
    int ix1 = ix0 + 1, iy1 = iy0 + 1;
    int W = (int)t->Width, H = (int)t->Height;
    ix0 = wrap_index(ix0, W);
    ix1 = wrap_index(ix1, W);
    if (clampV) {
        iy0 = go_maxi(iy0, 0);
        iy1 = go_mini(iy1, H - 1);
    } else {
        iy0 = wrap_index(iy0, H);
        iy1 = wrap_index(iy1, H);
    }
    vec3 top = madd(scale(texel(s, t, ix0, iy0), 1.0f - fx), texel(s, t, ix1, iy0), fx);
    vec3 bottom = madd(scale(texel(s, t, ix0, iy1), 1.0f - fx), texel(s, t, ix1, iy1), fx);
    return madd(scale(top, 1.0f - fy), bottom, fy);
}

/* transform_uv: Texture.transformUV, (u, v) through t's UV transform. */
DEVFN void transform_uv(const Texture* t, float* u, float* v) {
    if (!(t->UV[0] == 0.0f && t->UV[1] == 0.0f && t->UV[2] == 0.0f && t->UV[3] == 0.0f && t->UV[4] == 0.0f &&
          t->UV[5] == 0.0f)) {
        float tu = ((t->UV[0] * *u) + (t->UV[1] * *v)) + t->UV[4];
        float tv = ((t->UV[2] * *u) + (t->UV[3] * *v)) + t->UV[5];
        *u = tu;
        *v = tv;
    }
}

/* texture_at: Scene.textureAt, texture ti's value at (u, v). */
DEVFN vec3 texture_at(const TraceScene* s, i32 ti, float u, float v) {
    const Texture* t = &s->Textures[ti];
    transform_uv(t, &u, &v);
    if (t->Kind == TextureImage) {
        if (t->WrapS != WrapRepeat || t->WrapT != WrapRepeat || t->Filter != FilterLinear) {
            return mul(sample_wrapped(s, t, u, v), t->Even);
        }
        return mul(sample_image(s, t, u, v, 0), t->Even); /* Even: the tint */
    }
    float f = port_floorf(u * t->Scale) + port_floorf(v * t->Scale);
    if (f - 2.0f * port_floorf(f * 0.5f) == 0.0f) {
        return t->Even;
    }
    return t->Odd;
}

/* texture_of: Scene.textureOf, texture ti's value at the coordinate set it
 * names. */
DEVFN vec3 texture_of(const TraceScene* s, i32 ti, const TexCoords* tc) {
    if (s->Textures[ti].TexCoord == 1u) {
        return texture_at(s, ti, tc->u1, tc->v1);
    }
    return texture_at(s, ti, tc->u, tc->v);
}

/* material_color: Scene.color, the material's colour at tc times the
 * vertex colour. */
DEVFN vec3 material_color(const TraceScene* s, const Material* m, const TexCoords* tc) {
    vec3 c = m->Color;
    if (m->Texture != NoTexture) {
        c = texture_of(s, m->Texture, tc);
    }
    return mul(c, tc->tint);
}

/* pbr_params: Scene.pbrParams, a metal's or pbr material's metallic and
 * roughness at tc. */
DEVFN void pbr_params(const TraceScene* s, const Material* m, const TexCoords* tc, float* metal, float* rough) {
    *metal = m->Metallic;
    *rough = m->Roughness;
    if (m->RoughMap != 0u) {
        vec3 c = texture_of(s, (i32)(m->RoughMap - 1u), tc);
        *metal = *metal * c.z;
        *rough = *rough * c.y;
    }
}

/* clearcoat_maps: the lookups of Scene.clearcoatParams, the clear coat
 * times ClearcoatMap's red and its roughness times
 * ClearcoatRoughnessMap's green at tc. Out of line: only materials with
 * the maps call it. */
DEVFN_CALL void clearcoat_maps(const TraceScene* s, const Material* m, const TexCoords* tc, float* clear, float* rough) {
    float c = *clear, r = *rough;
    if (m->ClearcoatMap != 0u) {
        c = c * texture_of(s, (i32)(m->ClearcoatMap - 1u), tc).x;
    }
    if (m->ClearcoatRoughnessMap != 0u) {
        r = r * texture_of(s, (i32)(m->ClearcoatRoughnessMap - 1u), tc).y;
    }
    *clear = c;
    *rough = r;
}

/* clearcoat_params: Scene.clearcoatParams, a pbr material's clear coat
 * and its roughness at tc (0 and 0 for the other materials). */
DEVFN void clearcoat_params(const TraceScene* s, const Material* m, const TexCoords* tc, float* clear, float* rough) {
    *clear = 0.0f;
    *rough = 0.0f;
    if (m->Kind != MaterialPBR) {
        return;
    }
    *clear = m->Clearcoat;
    *rough = m->ClearcoatRoughness;
    if ((m->ClearcoatMap | m->ClearcoatRoughnessMap) != 0u) {
        clearcoat_maps(s, m, tc, clear, rough);
    }
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

/* pbr_specular: pbrSpecular, the dielectric F0 and F90 of a material
 * with no specular of its own, and a metal's. */
DEVFN void pbr_specular(const Material* m, vec3* f0, float* f90) {
    if (m->Kind == MaterialPBR && m->DielectricSpecular != 0u) {
        *f0 = m->SpecularF0;
        *f90 = m->SpecularF90;
        return;
    }
    *f0 = v3(0.04f, 0.04f, 0.04f);
    *f90 = 1.0f;
}

/* specular_maps: the lookups of Scene.dielectricSpecular, F0 (clamped to
 * F90) times SpecularColorMap's colour and both times SpecularMap's
 * alpha at tc. Out of line: only materials with the maps call it. */
DEVFN_CALL void specular_maps(const TraceScene* s, const Material* m, const TexCoords* tc, vec3* f0, float* f90) {
    vec3 f = *f0;
    float g = *f90;
    if (m->SpecularColorMap != 0u) {
        vec3 t = texture_of(s, (i32)(m->SpecularColorMap - 1u), tc);
        f = v3(go_minf(f.x * t.x, g), go_minf(f.y * t.y, g), go_minf(f.z * t.z, g));
    }
    if (m->SpecularMap != 0u) {
        float a = texture_alpha(s, (i32)(m->SpecularMap - 1u), tc);
        f = scale(f, a);
        g = g * a;
    }
    *f0 = f;
    *f90 = g;
}

/* dielectric_specular: Scene.dielectricSpecular, a metal's or pbr
 * material's dielectric F0 and F90 at tc. */
DEVFN void dielectric_specular(const TraceScene* s, const Material* m, const TexCoords* tc, vec3* f0, float* f90) {
    pbr_specular(m, f0, f90);
    if (m->Kind != MaterialPBR || m->DielectricSpecular == 0u || (m->SpecularMap | m->SpecularColorMap) == 0u) {
        return;
    }
    specular_maps(s, m, tc, f0, f90);
}

/* emission: Scene.emission, a pbr material's emitted radiance at tc. */
DEVFN vec3 emission(const TraceScene* s, const Material* m, const TexCoords* tc) {
    if (m->EmissionMap == 0u) {
        return m->Emission;
    }
    return mul(m->Emission, texture_of(s, (i32)(m->EmissionMap - 1u), tc));
}

/* background_rotated: Background.Rotated (tracer/desc.go). */
DEVFN int background_rotated(const Background* b) {
    return b->Rotation[0].x != 0.0f || b->Rotation[0].y != 0.0f || b->Rotation[0].z != 0.0f;
}

/* background_to_map: Background.toMap (tracer/environment.go), the world
 * direction d in the frame of the background's map. */
DEVFN vec3 background_to_map(const Background* b, vec3 d) {
    if (!background_rotated(b)) {
        return d;
    }
    return v3(dot(b->Rotation[0], d), dot(b->Rotation[1], d), dot(b->Rotation[2], d));
}

/* background_to_world: Background.toWorld, the direction m of the map's
 * frame in the world. */
DEVFN vec3 background_to_world(const Background* b, vec3 m) {
    if (!background_rotated(b)) {
        return m;
    }
    return madd(madd(scale(b->Rotation[0], m.x), b->Rotation[1], m.y), b->Rotation[2], m.z);
}

/* background: Scene.background, the radiance along the unit direction d of
 * a ray that leaves the scene. */
DEVFN vec3 background(const TraceScene* s, vec3 d) {
    const Background* b = &s->Background;
    switch (b->Kind) {
    case BackgroundGradient: {
        float t = 0.5f * (d.y + 1.0f);
        return madd(scale(b->Bottom, 1.0f - t), b->Top, t);
    }
    case BackgroundImage: {
        d = background_to_map(b, d);
        float u = (fm_atan2(-d.x, d.z) + TR_PI) / TR_TWO_PI;
        float v = 1.0f - fm_acos(go_maxf(-1.0f, go_minf(1.0f, d.y))) / TR_PI;
        return sample_image(s, &s->Textures[b->Texture], u, v, 1);
    }
    }
    return b->Color;
}

/* emitted: Scene.emitted, the radiance an emissive material sends out. */
DEVFN vec3 emitted(const TraceScene* s, const Material* m, const TexCoords* tc) {
    return scale(material_color(s, m, tc), m->Intensity);
}

#endif /* TRACE_TEXTURE_H */
