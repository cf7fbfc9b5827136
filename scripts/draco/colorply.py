#!/usr/bin/env python3
"""Writes an OBJ's positions and triangles as an ASCII PLY with a colour
per vertex (red, green, blue from the position mapped from [-1, 1] to
[0, 255], alpha 255), the input of draco_encoder's integer colour
attribute: scripts/draco-vectors.sh.

    colorply.py in.obj > out.ply
"""
import sys

verts, faces = [], []
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "v":
        verts.append(tuple(float(x) for x in f[1:4]))
    elif f and f[0] == "f":
        faces.append([int(x.split("/")[0]) - 1 for x in f[1:]])
out = sys.stdout
out.write("ply\nformat ascii 1.0\nelement vertex %d\n" % len(verts))
for p in ("x", "y", "z"):
    out.write("property float %s\n" % p)
for p in ("red", "green", "blue", "alpha"):
    out.write("property uchar %s\n" % p)
out.write("element face %d\nproperty list uchar int vertex_indices\nend_header\n" % len(faces))
for x, y, z in verts:
    c = [min(255, max(0, int(127.5 * (v + 1)))) for v in (x, y, z)]
    out.write("%r %r %r %d %d %d 255\n" % (x, y, z, c[0], c[1], c[2]))
for f in faces:
    out.write("3 %d %d %d\n" % tuple(f))
