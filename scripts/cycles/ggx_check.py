"""Checks of the GGX materials (metal, pbr, rough dielectric) against
numerical integration of their formulas, for trace and for Cycles 3.4:
what tracescene.classify calls "approx" is measured here, one material at
a time, with nothing else in the scene. About 4 minutes.

1. White furnace: a sphere under a white background (max_depth 1: one
   bounce, then the sky) seen from afar, so each pixel shows the
   directional albedo at its cos theta_o. trace's image mean must equal
   its formula (docs/scene-format.md "materials": Schlick's Fresnel,
   height-correlated Smith G2, the specular lobe times Turquin's
   multiple-scattering factor 1 + F0 (1 - E1(mu))/E1(mu), E1 the lobe's
   albedo for F = 1, the pbr base Lambert x (1 - the dielectric's
   compensated albedo at mu)); Cycles' is compared with Cycles 3.4's
   formula for the nodes render.py builds (Principled v1's Fresnel F0 +
   (1 - F0)(Fd(wo.h, 1.5) - 0.04)/0.96, separable Smith G1 G1, single
   scattering, the base x (1 - Fc(mu))), and the two formulas' gap with
   the two renders' gap. The metals are also rendered with Cycles 3.4's
   Multiscatter GGX (render.py --ggx multi), which keeps the energy too:
   its column gives its mean and trace's against it.
2. One rough glass interface: a dielectric plane under a black-to-white
   gradient sky, seen at cos theta_o 0.9, 0.5 and 0.2 from outside
   (entering) and from inside (leaving, total internal reflection),
   max_depth 1. trace's formula: Walter et al. 2007 with the Fresnel at
   each microfacet normal and G2, divided by the lobe's albedo at cos
   theta_o (its compensation); Cycles 3.4's GGX glass: reflection and
   refraction weighed by the Fresnel at the shading normal, separable G.
   Cycles is rendered twice: as render.py renders it (the sky
   importance-sampled, MIS) and with BSDF sampling alone
   (render.py --world-mis 0), which is what its formula describes.

3. A pbr floor (metallic 0, a grey base of 0.5, roughness 0.5 and 1)
   under a uniform white sky, max_depth 1, seen at cos theta_o 0.15, 0.5
   and 0.9: trace against its formula (the base's albedo times 1 - the
   dielectric's compensated albedo, plus that albedo), and against Cycles
   3.4's default Principled BSDF v1 (render.py --pbr principled: Disney
   diffuse, GGX) and its Multiscatter GGX (--ggx multi). Information
   beside the check, about 1 minute.
4. Clear rough glass spheres (ior 1.5 at roughness 0.5 and 1, 2.4 at 0.5,
   1.33 at 0.25) in a white furnace, max_depth 64: trace's compensated
   glass must vanish (its mean 1 within 1 %); Cycles 3.4's default GGX
   glass (render.py's mix, single scattering) and its Glass BSDF of
   Multiscatter GGX (--ggx multi) beside it, information.

Usage: /usr/bin/python3 scripts/cycles/ggx_check.py --trace BIN --out DIR [--blender blender]
       [--parts furnace,interface,floor,glass]
Prints one line per case; exits 1 if a trace render is off its formula by
more than --tolerance (0.5 %; the Monte Carlo error of image and formula
is about 0.1 %). The Cycles columns are information, not checked.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the repository
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import imgio  # noqa: E402

# Sphere materials of the furnace check.
FURNACE = [
    ("metal r0", {"type": "metal", "color": [0.95, 0.7, 0.35], "roughness": 0}),
    ("metal r0.25", {"type": "metal", "color": [0.95, 0.7, 0.35], "roughness": 0.25}),
    ("metal r0.5", {"type": "metal", "color": [0.95, 0.7, 0.35], "roughness": 0.5}),
    ("metal r1", {"type": "metal", "color": [0.95, 0.7, 0.35], "roughness": 1}),
    ("metal r0.5 white", {"type": "metal", "color": [1, 1, 1], "roughness": 0.5}),
    ("metal r1 white", {"type": "metal", "color": [1, 1, 1], "roughness": 1}),
    ("pbr m0 r0", {"type": "pbr", "base_color": [0.15, 0.5, 0.2], "metallic": 0, "roughness": 0}),
    ("pbr m0 r0.3", {"type": "pbr", "base_color": [0.8, 0.2, 0.1], "metallic": 0, "roughness": 0.3}),
    ("pbr m0 r0.7", {"type": "pbr", "base_color": [0.2, 0.45, 0.8], "metallic": 0, "roughness": 0.7}),
    ("pbr m0.5 r0.4", {"type": "pbr", "base_color": [0.9, 0.8, 0.3], "metallic": 0.5, "roughness": 0.4}),
]
IOR = 1.5
FOV = 0.6          # degrees, from 200 units away: nearly orthographic
DIST = 200.0
RHO = 0.9          # the pixels whose centres lie within 0.9 of the disc's radius
# Formula samples per cos theta_o: the furnace averages 48 of them; one
# interface at a grazing view needs more.
SAMPLES = 200_000
SAMPLES_INTERFACE = 2_000_000


# ---------------------------------------------------------------- formulas


def fresnel(c, eta):
    """Exact dielectric reflectance at cosine c > 0, eta = n_from / n_to."""
    c = np.asarray(c, dtype=np.float64)
    s2 = eta * eta * (1 - c * c)
    ct = np.sqrt(np.clip(1 - s2, 0, None))
    rs = (eta * c - ct) / (eta * c + ct)
    rp = (c - eta * ct) / (c + eta * ct)
    return np.where(s2 < 1, 0.5 * (rs * rs + rp * rp), 1.0)


def smith_lambda(c, a2):
    c = np.clip(np.abs(c), 1e-9, 1)
    return (np.sqrt(a2 + (1 - a2) * c * c) / c - 1) / 2


def g1(c, a2):
    return 1 / (1 + smith_lambda(c, a2))


def g2(co, ci, a2):
    return 1 / (1 + smith_lambda(co, a2) + smith_lambda(ci, a2))


class Normals:
    """Microfacet normals drawn from D(h) cos theta_h (fixed numbers, so
    that trace's and Cycles' formulas see the same ones), and for a view
    at cosine mu the weight that turns a mean over them into the integral
    of f cos theta_i over the sphere of directions: (wo.h)/(mu cos theta_h),
    from d omega_i = 4 (wo.h) d omega_h."""

    def __init__(self, n, seed=7):
        r = np.random.default_rng(seed)
        self.u1, self.u2 = r.random(n), r.random(n)

    def at(self, alpha, mu):
        t2 = alpha * alpha * self.u1 / (1 - self.u1)
        ct = 1 / np.sqrt(1 + t2)
        st = np.sqrt(1 - ct * ct)
        ph = 2 * np.pi * self.u2
        h = np.stack([st * np.cos(ph), st * np.sin(ph), ct], 1)
        wo = np.array([math.sqrt(max(0.0, 1 - mu * mu)), 0.0, mu])
        oh = h @ wo
        w = np.where(oh > 0, oh / (mu * ct), 0.0)
        return h, wo, oh, w


def conductor_albedo(nrm, f0, roughness, mu, f90=1.0):
    """Directional albedo of the GGX conductor lobe of reflectance f0 (3,)
    at normal incidence and f90 at grazing incidence: (trace's, with its
    multiple-scattering factor, Cycles 3.4's single scattering)."""
    f0 = np.asarray(f0, dtype=np.float64)
    c5 = (1 - mu) ** 5
    if roughness * roughness < 1e-3:  # a mirror: Schlick's exactly in both (render.py)
        f = f0 + (f90 - f0) * c5
        return f, f
    a2 = roughness ** 4
    h, wo, oh, w = nrm.at(roughness * roughness, mu)
    wi = 2 * oh[:, None] * h - wo
    w = np.where(wi[:, 2] > 0, w, 0.0)
    schlick = (1 - np.clip(oh, 0, 1)) ** 5
    interp = (fresnel(np.clip(oh, 1e-9, 1), 1 / IOR) - 0.04) / 0.96
    gt = w * g2(mu, wi[:, 2], a2)
    gc = w * g1(mu, a2) * g1(wi[:, 2], a2)
    e1, e5 = np.mean(gt), np.mean(gt * schlick)
    t = (f0 * (e1 - e5) + f90 * e5) * (1 + f0 * (1 - e1) / e1)
    c = np.array([np.mean(gc * (f + (1 - f) * interp)) for f in f0])
    return t, c


def sphere_albedo(nrm, m, mu):
    """(trace, Cycles) directional albedo, RGB, of a metal or pbr material
    at cos theta_o = mu; the pbr base is built exactly by render.py."""
    if m["type"] == "metal":
        base, metal = np.array(m["color"], dtype=np.float64), 1.0
    else:
        base, metal = np.array(m["base_color"], dtype=np.float64), float(m["metallic"])
    f0 = 0.04 * (1 - metal) + base * metal
    t, c = conductor_albedo(nrm, f0, float(m["roughness"]), mu)
    # The base under the dielectric's specular: trace's 1 - its compensated
    # albedo, render.py's nodes 1 - Schlick's F at mu.
    ed, _ = conductor_albedo(nrm, np.array([0.04]), float(m["roughness"]), mu)
    diffuse = base * (1 - metal)
    return t + diffuse * (1 - ed[0]), c + diffuse * (1 - (0.04 + 0.96 * (1 - mu) ** 5))


def interface_radiance(nrm, roughness, mu, eta):
    """(trace, Cycles) radiance toward a viewer at cos theta_o = mu of a
    rough dielectric interface (relative index eta = n_viewer / n_other)
    under the sky L(d) = (1 + d.y)/2, the viewer's side up."""
    a2 = roughness ** 4
    h, wo, oh, w = nrm.at(roughness * roughness, mu)
    wr = 2 * oh[:, None] * h - wo
    up = wr[:, 2] > 0
    c = np.clip(oh, 0, 1)
    s2 = eta * eta * (1 - c * c)
    through = s2 < 1
    ct = np.sqrt(np.clip(1 - s2, 0, None))
    wt = -eta * wo[None, :] + (eta * c - ct)[:, None] * h
    down = through & (wt[:, 2] < 0)
    lr, lt = 0.5 * (1 + wr[:, 2]), 0.5 * (1 + wt[:, 2])
    f = fresnel(np.clip(oh, 1e-9, 1), eta)
    trace = (np.mean(w * up * f * g2(mu, wr[:, 2], a2) * lr)
             + np.mean(w * down * (1 - f) * g2(mu, wt[:, 2], a2) * lt))
    # trace's compensation (pixel version 17): the lobe divided by its
    # albedo at mu, the same integral under a white sky.
    trace /= (np.mean(w * up * f * g2(mu, wr[:, 2], a2))
              + np.mean(w * down * (1 - f) * g2(mu, wt[:, 2], a2)))
    fn = float(fresnel(mu, eta))
    cyc = (fn * np.mean(w * up * g1(mu, a2) * g1(wr[:, 2], a2) * lr)
           + (1 - fn) * np.mean(w * down * g1(mu, a2) * g1(wt[:, 2], a2) * lt))
    return trace, cyc


# ---------------------------------------------------------------- renders


def run(cmd, log):
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        sys.exit("failed (status %d): %s\nsee %s" % (p.returncode, " ".join(cmd), log))


def render_both(a, scene, base, size, spp, cycles_extra=(), cycles_first=None):
    """Renders scene (a dict) with trace and Cycles; returns their images
    and, with cycles_extra, a second Cycles image with those render.py
    arguments; cycles_first gives the first Cycles image's arguments."""
    path = base + ".json"
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    run([a.trace, "render", path, "--width", str(size), "--height", str(size), "--samples", str(spp),
         "-o", base + "-trace.pfm", "--threads", str(a.threads), "-q"], base + "-trace.log")
    out = [imgio.read_pfm(base + "-trace.pfm")]
    first = tuple(cycles_first) if cycles_first else ()
    for i, extra in enumerate([first] + ([tuple(cycles_extra)] if cycles_extra else [])):
        pfm = "%s-cycles%s.pfm" % (base, "-%d" % i if i else "")
        run([a.blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "render.py"), "--",
             "--scene", path, "--size", str(size), "--spp", str(spp), "--out", pfm,
             "--threads", str(a.threads)] + list(extra), pfm + ".log")
        out.append(imgio.read_pfm(pfm))
    return out


def furnace(a, bad):
    print("== white furnace: sphere image mean over |rho| < %.1f, and each formula's" % RHO)
    size = 96
    nrm = Normals(SAMPLES)
    for label, m in FURNACE:
        scene = {"version": 1, "render": {"width": size, "height": size, "samples": 1024, "max_depth": 1,
                                          "integrator": "path", "seed": 1},
                 "camera": {"position": [0, 0, -DIST], "look_at": [0, 0, 0], "fov": FOV},
                 "background": {"color": [1, 1, 1]}, "materials": {"m": m},
                 "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}]}
        base = os.path.join(a.out, "furnace-" + label.replace(" ", "-"))
        metal = m["type"] == "metal" and m["roughness"] > 0
        imgs = render_both(a, scene, base, size, 1024, ["--ggx", "multi"] if metal else ())
        ti, ci = imgs[0], imgs[1]
        half = DIST * math.tan(math.radians(FOV / 2))
        y = (0.5 - (np.arange(size) + 0.5) / size) * 2 * half
        rho = np.hypot(*np.meshgrid(y, y))
        sel = rho < RHO
        mus = np.linspace(math.sqrt(1 - RHO * RHO), 1, 48)
        tab = np.array([sphere_albedo(nrm, m, mu) for mu in mus])  # (mu, trace|cycles, rgb)
        mu_px = np.sqrt(1 - rho[sel] ** 2)
        pt, pc = (float(np.mean([np.interp(mu_px, mus, tab[:, k, ch]) for ch in range(3)])) for k in (0, 1))
        tm, cm = float(ti[sel].mean()), float(ci[sel].mean())
        off = 100 * (tm / pt - 1)
        ok = abs(off) <= a.tolerance
        bad += [] if ok else [label]
        multi = ""
        if metal:
            mm = float(imgs[2][sel].mean())
            multi = " | Cycles Multiscatter GGX %.4f, trace/it %.4f" % (mm, tm / mm)
        print("%-4s %-16s trace %.4f formula %.4f (%+.2f %%) | Cycles %.4f its formula %.4f (%+.2f %%) | "
              "Cycles/trace: formulas %+.2f %%, renders %+.2f %%%s"
              % ("ok" if ok else "OFF", label, tm, pt, off, cm, pc, 100 * (cm / pc - 1),
                 100 * (pc / pt - 1), 100 * (cm / tm - 1), multi), flush=True)


def interface(a, bad):
    print("== one rough glass interface (IOR %.1f) under a black-to-white sky, max_depth 1" % IOR)
    size = 24
    nrm = Normals(SAMPLES_INTERFACE)
    for side in ("outside", "inside"):
        for r in (0.25, 0.5):
            for mu in (0.9, 0.5, 0.2):
                th = math.acos(mu)
                scene = {"version": 1, "render": {"width": size, "height": size, "samples": 4096, "max_depth": 1,
                                                  "integrator": "path", "seed": 1},
                         "camera": {"position": [DIST * math.sin(th), DIST * mu, 0], "look_at": [0, 0, 0],
                                    "fov": 0.2},
                         "background": {"type": "gradient", "bottom": [0, 0, 0], "top": [1, 1, 1]},
                         "materials": {"g": {"type": "dielectric", "ior": IOR, "roughness": r}},
                         "objects": [{"type": "plane", "point": [0, 0, 0],
                                      "normal": [0, 1 if side == "outside" else -1, 0], "material": "g"}]}
                label = "%s r%.2f cos %.1f" % (side, r, mu)
                base = os.path.join(a.out, "glass-%s-r%02d-mu%02d" % (side, round(100 * r), round(10 * mu)))
                ti, ci, cb = render_both(a, scene, base, size, 4096, ["--world-mis", "0"])
                pt, pc = interface_radiance(nrm, r, mu, 1 / IOR if side == "outside" else IOR)
                tm, cm, cbm = float(ti.mean()), float(ci.mean()), float(cb.mean())
                off = 100 * (tm / pt - 1)
                ok = abs(off) <= a.tolerance
                bad += [] if ok else [label]
                print("%-4s %-22s trace %.4f formula %.4f (%+.2f %%) | Cycles BSDF-sampled %.4f its formula %.4f "
                      "(%+.2f %%), with MIS %.4f (%+.2f %%) | Cycles/trace: formulas %+.1f %%, renders %+.1f %%"
                      % ("ok" if ok else "OFF", label, tm, pt, off, cbm, pc, 100 * (cbm / pc - 1), cm,
                         100 * (cm / cbm - 1), 100 * (pc / pt - 1), 100 * (cm / tm - 1)), flush=True)


GLASS = [(1.5, 0.5), (1.5, 1.0), (2.4, 0.5), (1.33, 0.25)]


def glass(a, bad):
    print("== white furnace of clear rough glass spheres (max_depth 64): image mean over |rho| < %.1f" % RHO)
    size, spp = 48, 512
    for ior, r in GLASS:
        m = {"type": "dielectric", "ior": ior, "roughness": r}
        scene = {"version": 1, "render": {"width": size, "height": size, "samples": spp, "max_depth": 64,
                                          "integrator": "path", "seed": 1},
                 "camera": {"position": [0, 0, -DIST], "look_at": [0, 0, 0], "fov": FOV},
                 "background": {"color": [1, 1, 1]}, "materials": {"m": m},
                 "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}]}
        base = os.path.join(a.out, "glass-furnace-ior%03d-r%03d" % (round(100 * ior), round(100 * r)))
        ti, ci, mi = render_both(a, scene, base, size, spp, ["--ggx", "multi"])
        half = DIST * math.tan(math.radians(FOV / 2))
        y = (0.5 - (np.arange(size) + 0.5) / size) * 2 * half
        sel = np.hypot(*np.meshgrid(y, y)) < RHO
        tm, cm, mm = float(ti[sel].mean()), float(ci[sel].mean()), float(mi[sel].mean())
        ok = abs(tm - 1) <= 0.01
        label = "glass ior %.2f r%.2f" % (ior, r)
        bad += [] if ok else [label]
        print("%-4s %-22s trace %.4f | Cycles GGX %.4f (trace/it %.3f) | Cycles Multiscatter GGX %.4f (trace/it %.3f)"
              % ("ok" if ok else "OFF", label, tm, cm, tm / cm, mm, tm / mm), flush=True)


def floor(a, bad):
    print("== a pbr floor (metallic 0, base 0.5) under a white sky, max_depth 1")
    size = 16
    nrm = Normals(SAMPLES)
    for r in (0.5, 1.0):
        for mu in (0.15, 0.5, 0.9):
            th = math.acos(mu)
            m = {"type": "pbr", "base_color": [0.5, 0.5, 0.5], "metallic": 0, "roughness": r}
            scene = {"version": 1, "render": {"width": size, "height": size, "samples": 1024, "max_depth": 1,
                                              "integrator": "path", "seed": 1},
                     "camera": {"position": [DIST * math.sin(th), DIST * mu, 0], "look_at": [0, 0, 0], "fov": 0.2},
                     "background": {"color": [1, 1, 1]}, "materials": {"m": m},
                     "objects": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "m"}]}
            label = "floor r%.1f cos %.2f" % (r, mu)
            base = os.path.join(a.out, "floor-r%02d-mu%02d" % (round(10 * r), round(100 * mu)))
            ti, cp, cm = render_both(a, scene, base, size, 1024, cycles_first=["--pbr", "principled"],
                                     cycles_extra=["--pbr", "principled", "--ggx", "multi"])
            pt = float(np.mean(sphere_albedo(nrm, m, mu)[0]))
            tm, cpm, cmm = float(ti.mean()), float(cp.mean()), float(cm.mean())
            off = 100 * (tm / pt - 1)
            ok = abs(off) <= a.tolerance
            bad += [] if ok else [label]
            print("%-4s %-20s trace %.4f formula %.4f (%+.2f %%) | Cycles Principled v1 GGX %.4f, Multiscatter GGX "
                  "%.4f | trace/Cycles %.3f, %.3f"
                  % ("ok" if ok else "OFF", label, tm, pt, off, cpm, cmm, tm / cpm, tm / cmm), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trace", required=True)
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--tolerance", type=float, default=0.5, help="percent")
    p.add_argument("--parts", default="furnace,interface,floor,glass", help="which checks, comma-separated")
    a = p.parse_args()
    a.trace = os.path.abspath(a.trace)
    os.makedirs(a.out, exist_ok=True)
    bad = []
    parts = a.parts.split(",")
    if "furnace" in parts:
        furnace(a, bad)
    if "interface" in parts:
        interface(a, bad)
    if "floor" in parts:
        floor(a, bad)
    if "glass" in parts:
        glass(a, bad)
    if bad:
        print("ggx_check: trace off its formula: " + ", ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
