/* camera.h: camera rays, a port of tracer/camera.go's Camera.Ray. */
#ifndef TRACE_CAMERA_H
#define TRACE_CAMERA_H

#include "vec.h"

/* FilterTableSize: the entries of Camera.FilterTable (its length in the
 * generated declaration). */
#define FILTER_TABLE_SIZE ((int)(sizeof(((const Camera*)0)->FilterTable) / sizeof(float)))

/* filter_offset: the offset from a pixel's centre, in pixels, of a sample
 * whose number is u in [0, 1) under the pixel filter's table t: a port of
 * tracer/filter.go's filterOffset. */
DEVFN float filter_offset(const float* t, float u) {
    float v = u * (float)(FILTER_TABLE_SIZE - 1);
    int i = (int)v;
    if (i > FILTER_TABLE_SIZE - 2) i = FILTER_TABLE_SIZE - 2;
    float f = v - (float)i;
    return t[i] + f * (t[i + 1] - t[i]);
}

/* pixel_point: the image point of a sample of pixel (x, y) whose numbers
 * for the position are (jx, jy), of the n of the pixel: a port of
 * tracer/camera.go's Camera.pixelPoint. */
DEVFN void pixel_point(const Camera* c, u32 x, u32 y, float jx, float jy, int n, float* px, float* py) {
    *px = (float)x + 0.5f;
    *py = (float)y + 0.5f;
    if (n == 1) return;
    if (c->Filtered != 0u) {
        *px = *px + filter_offset(c->FilterTable, jx);
        *py = *py + filter_offset(c->FilterTable, jy);
        return;
    }
    *px = (float)x + jx;
    *py = (float)y + jy;
}

/* camera_ray: the ray through the image point (px, py), in pixels from the
 * top-left corner, with the lens sample (lu, lv). */
DEVFN Ray camera_ray(const Camera* c, float px, float py, float lu, float lv) {
    float sx = (((px / (float)c->Width) - 0.5f) * c->PlaneW) + c->ShiftX;
    float sy = ((0.5f - (py / (float)c->Height)) * c->PlaneH) + c->ShiftY;
    if (c->Ortho != 0u) {
        return ray(madd(madd(c->Eye, c->Right, sx), c->Up, sy), c->Forward, TR_INFINITY);
    }
    vec3 d = madd(madd(c->Forward, c->Right, sx), c->Up, sy);
    if (c->LensR == 0.0f) {
        return ray(c->Eye, normalize(d), TR_INFINITY);
    }
    vec3 focus = madd(c->Eye, d, c->FocusDst);
    float r = c->LensR * fm_sqrt(lu);
    float phi = TR_TWO_PI * lv;
    float ox = r * fm_cos(phi);
    float oy = r * fm_sin(phi);
    vec3 o = madd(madd(c->Eye, c->Right, ox), c->Up, oy);
    return ray(o, normalize(vsub(focus, o)), TR_INFINITY);
}

#endif /* TRACE_CAMERA_H */
