#!/usr/bin/env python3
"""lightroom.py: the room of many lights that scripts/point-lights-noise.sh
and scripts/downlights-noise.sh measure the light tree in (a 10×3×10 box,
a red wall, a sphere, two open crates; 64×64, black background).

    lightroom.py OUT MODE DEPTH bulbs N            N point bulbs, placed at random (seed 12345)
    lightroom.py OUT MODE DEPTH KIND N INNER/OUTER N lights of KIND (spot or point) in a grid
                                                   under the ceiling, every sixth spot a wall-washer tilted 30°

MODE is render.light_tree_points (auto, always, never), DEPTH max_depth.
"""
import json
import math
import random
import sys


def quad(c, e1, e2, m):
    return {"type": "quad", "corner": c, "edge1": e1, "edge2": e2, "material": m}


def objects():
    objs = [quad([-5, 0, -5], [10, 0, 0], [0, 0, 10], "floor"), quad([-5, 3, -5], [10, 0, 0], [0, 0, 10], "wall"),
            quad([-5, 0, 5], [10, 0, 0], [0, 3, 0], "wall"), quad([-5, 0, -5], [0, 0, 10], [0, 3, 0], "red"),
            quad([5, 0, -5], [0, 0, 10], [0, 3, 0], "wall"), quad([-5, 0, -5], [10, 0, 0], [0, 3, 0], "wall"),
            {"type": "sphere", "center": [1.5, 0.8, 1], "radius": 0.8, "material": "white"}]
    for (x, z, h) in [(-2, 0, 1.2), (0.5, 3, 2)]:
        for c, e1, e2 in [([x, 0, z], [1, 0, 0], [0, h, 0]), ([x, 0, z + 1], [1, 0, 0], [0, h, 0]),
                          ([x, 0, z], [0, 0, 1], [0, h, 0]), ([x + 1, 0, z], [0, 0, 1], [0, h, 0]),
                          ([x, h, z], [1, 0, 0], [0, 0, 1])]:
            objs.append(quad(c, e1, e2, "white"))
    return objs


def bulbs(n):
    rng = random.Random(12345)
    return [{"type": "point", "position": [rng.uniform(-4.5, 4.5), rng.uniform(1.5, 2.8), rng.uniform(-4.5, 4.5)],
             "color": [1, rng.uniform(0.7, 1), rng.uniform(0.5, 1)], "intensity": 60.0 / n} for _ in range(n)]


def downlights(kind, n, inner, outer):
    cols = math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    lights = []
    for k in range(n):
        i, j = k % cols, k // cols
        x = -4.2 + 8.4 * (i + 0.5) / cols
        z = -4.2 + 8.4 * (j + 0.5) / rows
        l = {"type": kind, "position": [round(x, 4), 2.95, round(z, 4)], "color": [1, 0.85, 0.7], "intensity": 240.0 / n}
        if kind == "spot":
            l.update({"direction": [0, -1, 0], "inner_angle": inner, "outer_angle": outer})
            if k % 6 == 5:
                # A wall-washer: tilted 30° toward the nearest wall.
                wx, wz = (math.copysign(1, x), 0) if abs(x) >= abs(z) else (0, math.copysign(1, z))
                t = math.tan(math.radians(30))
                l.update({"direction": [wx * t, -1, wz * t], "inner_angle": max(inner - 5, 0), "outer_angle": min(outer + 5, 90)})
        lights.append(l)
    return lights


def room(lights, mode, depth):
    return {"version": 1, "render": {"width": 64, "height": 64, "samples": 16, "max_depth": depth, "integrator": "path", "seed": 1,
                                     "light_tree_points": mode},
            "camera": {"position": [0, 1.6, -4.8], "look_at": [0, 1, 0], "fov": 75},
            "background": {"color": [0, 0, 0]},
            "materials": {"floor": {"type": "diffuse", "color": [0.6, 0.6, 0.6]}, "wall": {"type": "diffuse", "color": [0.7, 0.7, 0.7]},
                          "red": {"type": "diffuse", "color": [0.7, 0.2, 0.1]}, "white": {"type": "diffuse", "color": [0.75, 0.75, 0.75]}},
            "lights": lights, "objects": objects()}


def main(argv):
    out, mode, depth, layout, n = argv[0], argv[1], int(argv[2]), argv[3], int(argv[4])
    if layout == "bulbs":
        lights = bulbs(n)
    else:
        inner, outer = (float(a) for a in argv[5].split("/"))
        lights = downlights(layout, n, inner, outer)
    json.dump(room(lights, mode, depth), open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
