#!/usr/bin/env python3
"""Writes the first primitive of a glTF file (POSITION, NORMAL, TEXCOORD_0,
indices; buffers as data URIs) as an OBJ whose v/vt/vn share the glTF
vertex's index, the input draco_encoder reads: scripts/draco-vectors.sh."""
import base64, json, struct, sys

g = json.load(open(sys.argv[1]))
data = [base64.b64decode(b["uri"].split(",", 1)[1]) for b in g["buffers"]]


def read(i):
    a = g["accessors"][i]
    bv = g["bufferViews"][a["bufferView"]]
    off = bv.get("byteOffset", 0) + a.get("byteOffset", 0)
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3}[a["type"]]
    fmt = {5126: "f", 5123: "H", 5125: "I"}[a["componentType"]]
    size = struct.calcsize(fmt) * n
    return [struct.unpack_from("<" + fmt * n, data[bv["buffer"]], off + k * size) for k in range(a["count"])]


p = g["meshes"][0]["primitives"][0]
at = p["attributes"]
out = sys.stdout
for v in read(at["POSITION"]):
    out.write("v %r %r %r\n" % v)
for v in read(at["TEXCOORD_0"]):
    out.write("vt %r %r\n" % v)
for v in read(at["NORMAL"]):
    out.write("vn %r %r %r\n" % v)
idx = [i[0] + 1 for i in read(p["indices"])]
for k in range(0, len(idx), 3):
    out.write("f %s\n" % " ".join("%d/%d/%d" % (i, i, i) for i in idx[k:k + 3]))
