/*
 * fmath.h: the project's own float32 transcendental functions, a line-for-
 * line port of tracer/fmath/fmath.go (read its package comment for the
 * algorithms and their accuracy). The Go and the C must stay identical:
 * same constants, same operations in the same order, every product rounded
 * on its own. Go writes a rounded product float32(a*b); here a*b is rounded
 * because contraction is off (port.h). The emulator's tests compare every
 * function with the Go one bit for bit.
 */
#ifndef TRACE_FMATH_H
#define TRACE_FMATH_H

#include "port.h"

/* FMATH_FN marks the transcendentals callers use (fm_sin ... fm_acos):
 * inlined at each call site, as every DEVFN, unless TRACE_FMATH_CALLS is
 * defined, a variant of the kernel to time on a GPU
 * (scripts/ptx-variants.sh fmathcalls=-DTRACE_FMATH_CALLS): then each is
 * one function, called. Inlined, they were 11,663 of trace_pixels_path's
 * 31,880 instructions on an H200 (2,058 of them ran on the Cornell box),
 * and the megakernel's warps waited for instructions 76 % of their
 * stalls (kernels/README.md); called (ptxas: 25,146 instructions, 168
 * registers, 4 B spilled; wf_shade 24 B), they cost the calls' register
 * saves. The same bits either way. */
#ifdef TRACE_FMATH_CALLS
#define FMATH_FN DEVFN_CALL
#else
#define FMATH_FN DEVFN
#endif

/* Bit patterns and constants shared by several functions. */
#define FM_SIGN_MASK 0x80000000u
#define FM_ABS_MASK 0x7fffffffu
#define FM_EXP_MASK 0x7f800000u

#define FM_LN2_HI 6.9314575195e-01f /* 0x3f317200 */
#define FM_LN2_LO 1.4286067653e-06f /* 0x35bfbe8e */

DEVFN float fm_abs(float x) { return u2f(f2u(x) & FM_ABS_MASK); }
DEVFN int fm_signbit(float x) { return (f2u(x) & FM_SIGN_MASK) != 0; }
DEVFN float fm_inf(void) { return u2f(FM_EXP_MASK); }
DEVFN float fm_nan(void) { return u2f(0x7fc00000u); }

/* fm_scale2 returns y·2^k for y in [0.5, 2) and k in [−150, 128]. */
DEVFN float fm_scale2(float y, i32 k) {
    if (k > 127) {
        return (y * 2.0f) * 0x1p127f;
    }
    if (k >= -125) {
        return y * u2f(((u32)(k + 127)) << 23);
    }
    return (y * u2f(((u32)(k + 100 + 127)) << 23)) * 0x1p-100f;
}

/* fm_sqrt is IEEE sqrt, correctly rounded. */
DEVFN float fm_sqrt(float x) { return port_sqrtf(x); }

/* ---- Trigonometric functions. ---- */

#define FM_PIO4 7.8539818525e-01f
#define FM_TWO_OVER_PI 6.3661974669e-01f
#define FM_TWO_PI 6.2831854820e+00f
#define FM_TRIG_MAX 1e5f

#define FM_PIO2A 1.5703125f
#define FM_PIO2B 4.57763671875e-04f
#define FM_PIO2C 2.5987625122070312e-05f
#define FM_PIO2D 7.543712854385376e-08f
#define FM_PIO2E 6.002665031701326e-11f
#define FM_PIO2F 7.389644451905042e-13f
#define FM_PIO2G 5.3903029534742380e-15f

#define FM_SIN_S1 -1.6666654611e-1f
#define FM_SIN_S2 8.3321608736e-3f
#define FM_SIN_S3 -1.9515295891e-4f
#define FM_COS_C1 4.166664568298827e-2f
#define FM_COS_C2 -1.388731625493765e-3f
#define FM_COS_C3 2.443315711809948e-5f
#define FM_TAN_T1 3.33331568548e-1f
#define FM_TAN_T2 1.33387994085e-1f
#define FM_TAN_T3 5.34112807005e-2f
#define FM_TAN_T4 2.44301354525e-2f
#define FM_TAN_T5 3.11992232697e-3f
#define FM_TAN_T6 9.38540185543e-3f

/* fm_reduce_pio2: reducePio2. Returns n mod 4; *rh + *rl ≈ ax − n·π/2. */
DEVFN i32 fm_reduce_pio2(float ax, float* rh, float* rl) {
    const float tail[3] = {FM_PIO2D, FM_PIO2E, FM_PIO2F};
    i32 n = (i32)((ax * FM_TWO_OVER_PI) + 0.5f);
    float fn = (float)n;
    float hi = ax - (fn * FM_PIO2A);
    hi = hi - (fn * FM_PIO2B);
    hi = hi - (fn * FM_PIO2C);
    float lo = 0.0f;
    for (int i = 0; i < 3; i++) {
        float p = -(fn * tail[i]);
        float s = hi + p;
        float b = s - hi;
        lo = lo + ((hi - (s - b)) + (p - b));
        hi = s;
    }
    lo = lo - (fn * FM_PIO2G);
    *rh = hi + lo;
    *rl = lo - (*rh - hi);
    return n & 3;
}

/* fm_fold_two_pi: foldTwoPi. */
DEVFN float fm_fold_two_pi(float ax) {
    float d = FM_TWO_PI;
    while (d <= (ax * 0.5f)) {
        d = d + d;
    }
    while (d >= FM_TWO_PI) {
        if (ax >= d) {
            ax = ax - d;
        }
        d = d * 0.5f;
    }
    return ax;
}

DEVFN float fm_sin_kernel(float rh, float rl) {
    float z = rh * rh;
    float v = z * rh;
    float r = FM_SIN_S2 + (z * FM_SIN_S3);
    return rh - (((z * ((0.5f * rl) - (v * r))) - rl) - (v * FM_SIN_S1));
}

DEVFN float fm_cos_kernel(float rh, float rl) {
    float z = rh * rh;
    float r = z * (FM_COS_C1 + (z * (FM_COS_C2 + (z * FM_COS_C3))));
    float hz = 0.5f * z;
    float w = 1.0f - hz;
    return w + (((1.0f - w) - hz) + ((z * r) - (rh * rl)));
}

DEVFN float fm_reduce_large(float ax) {
    if (ax > FM_TRIG_MAX) {
        return fm_fold_two_pi(ax);
    }
    return ax;
}

#define FM_MAX_FLOAT 0x1.fffffep127f /* math.MaxFloat32 */

FMATH_FN float fm_sin(float x) {
    float ax = fm_abs(x);
    if (!(ax <= FM_MAX_FLOAT)) {
        return x - x;
    }
    ax = fm_reduce_large(ax);
    float s;
    if (ax <= FM_PIO4) {
        s = fm_sin_kernel(ax, 0.0f);
    } else {
        float rh, rl;
        i32 q = fm_reduce_pio2(ax, &rh, &rl);
        switch (q) {
        case 0:
            s = fm_sin_kernel(rh, rl);
            break;
        case 1:
            s = fm_cos_kernel(rh, rl);
            break;
        case 2:
            s = -fm_sin_kernel(rh, rl);
            break;
        default:
            s = -fm_cos_kernel(rh, rl);
            break;
        }
    }
    if (fm_signbit(x)) {
        return -s;
    }
    return s;
}

FMATH_FN float fm_cos(float x) {
    float ax = fm_abs(x);
    if (!(ax <= FM_MAX_FLOAT)) {
        return x - x;
    }
    ax = fm_reduce_large(ax);
    if (ax <= FM_PIO4) {
        return fm_cos_kernel(ax, 0.0f);
    }
    float rh, rl;
    i32 q = fm_reduce_pio2(ax, &rh, &rl);
    switch (q) {
    case 0:
        return fm_cos_kernel(rh, rl);
    case 1:
        return -fm_sin_kernel(rh, rl);
    case 2:
        return -fm_cos_kernel(rh, rl);
    default:
        return fm_sin_kernel(rh, rl);
    }
}

/* fm_trunc12 clears the low 12 bits of x's significand. */
DEVFN float fm_trunc12(float x) { return u2f(f2u(x) & 0xfffff000u); }

FMATH_FN float fm_tan(float x) {
    float ax = fm_abs(x);
    if (!(ax <= FM_MAX_FLOAT)) {
        return x - x;
    }
    ax = fm_reduce_large(ax);
    float rh = ax, rl = 0.0f;
    i32 q = 0;
    if (ax > FM_PIO4) {
        q = fm_reduce_pio2(ax, &rh, &rl);
    }
    float z = rh * rh;
    float p = FM_TAN_T1 +
              (z * (FM_TAN_T2 + (z * (FM_TAN_T3 + (z * (FM_TAN_T4 + (z * (FM_TAN_T5 + (z * FM_TAN_T6)))))))));
    float t = (rh * z) * p;
    float u = rh + t;
    float tail = t + (rl + (rl * (u * u)));
    float th = rh + tail;
    float tl = tail - (th - rh);
    if ((q & 1) != 0) {
        float v = -1.0f / th;
        float vh = fm_trunc12(v), thh = fm_trunc12(th);
        float vl = v - vh, thl = th - thh;
        float d = -1.0f - (vh * thh);
        d = d - (vh * thl);
        d = d - (vl * thh);
        d = d - (vl * thl);
        d = d - (v * tl);
        th = v - (d * v);
    }
    if (fm_signbit(x)) {
        return -th;
    }
    return th;
}

/* ---- Exponential, logarithm and power. ---- */

#define FM_LOG2E 1.4426950216e+00f
#define FM_EXP_MAX 88.72283172607421875f
#define FM_EXP_MIN -103.97208404541015625f
#define FM_EXP_E0 5.0000001201e-1f
#define FM_EXP_E1 1.6666665459e-1f
#define FM_EXP_E2 4.1665795894e-2f
#define FM_EXP_E3 8.3334519073e-3f
#define FM_EXP_E4 1.3981999507e-3f
#define FM_EXP_E5 1.9875691500e-4f
#define FM_SQRT_HALF 0.70710678118654752440f
#define FM_LOG_P0 3.3333331174e-1f
#define FM_LOG_P1 -2.4999993993e-1f
#define FM_LOG_P2 2.0000714765e-1f
#define FM_LOG_P3 -1.6668057665e-1f
#define FM_LOG_P4 1.4249322787e-1f
#define FM_LOG_P5 -1.2420140846e-1f
#define FM_LOG_P6 1.1676998740e-1f
#define FM_LOG_P7 -1.1514610310e-1f
#define FM_LOG_P8 7.0376836292e-2f

FMATH_FN float fm_exp(float x) {
    if (x != x) {
        return x;
    }
    if (x > FM_EXP_MAX) {
        return fm_inf();
    }
    if (x < FM_EXP_MIN) {
        return 0.0f;
    }
    float t = x * FM_LOG2E;
    i32 k;
    if (t >= 0.0f) {
        k = (i32)(t + 0.5f);
    } else {
        k = (i32)(t - 0.5f);
    }
    float fk = (float)k;
    float hi = x - (fk * FM_LN2_HI);
    float lo = fk * FM_LN2_LO;
    float r = hi - lo;
    float p = FM_EXP_E4 + (r * FM_EXP_E5);
    p = FM_EXP_E3 + (r * p);
    p = FM_EXP_E2 + (r * p);
    p = FM_EXP_E1 + (r * p);
    p = FM_EXP_E0 + (r * p);
    p = (r * r) * p;
    float y = 1.0f - ((lo - p) - hi);
    return fm_scale2(y, k);
}

FMATH_FN float fm_log(float x) {
    if (x != x) {
        return x;
    }
    if (x <= 0.0f) {
        if (x == 0.0f) {
            return -fm_inf();
        }
        return fm_nan();
    }
    u32 ix = f2u(x);
    if (ix == FM_EXP_MASK) {
        return x;
    }
    i32 e = 0;
    if (ix < 0x00800000u) {
        ix = f2u(x * 0x1p25f);
        e = -25;
    }
    e += (i32)(ix >> 23) - 126;
    float m = u2f((ix & 0x007fffffu) | 0x3f000000u);
    float f;
    if (m < FM_SQRT_HALF) {
        e--;
        f = (m + m) - 1.0f;
    } else {
        f = m - 1.0f;
    }
    float z = f * f;
    float p = FM_LOG_P7 + (f * FM_LOG_P8);
    p = FM_LOG_P6 + (f * p);
    p = FM_LOG_P5 + (f * p);
    p = FM_LOG_P4 + (f * p);
    p = FM_LOG_P3 + (f * p);
    p = FM_LOG_P2 + (f * p);
    p = FM_LOG_P1 + (f * p);
    p = FM_LOG_P0 + (f * p);
    float y = ((f * z) * p) - (0.5f * z);
    if (e == 0) {
        return f + y;
    }
    float fe = (float)e;
    float hi = fe * FM_LN2_HI;
    float s = hi + f;
    float err = (hi - s) + f;
    return s + ((y + (fe * FM_LN2_LO)) + err);
}

#define FM_POW_DP_H1 5.84960938e-01f
#define FM_POW_DP_L1 1.56322085e-06f
#define FM_POW_L1 6.0000002384e-01f
#define FM_POW_L2 4.2857143283e-01f
#define FM_POW_L3 3.3333334327e-01f
#define FM_POW_L4 2.7272811532e-01f
#define FM_POW_L5 2.3066075146e-01f
#define FM_POW_L6 2.0697501302e-01f
#define FM_POW_P1 1.6666667163e-01f
#define FM_POW_P2 -2.7777778450e-03f
#define FM_POW_P3 6.6137559770e-05f
#define FM_POW_P4 -1.6533901999e-06f
#define FM_POW_P5 4.1381369442e-08f
#define FM_POW_LG2 6.9314718246e-01f
#define FM_POW_LG2_H 6.93145752e-01f
#define FM_POW_LG2_L 1.42860654e-06f
#define FM_POW_OVT 4.2995665694e-08f
#define FM_POW_CP 9.6179670095e-01f
#define FM_POW_CP_H 9.6191406250e-01f
#define FM_POW_CP_L -1.1736857402e-04f
#define FM_IVLN2 1.4426950216e+00f
#define FM_IVLN2_H 1.4426879883e+00f
#define FM_IVLN2_L 7.0526075433e-06f

/* fm_pow: Pow, for x ≥ 0 (fdlibm e_powf.c). Integer arithmetic is on i32
 * as in the Go; no value here overflows. */
FMATH_FN float fm_pow(float x, float y) {
    i32 hx = (i32)f2u(x);
    i32 hy = (i32)f2u(y);
    i32 ix = hx & 0x7fffffff;
    i32 iy = hy & 0x7fffffff;

    if (iy == 0) {
        return 1.0f;
    }
    if (hx == 0x3f800000) {
        return 1.0f;
    }
    if (ix > 0x7f800000 || iy > 0x7f800000) {
        return fm_nan();
    }
    if (hx < 0 && ix != 0) {
        return fm_nan();
    }
    if (iy == 0x7f800000) {
        if (ix > 0x3f800000) {
            if (hy >= 0) {
                return fm_inf();
            }
            return 0.0f;
        }
        if (hy < 0) {
            return fm_inf();
        }
        return 0.0f;
    }
    float ax = fm_abs(x);
    if (iy == 0x3f800000) {
        if (hy < 0) {
            return 1.0f / ax;
        }
        return ax;
    }
    if (hy == 0x40000000) {
        return ax * ax;
    }
    if (hy == 0x3f000000) {
        return fm_sqrt(ax);
    }
    if (ix == 0x7f800000 || ix == 0) {
        if (hy < 0) {
            return 1.0f / ax;
        }
        return ax;
    }

    float t1, t2;
    if (iy > 0x4d000000) {
        if (ix < 0x3f7ffff8) {
            if (hy < 0) {
                return fm_inf();
            }
            return 0.0f;
        }
        if (ix > 0x3f800007) {
            if (hy > 0) {
                return fm_inf();
            }
            return 0.0f;
        }
        float t = ax - 1.0f;
        float w = (t * t) * (0.5f - (t * (0.333333333333f - (t * 0.25f))));
        float u = FM_IVLN2_H * t;
        float v = (t * FM_IVLN2_L) - (w * FM_IVLN2);
        t1 = fm_trunc12(u + v);
        t2 = v - (t1 - u);
    } else {
        i32 n = 0;
        if (ix < 0x00800000) {
            ax = ax * 0x1p24f;
            n -= 24;
            ix = (i32)f2u(ax);
        }
        n += (ix >> 23) - 0x7f;
        i32 j = ix & 0x007fffff;
        ix = j | 0x3f800000;
        i32 k;
        if (j <= 0x1cc471) {
            k = 0;
        } else if (j < 0x5db3d7) {
            k = 1;
        } else {
            k = 0;
            n++;
            ix -= 0x00800000;
        }
        ax = u2f((u32)ix);
        float bp = 1.0f, dpH = 0.0f, dpL = 0.0f;
        if (k == 1) {
            bp = 1.5f;
            dpH = FM_POW_DP_H1;
            dpL = FM_POW_DP_L1;
        }

        float u = ax - bp;
        float v = 1.0f / (ax + bp);
        float s = u * v;
        float sH = fm_trunc12(s);
        float tH = u2f((u32)((((ix >> 1) & ~0xfff) | 0x20000000) + 0x00400000 + (k << 21)));
        float tL = ax - (tH - bp);
        float sL = v * ((u - (sH * tH)) - (sH * tL));
        float s2 = s * s;
        float r = FM_POW_L5 + (s2 * FM_POW_L6);
        r = FM_POW_L4 + (s2 * r);
        r = FM_POW_L3 + (s2 * r);
        r = FM_POW_L2 + (s2 * r);
        r = FM_POW_L1 + (s2 * r);
        r = (s2 * s2) * r;
        r = r + (sL * (sH + s));
        s2 = sH * sH;
        tH = fm_trunc12((3.0f + s2) + r);
        tL = r - ((tH - 3.0f) - s2);
        u = sH * tH;
        v = (sL * tH) + (tL * s);
        float pH = fm_trunc12(u + v);
        float pL = v - (pH - u);
        float zH = FM_POW_CP_H * pH;
        float zL = ((FM_POW_CP_L * pH) + (pL * FM_POW_CP)) + dpL;
        float tn = (float)n;
        t1 = fm_trunc12(((zH + zL) + dpH) + tn);
        t2 = zL - (((t1 - tn) - dpH) - zH);
    }

    float y1 = fm_trunc12(y);
    float pL = ((y - y1) * t1) + (y * t2);
    float pH = y1 * t1;
    float z = pL + pH;
    i32 j = (i32)f2u(z);
    if (j > 0x43000000) {
        return fm_inf();
    } else if (j == 0x43000000) {
        if (pL + FM_POW_OVT > z - pH) {
            return fm_inf();
        }
    } else if ((j & 0x7fffffff) > 0x43160000) {
        return 0.0f;
    } else if ((u32)j == 0xc3160000u) {
        if (pL <= z - pH) {
            return 0.0f;
        }
    }

    i32 i = j & 0x7fffffff;
    i32 k = (i >> 23) - 0x7f;
    i32 n = 0;
    if (i > 0x3f000000) {
        n = j + (0x00800000 >> (k + 1));
        k = ((n & 0x7fffffff) >> 23) - 0x7f;
        float tn = u2f((u32)(n & ~(0x007fffff >> k)));
        n = ((n & 0x007fffff) | 0x00800000) >> (23 - k);
        if (j < 0) {
            n = -n;
        }
        pH = pH - tn;
    }
    float t = u2f(f2u(pL + pH) & 0xffff8000u);
    float u = t * FM_POW_LG2_H;
    float v = ((pL - (t - pH)) * FM_POW_LG2) + (t * FM_POW_LG2_L);
    z = u + v;
    float w = v - (z - u);
    t = z * z;
    float q = FM_POW_P4 + (t * FM_POW_P5);
    q = FM_POW_P3 + (t * q);
    q = FM_POW_P2 + (t * q);
    q = FM_POW_P1 + (t * q);
    t1 = z - (t * q);
    float r = ((z * t1) / (t1 - 2.0f)) - (w + (z * w));
    z = 1.0f - (r - z);
    return fm_scale2(z, n);
}

/* ---- Inverse trigonometric functions. ---- */

#define FM_PI_F 3.1415927410e+00f
#define FM_PI_LO -8.7422776573e-08f
#define FM_PIO2_F 1.5707963705e+00f
#define FM_PIO4_F 7.8539818525e-01f
#define FM_PIO34_F 2.3561944962e+00f
#define FM_PIO2_HI 1.5707962513e+00f
#define FM_PIO2_LO 7.5497894159e-08f
#define FM_PI_HI 3.1415925026e+00f
#define FM_ATAN_HI0 4.6364760399e-01f
#define FM_ATAN_HI1 7.8539812565e-01f
#define FM_ATAN_HI2 9.8279368877e-01f
#define FM_ATAN_HI3 1.5707962513e+00f
#define FM_ATAN_LO0 5.0121582440e-09f
#define FM_ATAN_LO1 3.7748947079e-08f
#define FM_ATAN_LO2 3.4473217170e-08f
#define FM_ATAN_LO3 7.5497894159e-08f
#define FM_AT0 3.3333328366e-01f
#define FM_AT1 -1.9999158382e-01f
#define FM_AT2 1.4253635705e-01f
#define FM_AT3 -1.0648017377e-01f
#define FM_AT4 6.1687607318e-02f
#define FM_PS0 1.6666586697e-01f
#define FM_PS1 -4.2743422091e-02f
#define FM_PS2 -8.6563630030e-03f
#define FM_QS1 -7.0662963390e-01f

/* fm_atan_pos: atanPos, atan(x) for 0 ≤ x ≤ +Inf. */
DEVFN float fm_atan_pos(float x) {
    u32 ix = f2u(x);
    if (ix >= 0x4c800000u) {
        return FM_ATAN_HI3 + FM_ATAN_LO3;
    }
    float hi = 0.0f, lo = 0.0f;
    int id = -1;
    if (ix < 0x3ee00000u) {
        if (ix < 0x39800000u) {
            return x;
        }
    } else if (ix < 0x3f300000u) {
        id = 0;
        hi = FM_ATAN_HI0;
        lo = FM_ATAN_LO0;
        x = ((x + x) - 1.0f) / (2.0f + x);
    } else if (ix < 0x3f980000u) {
        id = 1;
        hi = FM_ATAN_HI1;
        lo = FM_ATAN_LO1;
        x = (x - 1.0f) / (x + 1.0f);
    } else if (ix < 0x401c0000u) {
        id = 2;
        hi = FM_ATAN_HI2;
        lo = FM_ATAN_LO2;
        x = (x - 1.5f) / (1.0f + (1.5f * x));
    } else {
        id = 3;
        hi = FM_ATAN_HI3;
        lo = FM_ATAN_LO3;
        x = -1.0f / x;
    }
    float z = x * x;
    float w = z * z;
    float s1 = z * (FM_AT0 + (w * (FM_AT2 + (w * FM_AT4))));
    float s2 = w * (FM_AT1 + (w * FM_AT3));
    if (id < 0) {
        return x - (x * (s1 + s2));
    }
    return hi - (((x * (s1 + s2)) - lo) - x);
}

FMATH_FN float fm_atan2(float y, float x) {
    if (x != x || y != y) {
        return fm_nan();
    }
    u32 hx = f2u(x);
    u32 hy = f2u(y);
    u32 ix = hx & FM_ABS_MASK;
    u32 iy = hy & FM_ABS_MASK;
    int negY = (hy & FM_SIGN_MASK) != 0;
    int negX = (hx & FM_SIGN_MASK) != 0;

    float z;
    if (iy == 0) {
        if (negX) {
            z = FM_PI_F;
        } else {
            return y;
        }
    } else if (ix == 0) {
        z = FM_PIO2_F;
    } else if (ix == FM_EXP_MASK) {
        if (iy == FM_EXP_MASK) {
            if (negX) {
                z = FM_PIO34_F;
            } else {
                z = FM_PIO4_F;
            }
        } else if (negX) {
            z = FM_PI_F;
        } else {
            z = 0.0f;
        }
    } else if (iy == FM_EXP_MASK) {
        z = FM_PIO2_F;
    } else {
        i32 k = (i32)(iy >> 23) - (i32)(ix >> 23);
        if (k > 26) {
            z = FM_PIO2_F;
        } else if (k < -26 && negX) {
            z = FM_PI_F;
        } else {
            z = fm_atan_pos(fm_abs(y) / fm_abs(x));
            if (negX) {
                z = FM_PI_F - (z - FM_PI_LO);
            }
        }
    }
    if (negY) {
        return -z;
    }
    return z;
}

FMATH_FN float fm_acos(float x) {
    if (x != x) {
        return x;
    }
    u32 hx = f2u(x);
    u32 ix = hx & FM_ABS_MASK;
    if (ix >= 0x3f800000u) {
        if ((hx & FM_SIGN_MASK) == 0) {
            return 0.0f;
        }
        return FM_PI_F;
    }
    if (ix < 0x3f000000u) {
        if (ix <= 0x32800000u) {
            return FM_PIO2_HI + FM_PIO2_LO;
        }
        float z = x * x;
        float p = z * (FM_PS0 + (z * (FM_PS1 + (z * FM_PS2))));
        float q = 1.0f + (z * FM_QS1);
        float r = p / q;
        return FM_PIO2_HI - (x - (FM_PIO2_LO - (x * r)));
    }
    if ((hx & FM_SIGN_MASK) != 0) {
        float z = (1.0f + x) * 0.5f;
        float p = z * (FM_PS0 + (z * (FM_PS1 + (z * FM_PS2))));
        float q = 1.0f + (z * FM_QS1);
        float s = fm_sqrt(z);
        float r = p / q;
        float w = (r * s) - FM_PIO2_LO;
        return FM_PI_HI - (2.0f * (s + w));
    }
    float z = (1.0f - x) * 0.5f;
    float s = fm_sqrt(z);
    float df = fm_trunc12(s);
    float c = (z - (df * df)) / (s + df);
    float p = z * (FM_PS0 + (z * (FM_PS1 + (z * FM_PS2))));
    float q = 1.0f + (z * FM_QS1);
    float r = p / q;
    float w = (r * s) + c;
    return 2.0f * (df + w);
}

#endif /* TRACE_FMATH_H */
