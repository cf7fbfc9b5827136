"""Compares trace's render of a glTF sample model with Cycles' render of the
same file through Blender's glTF importer (gltf_render.py), region by
region (scripts/sample-models.sh --cycles).

    python3 scripts/cycles/gltf_compare.py TRACE.pfm CYCLES.pfm REGIONS.json SIDE.png

REGIONS.json is gltf_render.py --regions: per mesh object, discs (pixel
centre, radius). Each disc's inner half (radius x 0.5) is averaged in both
images; the table gives the mean luminance (Rec. 709) of each and their
ratio. SIDE.png is trace | Cycles, plain sRGB, clamped.
"""

import json
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import imgio  # noqa: E402

LUM = np.array([0.2126, 0.7152, 0.0722], dtype=np.float64)


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    tr, cy = imgio.read_pfm(sys.argv[1]), imgio.read_pfm(sys.argv[2])
    if tr.shape != cy.shape:
        raise SystemExit("the images differ in size: %s and %s" % (tr.shape, cy.shape))
    with open(sys.argv[3]) as f:
        regions = json.load(f)
    h, w, _ = tr.shape
    yy, xx = np.mgrid[0:h, 0:w]
    ratios = []
    print("%-24s %3s %9s %9s %7s" % ("object", "#", "trace", "Cycles", "ratio"))
    for name in sorted(regions):
        for k, (px, py, r) in enumerate(regions[name]):
            sel = (xx + 0.5 - px) ** 2 + (yy + 0.5 - py) ** 2 <= (0.5 * r) ** 2
            if sel.sum() < 4:
                continue
            a = float((tr[sel] @ LUM).mean())
            b = float((cy[sel] @ LUM).mean())
            ratio = a / b if b > 0 else float("nan")
            ratios.append(ratio)
            print("%-24s %3d %9.4f %9.4f %7.3f" % (name, k, a, b, ratio))
    whole = float((tr @ LUM).mean() / (cy @ LUM).mean())
    r = np.array(ratios)
    print("regions %d: ratio trace/Cycles median %.3f, min %.3f, max %.3f; whole image %.3f"
          % (len(r), np.median(r), r.min(), r.max(), whole))
    side = np.concatenate([imgio.to_srgb8(tr), np.zeros((h, 4, 3), np.uint8), imgio.to_srgb8(cy)], axis=1)
    imgio.write_png(sys.argv[4], side)


if __name__ == "__main__":
    main()
