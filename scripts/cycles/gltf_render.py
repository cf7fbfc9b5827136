"""Renders a trace scene whose objects are glTF files with Blender's Cycles,
through Blender's own glTF importer (Blender 3.4's io_import_scene_gltf2):
the picture a Blender user gets from the same file, as an independent
reference for trace's glTF import (scripts/sample-models.sh --cycles).

Run inside Blender:

    blender -b --factory-startup --python scripts/cycles/gltf_render.py -- \
        --scene SCENE.json --spp 256 --out x.pfm [--regions regions.json] [--threads 2] \
        [--size N] [--stats x.json] [--noise-threshold T [--min-samples N] [--sample-count n.pfm]]

The scene may hold only what this maps: `render` (width, height,
max_depth), a camera given by position/look_at/up/fov or by a glTF file's
camera ({"gltf": FILE, "camera": N}; Blender's importer reads it, and the
vertical field of view is then set from the file's yfov, as trace frames
it), a colour or image background, and mesh objects that are .gltf/.glb
files without a transform or a material. Materials are what the importer
builds (one Principled BSDF per glTF material); the settings, the world
and the camera conversion are render.py's.

--size N renders N x N pixels in place of the scene's width and height.
--stats, --noise-threshold, --min-samples and --sample-count
as render.py's (scripts/cycles/adaptive_compare.py). A film without a
filter gets trace's default, a Box of 1 px.

--regions writes, for each mesh object, the image position of the centre
of each of its loose parts (the spheres of a row of EnvironmentTest, say)
and the radius in pixels, for the comparison.

Blender 3.4's importer leaves glTF's MASK alpha mode to EEVEE (Cycles
would blend such a material); glTF_masks() applies the cutoff in the
shader, as glTF defines it; glTF_alpha() keeps texture colour apart
from its alpha.
"""

import json
import math
import os
import sys

import bpy
import numpy as np

sys.dont_write_bytecode = True
# Blender 3.4's glTF importer uses np.bool, which Debian 12's numpy (1.24)
# no longer has.
if "bool" not in np.__dict__:
    np.bool = bool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402


def args():
    a = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    opt = {"spp": 64, "threads": 2, "seed": 1, "regions": None, "mask": False, "bounces": None,
           "size": 0, "stats": None, "noise_threshold": 0.0, "min_samples": 0, "sample_count": None}
    for i in range(0, len(a), 2):
        opt[a[i].lstrip("-").replace("-", "_")] = a[i + 1]
    for k in ("spp", "threads", "seed", "size", "min_samples"):
        opt[k] = int(opt[k])
    opt["noise_threshold"] = float(opt["noise_threshold"])
    return opt


def gltf_camera(scene, path, index):
    """The glTF file's camera `index`, which the importer made: the scene's
    camera with a vertical fit of the file's yfov."""
    with open(path) as f:
        doc = json.load(f)
    yfov = doc["cameras"][index]["perspective"]["yfov"]
    cams = [o for o in bpy.context.scene.objects if o.type == "CAMERA"]
    # The importer names camera objects after their nodes, in node order;
    # match by the camera data's glTF index through the node list.
    nodes = [n for n in doc["nodes"] if n.get("camera") is not None]
    want = [n.get("name", "") for n in nodes if n["camera"] == index]
    persp = [o for o in cams if o.data.type == "PERSP"]
    ob = next((o for o in cams if o.name in want), persp[0] if len(persp) == 1 else None)
    if ob is None:
        raise SystemExit("%s: cannot tell which imported camera is camera %d" % (path, index))
    ob.data.sensor_fit = "VERTICAL"
    ob.data.angle_y = yfov
    ob.data.shift_x = ob.data.shift_y = 0.0
    ob.data.clip_start = min(ob.data.clip_start, 1e-3)
    ob.data.clip_end = max(ob.data.clip_end, 1e6)
    bpy.context.scene.camera = ob


def islands(mesh):
    """The mesh's loose parts, as lists of vertex indices."""
    parent = list(range(len(mesh.vertices)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for e in mesh.edges:
        a, b = find(e.vertices[0]), find(e.vertices[1])
        if a != b:
            parent[a] = b
    parts = {}
    for i in range(len(parent)):
        parts.setdefault(find(i), []).append(i)
    return sorted(parts.values(), key=lambda p: min(p))


def regions(path, size):
    """Per mesh object: each loose part (a sphere of a row of
    EnvironmentTest, a quad) as (pixel x, pixel y from the top, radius in
    pixels), sorted left to right."""
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector
    sc = bpy.context.scene
    cam = sc.camera
    w, h = size
    out = {}
    for ob in sc.objects:
        if ob.type != "MESH" or len(ob.data.vertices) == 0:
            continue
        m = ob.matrix_world
        co = np.array([tuple(m @ v.co) for v in ob.data.vertices])
        found = []
        for p in islands(ob.data):
            c = co[p]
            centre = Vector((c.max(axis=0) + c.min(axis=0)) / 2)
            r = float((c.max(axis=0) - c.min(axis=0)).max() / 2)
            v = world_to_camera_view(sc, cam, centre)
            edge = world_to_camera_view(sc, cam, centre + cam.matrix_world.to_3x3() @ Vector((r, 0, 0)))
            found.append([v.x * w, (1 - v.y) * h, abs(edge.x - v.x) * w])
        out[ob.name] = sorted(found)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


def glTF_alpha():
    """glTF's base colour is straight (unassociated) RGB, whatever the
    alpha: an OPAQUE material shows the texels' RGB as stored. Blender
    reads PNG alpha as premultiplying its colour output (an OPAQUE quad of
    alpha 0 would come out black), so every image is read as channel
    packed, colour and alpha apart, as glTF means them."""
    for img in bpy.data.images:
        img.alpha_mode = "CHANNEL_PACKED"


def glTF_masks():
    """Blender 3.4's importer gives a glTF MASK material blend_method CLIP
    and its cutoff as alpha_threshold, which only EEVEE reads: Cycles would
    blend it. Feed the Principled BSDF's Alpha 1 - (alpha < cutoff)
    instead, glTF's rule (opaque where alpha >= cutoff, else not drawn)."""
    for mat in bpy.data.materials:
        if mat.blend_method != "CLIP" or not mat.use_nodes:
            continue
        tree = mat.node_tree
        for n in tree.nodes:
            if n.type != "BSDF_PRINCIPLED":
                continue
            a = n.inputs["Alpha"]
            src = a.links[0].from_socket if a.links else None
            lt = tree.nodes.new("ShaderNodeMath")
            lt.operation = "LESS_THAN"
            if src is not None:
                tree.links.new(src, lt.inputs[0])
            else:
                lt.inputs[0].default_value = a.default_value
            lt.inputs[1].default_value = mat.alpha_threshold
            inv = tree.nodes.new("ShaderNodeMath")
            inv.operation = "SUBTRACT"
            inv.inputs[0].default_value = 1.0
            tree.links.new(lt.outputs[0], inv.inputs[1])
            tree.links.new(inv.outputs[0], a)


def main():
    opt = args()
    with open(opt["scene"]) as f:
        scene = json.load(f)
    scene["dir"] = os.path.dirname(os.path.abspath(opt["scene"]))
    rs = scene["render"]
    rs.setdefault("max_depth", 5)
    if opt["size"]:
        rs["width"] = rs["height"] = opt["size"]
    film = scene.setdefault("film", {})
    film.setdefault("filter", "box")
    film.setdefault("filter_width", 1)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    render.settings(scene, dict(opt, size=1))
    sc = bpy.context.scene
    sc.render.resolution_x, sc.render.resolution_y = rs["width"], rs["height"]
    for o in scene["objects"]:
        if o.get("type") != "mesh" or not o["file"].endswith((".gltf", ".glb")) or "transform" in o or "material" in o:
            raise SystemExit("object %s: only glTF mesh objects without transform or material are mapped" % o)
        bpy.ops.import_scene.gltf(filepath=os.path.join(scene["dir"], o["file"]))
    glTF_alpha()
    glTF_masks()
    for ob in list(sc.objects):
        if ob.type == "LIGHT":
            raise SystemExit("the glTF files hold lights; not mapped here")
    c = scene["camera"]
    if "gltf" in c:
        gltf_camera(scene, os.path.join(scene["dir"], c["gltf"]), int(c.get("camera", 0)))
    else:
        for ob in [o for o in sc.objects if o.type == "CAMERA"]:
            bpy.data.objects.remove(ob)
        c.setdefault("up", [0, 1, 0])
        c.setdefault("shift", [0, 0])
        c.setdefault("aperture", 0)
        c.setdefault("focus_distance", 0)
        render.camera(scene, 1.0, False, None)
    scene["background"].setdefault("type", "color")
    render.world(scene, False)
    if opt["regions"]:
        regions(opt["regions"], (rs["width"], rs["height"]))

    st = render.render_to_pfm(opt)
    if opt["stats"]:
        with open(opt["stats"], "w") as f:
            json.dump({**st, "size": rs["width"], "blender": bpy.app.version_string}, f)
    print("gltf_render.py: %s, %d spp" % (opt["out"], sc.cycles.samples))


if __name__ == "__main__":
    render.run(main, "gltf_render.py")
