#!/usr/bin/env python3
"""Writes a copy of a glTF file whose every primitive reads its geometry
from one Draco stream (KHR_draco_mesh_compression), the layout Blender's
exporter writes: the stream as the only buffer (a data URI) and view,
accessors of the same count, type and component type without a
bufferView, the extension's attributes map naming the Draco attribute ids
(positions, texcoords and normals of draco_encoder's OBJ input: 0, 1, 2),
and the extension required: scripts/draco-vectors.sh. The attributes'
accessors count the stream's points and the indices three per face where
they are given (the reference decoder's: edgebreaker numbers the points by
its seams, not as the original vertices, and drops degenerate faces), else
the original's.

    gltfdraco.py in.gltf stream.drc [points faces] > out.gltf
"""
import base64, json, sys

g = json.load(open(sys.argv[1]))
drc = open(sys.argv[2], "rb").read()
old_accessors = g["accessors"]
g["accessors"] = []
g["buffers"] = [{"byteLength": len(drc), "uri": "data:application/octet-stream;base64," + base64.b64encode(drc).decode()}]
g["bufferViews"] = [{"buffer": 0, "byteLength": len(drc)}]
view = 0
ids = {"POSITION": 0, "TEXCOORD_0": 1, "NORMAL": 2}
made = {}  # old accessor -> new one, shared as the old ones are
for m in g["meshes"]:
    for p in m["primitives"]:
        for key in list(p["attributes"]) + ["indices"]:
            old = p["attributes"][key] if key != "indices" else p["indices"]
            if old not in made:
                a = {k: v for k, v in old_accessors[old].items() if k not in ("bufferView", "byteOffset")}
                if len(sys.argv) > 4:
                    a["count"] = int(sys.argv[3]) if key != "indices" else 3 * int(sys.argv[4])
                g["accessors"].append(a)
                made[old] = len(g["accessors"]) - 1
            if key == "indices":
                p["indices"] = made[old]
            else:
                p["attributes"][key] = made[old]
        p["extensions"] = {"KHR_draco_mesh_compression": {"bufferView": view, "attributes": {k: ids[k] for k in p["attributes"]}}}
for k in ("extensionsUsed", "extensionsRequired"):
    g[k] = sorted(set(g.get(k, [])) | {"KHR_draco_mesh_compression"})
g["asset"]["generator"] = "scripts/draco/gltfdraco.py"
json.dump(g, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
