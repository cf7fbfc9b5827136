/*
 * sampler.h: texture coordinate sets, vertex colours and the wrap modes
 * and filters of image textures; a port of tracer/sampler.go and the
 * texCoords of tracer/surface.go.
 */
#ifndef TRACE_SAMPLER_H
#define TRACE_SAMPLER_H

#include "vec.h"

/* TexCoords is tracer's texCoords. */
typedef struct {
    float u, v;   /* coordinate set 0 */
    float u1, v1; /* coordinate set 1 */
    vec3 tint;    /* the vertex colour, else (1, 1, 1) */
} TexCoords;

/* shape_coords: shapeCoords. */
DEVFN TexCoords shape_coords(float u, float v) {
    TexCoords tc;
    tc.u = u;
    tc.v = v;
    tc.u1 = u;
    tc.v1 = v;
    tc.tint = v3(1.0f, 1.0f, 1.0f);
    return tc;
}

/* triangle_coords: Scene.triangleCoords, given tc->u, tc->v already set
 * (Scene.triangleUV): fills in set 1 and the tint. */
DEVFN void triangle_coords(const TraceScene* s, const TriangleAttr* a, float b1, float b2, TexCoords* tc) {
    tc->u1 = tc->u;
    tc->v1 = tc->v;
    tc->tint = v3(1.0f, 1.0f, 1.0f);
    if ((a->Flags & (TriangleUV1 | TriangleColor)) == 0) {
        return;
    }
    float b0 = (1.0f - b1) - b2;
    u32 i0 = a->V[0], i1 = a->V[1], i2 = a->V[2];
    if ((a->Flags & TriangleUV1) != 0) {
        const float *t0 = &s->UV1[2 * (i64)i0], *t1 = &s->UV1[2 * (i64)i1], *t2 = &s->UV1[2 * (i64)i2];
        tc->u1 = ((t0[0] * b0) + (t1[0] * b1)) + (t2[0] * b2);
        tc->v1 = ((t0[1] * b0) + (t1[1] * b1)) + (t2[1] * b2);
    }
    if ((a->Flags & TriangleColor) != 0) {
        tc->tint = madd(madd(scale(s->Colors[i0], b0), s->Colors[i1], b1), s->Colors[i2], b2);
    }
}

/* wrap_coord: wrapCoord, a texture coordinate mapped into [0, 1]. */
DEVFN float wrap_coord(float u, u32 m) {
    switch (m) {
    case WrapClamp:
        if (u > 1.0f) {
            u = 1.0f;
        } else if (!(u >= 0.0f)) {
            u = 0.0f;
        }
        break;
    case WrapMirror:
        u -= 2.0f * port_floorf(u * 0.5f);
        if (u > 1.0f) {
            u = 2.0f - u;
        }
        break;
    default:
        u -= port_floorf(u);
    }
    if (!(u >= 0.0f && u <= 1.0f)) {
        u = 0.0f;
    }
    return u;
}

/* wrap_index: repeatIndex, a texel index in [−1, n] wrapped into [0, n). */
DEVFN int wrap_index(int i, int n) {
    if (i < 0) {
        return i + n;
    }
    if (i >= n) {
        return i - n;
    }
    return i;
}

/* wrap_texel: wrapIndex, a texel index in [−1, n] mapped onto [0, n). */
DEVFN int wrap_texel(int i, int n, u32 m) {
    if (m == WrapClamp || m == WrapMirror) {
        return go_maxi(0, go_mini(i, n - 1));
    }
    return wrap_index(i, n);
}

/* texel: Scene.texel, texel (ix, iy) of image texture t. */
DEVFN vec3 texel(const TraceScene* s, const Texture* t, int ix, int iy) {
    i64 i = (i64)t->Offset + 3 * ((i64)iy * (i64)t->Width + (i64)ix);
    return v3(s->Texels[i], s->Texels[i + 1], s->Texels[i + 2]);
}

/* sample_wrapped: Scene.sampleWrapped, an image texture filtered at (u, v)
 * under its wrap modes and filter. */
DEVFN vec3 sample_wrapped(const TraceScene* s, const Texture* t, float u, float v) {
    int W = (int)t->Width, H = (int)t->Height;
    float w = (float)t->Width, h = (float)t->Height;
    u = wrap_coord(u, t->WrapS);
    v = wrap_coord(v, t->WrapT);
    if (t->Filter == FilterNearest) {
        int ix = wrap_texel((int)port_floorf(u * w), W, t->WrapS);
        int iy = wrap_texel((int)port_floorf((1.0f - v) * h), H, t->WrapT);
        return texel(s, t, ix, iy);
    }
    float x = (u * w) - 0.5f;
    float y = ((1.0f - v) * h) - 0.5f;
    float x0 = port_floorf(x), y0 = port_floorf(y);
    float fx = x - x0, fy = y - y0;
    int ix0 = (int)x0, iy0 = (int)y0; /* in [−1, W] and [−1, H] */
    int ix1 = wrap_texel(ix0 + 1, W, t->WrapS), iy1 = wrap_texel(iy0 + 1, H, t->WrapT);
    ix0 = wrap_texel(ix0, W, t->WrapS);
    iy0 = wrap_texel(iy0, H, t->WrapT);
    vec3 top = madd(scale(texel(s, t, ix0, iy0), 1.0f - fx), texel(s, t, ix1, iy0), fx);
    vec3 bottom = madd(scale(texel(s, t, ix0, iy1), 1.0f - fx), texel(s, t, ix1, iy1), fx);
    return madd(scale(top, 1.0f - fy), bottom, fy);
}

#endif /* TRACE_SAMPLER_H */
