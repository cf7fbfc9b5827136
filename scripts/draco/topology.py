#!/usr/bin/env python3
"""Writes an OBJ whose Draco edgebreaker encoding takes the traversal's
rarer paths, for scripts/draco-vectors.sh: a torus (genus 1: split
symbols and topology split events; closed, with a texcoord seam round
both its circles that splits interior vertices into several points), a square grid with a square hole in it (boundaries: hole
vertices and start faces on an open edge), a closed octahedron (an
interior start face) and a lone triangle (a component of one face), each
with texcoords and smooth normals.

    topology.py > topology.obj
"""
import math

v, vt, vn, faces = [], [], [], []


def vert(p, uv, n):
    v.append(p)
    vt.append(uv)
    vn.append(n)
    return len(v), len(vt), len(vn)


# Torus: R 1, r 0.35, 24 × 12 quads; positions and normals shared round
# both circles, the texcoords of the seam vertices repeated with u or v 1,
# so that the seams split interior vertices' texcoords.
R, r, nu, nv = 1.0, 0.35, 24, 12
pos, uvs = {}, {}
for i in range(nu):
    for j in range(nv):
        a, b = 2 * math.pi * i / nu, 2 * math.pi * j / nv
        v.append(((R + r * math.cos(b)) * math.cos(a), (R + r * math.cos(b)) * math.sin(a), r * math.sin(b)))
        vn.append((math.cos(b) * math.cos(a), math.cos(b) * math.sin(a), math.sin(b)))
        pos[i, j] = len(v)
for i in range(nu + 1):
    for j in range(nv + 1):
        vt.append((i / nu, j / nv))
        uvs[i, j] = len(vt)


def torus(i, j):
    p = pos[i % nu, j % nv]
    return p, uvs[i, j], p


for i in range(nu):
    for j in range(nv):
        a, b, c, d = torus(i, j), torus(i + 1, j), torus(i + 1, j + 1), torus(i, j + 1)
        faces += [(a, b, c), (a, c, d)]

# A 8 × 8 grid at z = −1 without its middle 2 × 2 cells.
g = {}
for i in range(9):
    for j in range(9):
        g[i, j] = vert((3 + i * 0.25, j * 0.25 - 1, -1), (i / 8, j / 8), (0, 0, 1))
for i in range(8):
    for j in range(8):
        if 3 <= i <= 4 and 3 <= j <= 4:
            continue
        a, b, c, d = g[i, j], g[i + 1, j], g[i + 1, j + 1], g[i, j + 1]
        faces += [(a, b, c), (a, c, d)]

# An octahedron at x = −3, shared vertices.
o = [vert((-3 + x, y, z), (0.5 + x / 2, 0.5 + y / 2), (x, y, z))
     for x, y, z in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]
for a, b, c in ((0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)):
    faces.append((o[a], o[b], o[c]))

# A lone triangle.
t = [vert(p, (p[0] - 5, p[1]), (0, 0, 1)) for p in ((5, 0, 0), (6, 0, 0), (5, 1, 0))]
faces.append(tuple(t))

for p in v:
    print("v %.6f %.6f %.6f" % p)
for uv in vt:
    print("vt %.6f %.6f" % uv)
for n in vn:
    print("vn %.6f %.6f %.6f" % n)
for f in faces:
    print("f " + " ".join("%d/%d/%d" % k for k in f))
