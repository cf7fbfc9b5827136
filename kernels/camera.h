/* camera.h: camera rays, a port of tracer/camera.go's Camera.Ray. */
#ifndef TRACE_CAMERA_H
#define TRACE_CAMERA_H

#include "vec.h"

/* camera_ray: the ray through the image point (px, py), in pixels from the
 * top-left corner, with the lens sample (lu, lv). */
DEVFN Ray camera_ray(const Camera* c, float px, float py, float lu, float lv) {
    float sx = (((px / (float)c->Width) - 0.5f) * c->PlaneW) + c->ShiftX;
    float sy = ((0.5f - (py / (float)c->Height)) * c->PlaneH) + c->ShiftY;
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
