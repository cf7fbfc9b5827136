"""A turned image background, trace against Cycles: where the sun's
shadow and its reflection fall.

    /usr/bin/python3 scripts/cycles/envrot_compare.py --trace bin/trace \
        [--out /tmp/trace-envrot] [--size 96] [--spp 256] [--threads 2] [--blender blender]

It writes a 128 x 64 equirectangular PFM: a dim sky (0.05) with a red
patch just above the horizon, 10 to 40 degrees left of the map's +z (to
see the map's orientation in the background itself) and a sun, a Gaussian blob of peak 2000 at 40 degrees from the
zenith in the map's +z direction; then three scenes lit by it alone, a
diffuse sphere and a mirror sphere on a grey floor: the map unturned,
"rotation": 90 and "rotation": [20, 130, -15]. Each is rendered by trace
and by Cycles (render.py, whose Mapping node turns the map), at --spp.

Printed per scene: the sun's world direction (tracescene.background_rotation
times the map's), and the mean of R + G + B in a few probes, trace, Cycles
and Cycles / trace: "shadow", a 5 x 5 pixel box where the diffuse sphere's
shadow centre falls on the floor (the ray from the sphere's centre away
from the sun); "glint", a box on the mirror sphere where it reflects
the sun (5 x 5 pixels about the normal halfway between the sun and the
eye, as seen from the centre); "lit", a box on the floor beside the shadow (the shadow point
mirrored about the sphere's foot); and the whole image, the background
pixels (no object) and each of 4 x 4 blocks of the image (the largest
|Cycles / trace - 1| of those brighter than a tenth of the mean). Then,
for the turned scenes, the same probes in the unturned renders: the
shadow and the glint move with the map in both renderers alike.
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
import tracescene  # noqa: E402

W, H = 128, 64
SUN_THETA = math.radians(40)  # from the zenith, toward the map's +z
SPHERE = ([0.0, 0.8, 0.0], 0.8)
MIRROR = ([2.0, 0.7, 1.6], 0.7)
CAMERA = {"position": [0, 3.5, -8], "look_at": [0.6, 0.9, 0.6], "up": [0, 1, 0], "fov": 55}
ROTATIONS = [("unturned", None), ("y90", 90), ("xyz", [20, 130, -15])]


def sky():
    """The map, row 0 at the top (straight up), as imgio takes it."""
    j, i = np.mgrid[0:H, 0:W]
    theta = (j + 0.5) / H * math.pi
    phi = (i + 0.5) / W * 2 * math.pi - math.pi  # trace's u = (phi + pi) / 2pi
    img = np.full((H, W, 3), 0.05, dtype=np.float64)
    patch = (theta > math.radians(60)) & (theta < math.radians(95)) & (phi > math.radians(-40)) & (phi < math.radians(-10))
    img[patch] = [0.6, 0.05, 0.05]
    d = np.stack([-np.sin(theta) * np.sin(phi), np.cos(theta), np.sin(theta) * np.cos(phi)], axis=-1)
    sun = np.array([0, math.cos(SUN_THETA), math.sin(SUN_THETA)])
    ang = np.arccos(np.clip(d @ sun, -1, 1))
    img += 2000 * np.exp(-0.5 * (ang / math.radians(2.5)) ** 2)[..., None]
    return img.astype(np.float32), sun


def scene(rotation):
    bg = {"type": "image", "file": "sky.pfm"}
    if rotation is not None:
        bg["rotation"] = rotation
    return {
        "version": 1,
        "render": {"width": 96, "height": 96, "samples": 64, "max_depth": 4, "integrator": "path", "seed": 1},
        "camera": CAMERA,
        "background": bg,
        "materials": {
            "floor": {"type": "diffuse", "color": [0.5, 0.5, 0.5]},
            "clay": {"type": "diffuse", "color": [0.6, 0.6, 0.6]},
            "mirror": {"type": "metal", "color": [0.9, 0.9, 0.9], "roughness": 0},
        },
        "objects": [
            {"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "floor"},
            {"type": "sphere", "center": SPHERE[0], "radius": SPHERE[1], "material": "clay"},
            {"type": "sphere", "center": MIRROR[0], "radius": MIRROR[1], "material": "mirror"},
        ],
    }


def pixel(p, size):
    """The pixel (column, row from the top) that world point p lies in."""
    c = CAMERA
    fwd, right, up = tracescene.camera_frame(c)
    d = np.asarray(p, dtype=np.float64) - np.array(c["position"], dtype=np.float64)
    ph = 2 * math.tan(math.radians(c["fov"]) / 2)
    x = np.dot(d, right) / np.dot(d, fwd) / ph
    y = np.dot(d, up) / np.dot(d, fwd) / ph
    return int((x + 0.5) * size), int((0.5 - y) * size)


def probes(sun, size):
    """The probes' pixel boxes (column, row, half-width)."""
    centre, r = np.array(SPHERE[0]), SPHERE[1]
    shadow = centre - sun * (centre[1] / sun[1])
    foot = np.array([centre[0], 0, centre[2]])
    lit = 2 * foot - shadow
    mc, mr = np.array(MIRROR[0]), MIRROR[1]
    eye = np.array(CAMERA["position"], dtype=np.float64)
    v = (eye - mc) / np.linalg.norm(eye - mc)
    n = (v + sun) / np.linalg.norm(v + sun)
    out = {"shadow": pixel(shadow, size) + (2,), "lit": pixel(lit, size) + (2,)}
    if np.dot(n, v) > 0.2:  # the glint faces the camera
        out["glint"] = pixel(mc + mr * n, size) + (2,)
    return out


def box_mean(img, box):
    x, y, k = box
    h, w, _ = img.shape
    if not (k <= x < w - k and k <= y < h - k):
        return float("nan")
    return float(img[y - k:y + k + 1, x - k:x + k + 1].sum(axis=2).mean())


def background_mask(size):
    """Pixels whose centre ray meets no object (the floor plane, the two
    spheres): the background."""
    c = CAMERA
    fwd, right, up = tracescene.camera_frame(c)
    eye = np.array(c["position"], dtype=np.float64)
    ph = 2 * math.tan(math.radians(c["fov"]) / 2)
    xs = ((np.arange(size) + 0.5) / size - 0.5) * ph
    ys = (0.5 - (np.arange(size) + 0.5) / size) * ph
    d = fwd + xs[None, :, None] * right + ys[:, None, None] * up
    d /= np.linalg.norm(d, axis=2, keepdims=True)
    hit = d[..., 1] < 0
    for ctr, r in (SPHERE, MIRROR):
        oc = eye - np.array(ctr)
        b = d @ oc
        hit |= (b * b - (oc @ oc - r * r) > 0) & (b < 0)
    return ~hit


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trace", default=os.path.join(HERE, "..", "..", "bin", "trace"))
    p.add_argument("--blender", default="blender")
    p.add_argument("--out", default="/tmp/trace-envrot")
    p.add_argument("--size", type=int, default=96)
    p.add_argument("--spp", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    img, sun_map = sky()
    imgio.write_pfm(os.path.join(a.out, "sky.pfm"), img)
    renders = {}
    for name, rot in ROTATIONS:
        path = os.path.join(a.out, name + ".json")
        with open(path, "w") as f:
            json.dump(scene(rot), f, indent=1)
        t_out, c_out = os.path.join(a.out, name + "-trace.pfm"), os.path.join(a.out, name + "-cycles.pfm")
        subprocess.run([a.trace, "render", path, "--width", str(a.size), "--height", str(a.size),
                        "--samples", str(a.spp), "-o", t_out, "--threads", str(a.threads), "-q"], check=True)
        subprocess.run([a.blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "render.py"), "--",
                        "--scene", path, "--size", str(a.size), "--spp", str(a.spp), "--out", c_out,
                        "--threads", str(a.threads)], check=True, stdout=subprocess.DEVNULL)
        sun = tracescene.background_rotation(scene(rot)["background"]) @ sun_map
        renders[name] = (imgio.read_pfm(t_out), imgio.read_pfm(c_out), sun)
        imgio.write_png(os.path.join(a.out, name + "-side.png"),
                        imgio.to_srgb8(np.concatenate([renders[name][0], renders[name][1]], axis=1)))
    bgmask = background_mask(a.size)
    for name, _ in ROTATIONS:
        t, c, sun = renders[name]
        print("%s: sun toward (%.3f, %.3f, %.3f)" % ((name,) + tuple(sun)))
        for probe, box in probes(sun, a.size).items():
            mt, mc = box_mean(t, box), box_mean(c, box)
            line = "  %-7s at (%2d, %2d): trace %8.4f  Cycles %8.4f  Cycles/trace %.3f" % (probe, box[0], box[1], mt, mc, mc / mt)
            if name != "unturned":
                u = renders["unturned"]
                line += "   unturned: trace %8.4f  Cycles %8.4f" % (box_mean(u[0], box), box_mean(u[1], box))
            print(line)
        st, sc = t.sum(axis=2), c.sum(axis=2)
        print("  image   trace %8.4f  Cycles %8.4f  Cycles/trace %.3f" % (st.mean(), sc.mean(), sc.mean() / st.mean()))
        print("  sky     trace %8.4f  Cycles %8.4f  Cycles/trace %.3f" % (st[bgmask].mean(), sc[bgmask].mean(),
                                                                          sc[bgmask].mean() / st[bgmask].mean()))
        n = a.size // 4
        bt = st.reshape(4, n, 4, n).mean(axis=(1, 3))
        bc = sc.reshape(4, n, 4, n).mean(axis=(1, 3))
        bright = bt > 0.1 * st.mean()
        worst = np.max(np.abs(bc[bright] / bt[bright] - 1))
        line = "  4x4 blocks: largest |Cycles/trace - 1| %.3f over %d" % (worst, bright.sum())
        if name != "unturned":
            ut = renders["unturned"][0].sum(axis=2).reshape(4, n, 4, n).mean(axis=(1, 3))
            moved = np.abs(bt / np.maximum(ut, 1e-9) - 1) > 0.2
            line += "; %d blocks differ from the unturned render by > 20 %%" % moved.sum()
        print(line)


if __name__ == "__main__":
    main()
