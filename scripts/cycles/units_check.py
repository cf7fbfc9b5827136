"""Closed-form checks of the trace -> Cycles mapping (run by
scripts/cycles-compare.sh before the benchmark; about 1 minute).

1. Point light units: a diffuse plane (albedo a) under a point light of
   intensity I at height h, seen straight down through a narrow camera, has
   radiance a/pi x I/h^2 at the foot of the light. trace and Cycles (with
   render.py's conversion) must both give it.
2. Emission: a camera looking at an emissive quad sees colour x intensity.
3. Gradient background: looking straight up gives `top`, straight down
   `bottom`, level the average (t = 0.5 (d.y + 1)).
4. Bounces: trace's max_depth = D against Cycles' D - 1 bounces on a
   diffuse box lit by a point light (direct light only, one, two bounces).
5. A square quad light over a diffuse floor, closed form, at two heights
   (the lower one shows a trace shadow-ray bug, reported as KNOWN).
6. Camera shift and thin lens, and a sphere's (u, v): trace and Cycles
   images of an emissive checker (wall, sphere) must agree (relative RMSE
   < 5 %).
7. Equirectangular background orientation: trace and Cycles agree on the
   sky seen along +z, -x, +x and 60 degrees up.

Usage: python3 units_check.py --trace BIN --blender BIN --out DIR
Prints one line per check and exits 1 if any is off by more than its
tolerance.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imgio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def render_both(a, name, scene, size, spp, extra_cycles=()):
    path = os.path.join(a.out, name + ".json")
    with open(path, "w") as f:
        json.dump(scene, f, indent=1)
    t_out = os.path.join(a.out, name + "-trace.pfm")
    c_out = os.path.join(a.out, name + "-cycles.pfm")
    subprocess.run(["nice", "-n", "10", a.trace, "render", path, "--width", str(size), "--height", str(size),
                    "--samples", str(spp), "-o", t_out, "--threads", "2", "-q"], check=True)
    subprocess.run(["nice", "-n", "10", a.blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "render.py"),
                    "--", "--scene", path, "--size", str(size), "--spp", str(spp), "--out", c_out] + list(extra_cycles),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return imgio.read_pfm(t_out), imgio.read_pfm(c_out)


def centre(img, k=2):
    h, w, _ = img.shape
    return img[h // 2 - k:h // 2 + k, w // 2 - k:w // 2 + k].mean(axis=(0, 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trace", required=True)
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    ok = True
    results = []

    def report(what, got, want, tol):
        nonlocal ok
        got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
        err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-6)))
        good = err <= tol
        ok &= good
        line = "%-4s %-58s got %s want %s (%.2f %%)" % ("ok" if good else "BAD", what, np.round(got, 5), np.round(want, 5), 100 * err)
        print(line)
        results.append({"check": what, "got": got.tolist(), "want": want.tolist(), "rel_err": err, "ok": bool(good)})

    # 1. Point light over a diffuse plane, pinhole, one sample per pixel
    # through the pixel centres (trace) / a 0.01 px filter is not needed:
    # the field is smooth, so the jitter averages out over the centre 4x4.
    albedo, inten, h = 0.5, 3.0, 2.0
    sc = {"version": 1, "render": {"max_depth": 1},
          "camera": {"position": [0, 1, 0], "look_at": [0, 0, 0], "up": [0, 0, 1], "fov": 2},
          "materials": {"m": {"type": "diffuse", "color": [albedo] * 3}},
          "lights": [{"type": "point", "position": [0, h, 0], "intensity": inten}],
          "objects": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "m"}]}
    t, c = render_both(a, "pointlight", sc, 16, 16)
    want = albedo / math.pi * inten / h ** 2
    report("point light: trace, L = a/pi I/h^2", centre(t), [want] * 3, 0.002)
    report("point light: Cycles, P = 4 pi I watts", centre(c), [want] * 3, 0.002)

    # 2. Emission seen directly.
    sc = {"version": 1, "render": {"max_depth": 1},
          "camera": {"position": [0, 0, -3], "look_at": [0, 0, 0], "fov": 10},
          "materials": {"e": {"type": "emissive", "color": [1, 0.5, 0.25], "intensity": 6}},
          "objects": [{"type": "quad", "corner": [-1, -1, 0], "edge1": [0, 2, 0], "edge2": [2, 0, 0], "material": "e"}]}
    t, c = render_both(a, "emission", sc, 8, 4)
    report("emission (back side of the quad): trace", centre(t), [6, 3, 1.5], 1e-5)
    report("emission (back side of the quad): Cycles", centre(c), [6, 3, 1.5], 1e-5)

    # 3. Gradient background, looking up, down and level.
    for what, look, up, tval in (("up", [0, 1, 0], [0, 0, 1], 1.0), ("down", [0, -1, 0], [0, 0, 1], 0.0),
                                 ("level", [0, 0, 1], [0, 1, 0], 0.5)):
        sc = {"version": 1, "render": {"max_depth": 1},
              "camera": {"position": [0, 0, 0], "look_at": look, "up": up, "fov": 1},
              "background": {"type": "gradient", "bottom": [0.1, 0.2, 0.3], "top": [0.9, 0.6, 0.5]}}
        t, c = render_both(a, "gradient-" + what, sc, 4, 4)
        want = (1 - tval) * np.array([0.1, 0.2, 0.3]) + tval * np.array([0.9, 0.6, 0.5])
        report("gradient looking %s: trace" % what, centre(t, 1), want, 0.01)
        report("gradient looking %s: Cycles" % what, centre(c, 1), want, 0.01)

    # 4. Bounces: a closed diffuse box lit by a point light; image means.
    # (A point light, not a quad light: trace at 8711f69 shadows surfaces
    # that face a quad light from closer than about 1 + their largest
    # coordinate, see the report in compare.py's notes.)
    for depth in (1, 2, 3):
        w = {"type": "diffuse", "color": [0.7, 0.7, 0.7]}
        sc = {"version": 1, "render": {"max_depth": depth},
              "camera": {"position": [0, 0, -0.9], "look_at": [0, 0, 0], "fov": 80},
              "materials": {"w": w},
              "lights": [{"type": "point", "position": [0.2, 0.7, 0.3], "intensity": 2}],
              "objects": [
                  {"type": "quad", "corner": [-1, -1, -1], "edge1": [2, 0, 0], "edge2": [0, 0, 2], "material": "w"},
                  {"type": "quad", "corner": [-1, 1, -1], "edge1": [2, 0, 0], "edge2": [0, 0, 2], "material": "w"},
                  {"type": "quad", "corner": [-1, -1, -1], "edge1": [0, 2, 0], "edge2": [0, 0, 2], "material": "w"},
                  {"type": "quad", "corner": [1, -1, -1], "edge1": [0, 2, 0], "edge2": [0, 0, 2], "material": "w"},
                  {"type": "quad", "corner": [-1, -1, 1], "edge1": [2, 0, 0], "edge2": [0, 2, 0], "material": "w"},
                  {"type": "quad", "corner": [-1, -1, -1], "edge1": [2, 0, 0], "edge2": [0, 2, 0], "material": "w"}]}
        t, c = render_both(a, "bounces-%d" % depth, sc, 32, 256)
        report("box, max_depth %d vs Cycles %d bounces: image mean" % (depth, depth - 1), c.mean(axis=(0, 1)), t.mean(axis=(0, 1)), 0.01)

    # 5. A square emissive quad (half side q, radiance Le) at height h over
    # a diffuse floor: directly below its centre the floor's radiance is
    # albedo x Le x 4 F, F the corner form factor
    # 1/(2 pi) [X/sqrt(1+X^2) atan(Y/sqrt(1+X^2)) + Y/sqrt(1+Y^2) atan(X/sqrt(1+Y^2))],
    # X = Y = q/h. At h = 3 both renderers must match it. At h = 0.5 trace
    # at 8711f69 shows a shadow-ray bug: spawnTo ends the shadow ray at
    # dist x (1 - 1e-4) measured from the hit point, but spawn has moved the
    # origin 1e-4 x (1 + max |p|) along the normal, toward the light, so the
    # ray reaches the light itself and counts as occluded whenever
    # (1 + max |p|) cos > dist: the floor gets no direct light at all.
    # Reported as KNOWN (not failing the check) when only trace is off.
    albedo, le, q = 0.5, 4.0, 0.3
    for h in (3.0, 0.5):
        sc = {"version": 1, "render": {"max_depth": 1},
              "camera": {"position": [0, h / 2, 0], "look_at": [0, 0, 0], "up": [0, 0, 1], "fov": 1},
              "materials": {"m": {"type": "diffuse", "color": [albedo] * 3},
                            "l": {"type": "emissive", "intensity": le}},
              "objects": [{"type": "quad", "corner": [-5, 0, -5], "edge1": [0, 0, 10], "edge2": [10, 0, 0], "material": "m"},
                          {"type": "quad", "corner": [-q, h, -q], "edge1": [2 * q, 0, 0], "edge2": [0, 0, 2 * q], "material": "l"}]}
        t, c = render_both(a, "quadlight-h%g" % h, sc, 8, 1024)
        X = q / h
        F = (X / math.sqrt(1 + X * X) * math.atan(X / math.sqrt(1 + X * X))) * 2 / (2 * math.pi)
        want = albedo * le * 4 * F
        report("quad light at h=%g: Cycles, closed form" % h, centre(c), [want] * 3, 0.01)
        before = ok
        report("quad light at h=%g: trace, closed form" % h, centre(t), [want] * 3, 0.01)
        if h < 1 and not results[-1]["ok"]:
            ok = before
            results[-1]["known_trace_issue"] = "shadow ray TMax ignores the spawn offset (tracer/ray.go spawnTo at 8711f69)"
            print("KNOWN: trace's floor under a light closer than 1 + its coordinates gets no direct light (shadow ray TMax ignores the spawn offset)")

    # 6. Camera shift and thin lens, trace against Cycles (no closed form:
    # the two images must agree pixel by pixel): an emissive checker wall
    # seen with a lens shift, sharp, then out of focus. Relative RMSE of the
    # two images against the mean; a wrong shift unit or f-stop gives tens
    # of per cent.
    wall = {"type": "quad", "corner": [-2, -2, 4], "edge1": [4, 0, 0], "edge2": [0, 4, 0], "material": "e"}
    emat = {"e": {"type": "emissive", "texture": {"type": "checker", "scale": 6, "even": [1, 1, 1], "odd": [0.05, 0.05, 0.05]}}}
    for what, cam in (("shift [0.1, -0.2]", {"shift": [0.1, -0.2]}),
                      ("thin lens, aperture 0.3, focus 2", {"aperture": 0.3, "focus_distance": 2}),
                      ("sphere checker (u, v)", {})):
        c0 = {"position": [0, 0, 0], "look_at": [0, 0, 1], "fov": 40}
        c0.update(cam)
        sc = {"version": 1, "render": {"max_depth": 1}, "camera": c0, "materials": emat, "objects": [wall]}
        if what.startswith("sphere"):  # a checkered sphere seen from its -x side (u's seam) and above
            sc["camera"] = {"position": [-3.5, 2, 4], "look_at": [0, 0, 4], "fov": 40}
            sc["objects"] = [{"type": "sphere", "center": [0, 0, 4], "radius": 1.2, "material": "e"}]
        t, c = render_both(a, "camera-" + what.split()[0].strip(","), sc, 48, 256)
        rel = float(np.sqrt(np.mean((t - c) ** 2)) / np.mean(c))
        good = rel < 0.05
        ok = ok and good
        print("%-4s %-58s relative RMSE %.4f (limit 0.05)" % ("ok" if good else "BAD", "camera %s: trace vs Cycles" % what, rel))
        results.append({"check": "camera " + what, "rel_rmse": rel, "ok": good})

    # 7. Equirectangular background: a 64 x 32 PFM sky whose colour codes
    # the direction (red = u, green = v), seen by four cameras looking
    # along +z, -x, +x and 60 degrees up over +z (not at a pole or the
    # seam, where u is undefined); trace against Cycles.
    h, w = 32, 64
    sky = np.zeros((h, w, 3), dtype=np.float32)
    sky[:, :, 0] = (np.arange(w) + 0.5)[None, :] / w
    sky[:, :, 1] = 1 - (np.arange(h) + 0.5)[:, None] / h
    sky[:, :, 2] = 0.2
    imgio.write_pfm(os.path.join(a.out, "sky.pfm"), sky)
    for look, up in (([0, 0, 1], [0, 1, 0]), ([-1, 0, 0], [0, 1, 0]), ([1, 0, 0], [0, 1, 0]), ([0, 1.7, 1], [0, 1, 0])):
        sc = {"version": 1, "render": {"max_depth": 1},
              "camera": {"position": [0, 0, 0], "look_at": look, "up": up, "fov": 60},
              "background": {"type": "image", "file": "sky.pfm"}}
        t, c = render_both(a, "sky-%g_%g_%g" % tuple(look), sc, 16, 16)
        report("equirect sky looking %s: centre (red = u, green = v), Cycles vs trace" % look, centre(c, 1), centre(t, 1), 0.02)

    with open(os.path.join(a.out, "units_check.jsonl"), "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
