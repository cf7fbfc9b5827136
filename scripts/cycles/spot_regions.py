"""Region means of a spot-lit scene, trace against Cycles, by cone zone.

    /usr/bin/python3 scripts/cycles/spot_regions.py --scene scripts/cycles/scenes/spots.json \
        --trace OUT/spots-trace-ref-1024.pfm --cycles OUT/spots-cycles-ref-1024.pfm

The PFMs are what scripts/cycles-compare.sh leaves in its --out (square,
--size a side). For a scene of planes of diffuse materials lit by spot
lights alone under direct light (render.max_depth 1, as
scripts/cycles/scenes/spots.json), each pixel's centre ray is followed to
its plane here, and the pixel is put in a zone of the one spot whose cone
holds it: "axis" (within 5 degrees of the axis), "core" (within the inner
angle), "penumbra" (between the inner and the outer angle), or "dark"
(past every spot's outer angle), with a margin of --margin degrees from
each edge and the pixel's 3x3 neighbours all in the same zone and plane
(pixels are areas, the edges sharp). Per zone: the mean of R + G + B of
trace and of Cycles, Cycles / trace, and what the models predict for it
(tracescene.spot_factor, glTF's, against cycles_spot_factor, Cycles
3.4's, both with colour x intensity x albedo/pi x cos i / d^2 at the pixel
centres), and trace against its closed form.
"""

import argparse
import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imgio  # noqa: E402
import tracescene  # noqa: E402


def hits(scene, w, h):
    """The first plane that each pixel centre's camera ray meets: (h, w)
    plane indices (-1 for none), points (h, w, 3) and unit normals."""
    c = scene["camera"]
    fwd, right, up = tracescene.camera_frame(c)
    eye = np.array(c["position"], dtype=np.float64)
    ph = 2 * math.tan(math.radians(c["fov"]) / 2)
    xs = ((np.arange(w) + 0.5) / w - 0.5) * ph * w / h
    ys = (0.5 - (np.arange(h) + 0.5) / h) * ph
    d = fwd + xs[None, :, None] * right + ys[:, None, None] * up
    best = np.full((h, w), np.inf)
    which = np.full((h, w), -1)
    normals = np.zeros((h, w, 3))
    for i, o in enumerate(scene["objects"]):
        if o["type"] != "plane":
            raise SystemExit("objects[%d]: only planes are followed here, not %s" % (i, o["type"]))
        n = np.array(o["normal"], dtype=np.float64)
        n /= np.linalg.norm(n)
        dn = d @ n
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (np.array(o["point"]) - eye) @ n / dn
        closer = (t > 1e-9) & (t < best)
        best[closer], which[closer] = t[closer], i
        normals[closer] = n
    return which, eye + best[..., None] * d, normals


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scene", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--cycles", required=True)
    ap.add_argument("--margin", type=float, default=1.5, help="degrees kept from each cone edge (1.5)")
    a = ap.parse_args()
    scene = tracescene.load(a.scene)
    tr, cy = imgio.read_pfm(a.trace).sum(axis=2), imgio.read_pfm(a.cycles).sum(axis=2)
    h, w = tr.shape
    which, p, nrm = hits(scene, w, h)
    albedo = np.zeros((h, w))
    for i, o in enumerate(scene["objects"]):
        m = scene["materials"][o["material"]]
        if m["type"] != "diffuse" or "texture" in m:
            raise SystemExit("objects[%d]: only plain diffuse materials are modelled here" % i)
        albedo[which == i] = float(np.mean(m["color"]))  # times R + G + B of the light below
    spots = scene["lights"]
    zone = np.zeros((h, w), dtype=np.int64)  # 0 unclassified, 1 dark, 2 + 4k + z: spot k, zone z
    model_t, model_c = np.zeros((h, w)), np.zeros((h, w))
    lit = np.zeros((h, w), dtype=np.int64)
    past = np.ones((h, w), dtype=bool)
    m = math.radians(a.margin)
    per = []
    for k, l in enumerate(spots):
        if l["type"] != "spot":
            raise SystemExit("lights[%d]: only spot lights are modelled here" % k)
        v = p - np.array(l["position"])
        dist = np.linalg.norm(v, axis=2)
        u = v / dist[..., None]
        cos_t = u @ np.array(l["direction"])
        cos_i = np.abs((u * nrm).sum(axis=2))
        e = sum(l["color"]) * l["intensity"] * albedo / math.pi * cos_i / dist ** 2
        model_t += e * tracescene.spot_factor(l, cos_t)
        model_c += e * tracescene.cycles_spot_factor(l, cos_t)
        theta = np.arccos(np.clip(cos_t, -1, 1))
        inner, outer = math.radians(l["inner_angle"]), math.radians(l["outer_angle"])
        lit += theta < outer + m
        past &= theta > outer + m
        z = np.full((h, w), -1)
        z[(theta > inner + m) & (theta < outer - m)] = 2
        z[theta < inner - m] = 1
        z[theta < math.radians(5)] = 0
        per.append(z)
    zone[past & (which >= 0)] = 1
    for k, z in enumerate(per):
        own = (z >= 0) & (lit == 1)
        zone[own] = 2 + 4 * k + z[own]
    # Keep pixels whose 3x3 neighbours share their zone and plane.
    keep = zone > 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            zs = np.roll(np.roll(zone, dy, 0), dx, 1)
            ws = np.roll(np.roll(which, dy, 0), dx, 1)
            keep &= (zs == zone) & (ws == which)
    keep[0, :] = keep[-1, :] = keep[:, 0] = keep[:, -1] = False
    names = ["axis (< 5 deg)", "core (5 deg to inner)", "penumbra"]
    print("%-34s %6s %10s %10s %8s %10s %10s" % ("region", "pixels", "trace", "Cycles", "Cy/tr", "predicted", "tr/form"))

    def row(label, sel):
        if not sel.any():
            print("%-34s %6d" % (label, 0))
            return
        t, c = tr[sel].mean(), cy[sel].mean()
        mt, mc = model_t[sel].mean(), model_c[sel].mean()
        ratio = c / t if t > 0 else float("nan")
        pred = mc / mt if mt > 0 else float("nan")
        form = t / mt if mt > 0 else float("nan")
        print("%-34s %6d %10.5f %10.5f %8.4f %10.4f %10.4f" % (label, sel.sum(), t, c, ratio, pred, form))

    for k, l in enumerate(spots):
        for z in (0, 1, 2):
            row("lights[%d] %g/%g deg %s" % (k, l["inner_angle"], l["outer_angle"], names[z]), keep & (zone == 2 + 4 * k + z))
    row("dark (past every outer angle)", keep & (zone == 1))


if __name__ == "__main__":
    main()
