"""Builds a small Blender scene, saves it, exports it with Blender's own
exporters, writes trace scene files around the exports and renders the
.blend with Cycles: the picture the user authored, as the reference for
trace's import of what Blender writes (scripts/blender-roundtrip.sh).

Run inside Blender (3.4):

    blender -b --factory-startup --python scripts/cycles/blender_roundtrip.py -- \
        --scene stilllife --out DIR [--width 200 --height 150 --spp 256 --trace-spp 256 --threads 2]

Scenes (Blender's Z-up world):

- stilllife: a floor with a generated PNG (four coloured quadrants, so a
  flipped or turned UV shows), a rough metal, a smooth plastic and a Glass
  BSDF sphere, an emissive cube (Principled emission, strength 5); a Sun
  and a Point light; a 35 mm camera, horizontal sensor fit.
- spotarea: the same objects (glass as a Principled of transmission 1),
  lit by a Spot (cone 50 degrees, blend 0.3) and an Area light (which
  glTF cannot hold: Blender's exporter drops it) besides the Sun.
- hierarchy: an empty turned and scaled unevenly, parent of a flat-shaded
  cube and of a smooth-shaded, subdivided (modifier, applied on export)
  icosphere, itself parent of a small scaled sphere; Sun and Point light.

Each writes, in DIR: NAME.blend, NAME.gltf (+ .bin, floor.png), NAME.glb,
NAME-zup.gltf (export_yup off: Z-up, as some users export), NAME.obj and
NAME.mtl (the legacy exporter, export_scene.obj, materials on), and a
trace scene around each (NAME-gltf.json, NAME-glb.json, NAME-zup.json,
NAME-obj.json: glTF scenes take the camera from the file and its lights;
the OBJ scene gets the camera and the Point and Sun lights converted
here, Blender's W to trace's intensity by W / 4 pi), NAME-regions.json
(discs per probe, as gltf_compare.py reads them) and NAME-cycles.pfm
(Cycles: path tracing, no denoising, Standard view, Box filter 1 px,
--spp samples), and for a scene with Area lights NAME-cycles-punctual.pfm,
the same without them (what glTF can hold).

Point lights and spots have radius 0 and the Sun angle 0 here: glTF holds
neither (see the report of the script for what a user loses with them).
"""

import json
import math
import os
import sys

import bpy
import numpy as np
from mathutils import Vector

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402

BACKGROUND = 0.05  # uniform world, both renderers
MAX_DEPTH = 8      # trace's max_depth; Cycles gets MAX_DEPTH - 1 bounces


def args():
    a = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    opt = {"scene": "stilllife", "out": "/tmp/trace-blender-roundtrip", "width": 200,
           "height": 150, "spp": 256, "trace_spp": 256, "threads": 2, "seed": 1}
    for i in range(0, len(a), 2):
        opt[a[i].lstrip("-").replace("-", "_")] = a[i + 1]
    for k in ("width", "height", "spp", "trace_spp", "threads", "seed"):
        opt[k] = int(opt[k])
    return opt


def principled(name, base=(0.8, 0.8, 0.8), metallic=0.0, roughness=0.5, transmission=0.0,
               emission=None, strength=1.0, image=None):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    b = m.node_tree.nodes["Principled BSDF"]
    b.inputs["Base Color"].default_value = tuple(base) + (1.0,)
    b.inputs["Metallic"].default_value = metallic
    b.inputs["Roughness"].default_value = roughness
    b.inputs["Transmission"].default_value = transmission
    if emission is not None:
        b.inputs["Emission"].default_value = tuple(emission) + (1.0,)
        b.inputs["Emission Strength"].default_value = strength
    if image is not None:
        t = m.node_tree.nodes.new("ShaderNodeTexImage")
        t.image = image
        m.node_tree.links.new(t.outputs["Color"], b.inputs["Base Color"])
    return m


def glass_bsdf(name, ior=1.45):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    nt = m.node_tree
    nt.nodes.remove(nt.nodes["Principled BSDF"])
    g = nt.nodes.new("ShaderNodeBsdfGlass")
    g.distribution = "GGX"  # the exporter reads Glass BSDFs of any distribution
    g.inputs["Roughness"].default_value = 0.0
    g.inputs["IOR"].default_value = ior
    nt.links.new(g.outputs["BSDF"], nt.nodes["Material Output"].inputs["Surface"])
    return m


def floor_image(out):
    """64 x 64 texels in four quadrants: top left red, top right green,
    bottom left blue, bottom right yellow (as the image shows them), so
    that a flip in u or v or a turn moves colours between probes."""
    w = 64
    px = np.zeros((w, w, 4), np.float32)  # Blender's rows run bottom to top
    px[..., 3] = 1
    top, bottom = slice(w // 2, w), slice(0, w // 2)
    left, right = slice(0, w // 2), slice(w // 2, w)
    px[top, left, :3] = (0.8, 0.15, 0.1)
    px[top, right, :3] = (0.15, 0.7, 0.15)
    px[bottom, left, :3] = (0.1, 0.2, 0.8)
    px[bottom, right, :3] = (0.8, 0.75, 0.1)
    img = bpy.data.images.new("floor", w, w, alpha=False)
    img.pixels.foreach_set(px.ravel())
    img.filepath_raw = os.path.join(out, "floor.png")
    img.file_format = "PNG"
    img.save()
    img.filepath = img.filepath_raw
    return img


def add_sphere(name, loc, r, mat, smooth=True):
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32, radius=r, location=loc)
    ob = bpy.context.object
    ob.name = name
    ob.data.materials.append(mat)
    if smooth:
        bpy.ops.object.shade_smooth()
    return ob


def add_light(kind, name, loc, energy, rot=(0, 0, 0), color=(1, 1, 1), **kw):
    d = bpy.data.lights.new(name, kind)
    d.energy = energy
    d.color = color
    if kind in ("POINT", "SPOT"):
        d.shadow_soft_size = 0.0
    if kind == "SUN":
        d.angle = 0.0
    for k, v in kw.items():
        setattr(d, k, v)
    ob = bpy.data.objects.new(name, d)
    ob.location = loc
    ob.rotation_euler = rot
    bpy.context.scene.collection.objects.link(ob)
    return ob


def add_camera(loc, target, lens=35.0):
    d = bpy.data.cameras.new("Camera")
    d.lens = lens
    d.sensor_width = 36.0
    d.sensor_fit = "AUTO"
    d.clip_start = 0.01
    ob = bpy.data.objects.new("Camera", d)
    ob.location = loc
    ob.rotation_euler = (Vector(target) - Vector(loc)).to_track_quat("-Z", "Y").to_euler()
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.scene.camera = ob
    return ob


def still_life(out, spot_area):
    """Returns the probes: (name, Blender world centre, world radius)."""
    img = floor_image(out)
    bpy.ops.mesh.primitive_plane_add(size=8, location=(0, 0, 0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.data.materials.append(principled("FloorMat", roughness=1.0, image=img))
    add_sphere("Metal", (-1.6, 0.2, 0.6), 0.6, principled("RoughMetal", (0.9, 0.6, 0.3), 1.0, 0.35))
    add_sphere("Plastic", (0.0, 0.8, 0.6), 0.6, principled("Plastic", (0.1, 0.3, 0.8), 0.0, 0.1))
    glass = principled("Glass", (1, 1, 1), 0.0, 0.0, transmission=1.0) if spot_area else glass_bsdf("Glass")
    if spot_area:
        glass.node_tree.nodes["Principled BSDF"].inputs["IOR"].default_value = 1.45
    add_sphere("Glass", (1.6, 0.2, 0.6), 0.6, glass)
    bpy.ops.mesh.primitive_cube_add(size=0.6, location=(0.9, -1.4, 0.3))
    cube = bpy.context.object
    cube.name = "Lamp"
    cube.data.materials.append(principled("Emitter", (0, 0, 0), 0.0, 1.0, emission=(1.0, 0.5, 0.2), strength=5.0))
    add_light("SUN", "Sun", (0, 0, 5), 2.0, rot=(math.radians(40), 0, math.radians(30)))
    if spot_area:
        add_light("SPOT", "Spot", (-1.0, -1.0, 4.0), 1500.0, rot=(math.radians(15), 0, 0),
                  spot_size=math.radians(50), spot_blend=0.3)
        add_light("AREA", "Area", (2.5, -1.5, 3.0), 300.0, rot=(math.radians(30), math.radians(30), 0),
                  size=1.0)
    else:
        add_light("POINT", "Point", (2.0, -2.0, 3.0), 800.0, color=(1.0, 0.9, 0.8))
    add_camera((0.0, -6.5, 3.2), (0.0, 0.0, 0.4))
    return [("metal", (-1.6, 0.2, 0.6), 0.45), ("plastic", (0.0, 0.8, 0.6), 0.45),
            ("glass", (1.6, 0.2, 0.6), 0.45), ("emitter", (0.9, -1.4, 0.3), 0.2),
            ("floor_red", (-2.0, 2.0, 0), 0.5), ("floor_green", (2.5, 2.5, 0), 0.5),
            ("floor_blue", (-2.0, -2.2, 0), 0.5), ("floor_yellow", (2.2, -2.0, 0), 0.5)]


def hierarchy(out):
    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    bpy.context.object.data.materials.append(principled("Ground", (0.5, 0.5, 0.5), roughness=1.0))
    parent = bpy.data.objects.new("Rig", None)
    bpy.context.scene.collection.objects.link(parent)
    parent.location = (0.2, 0.3, 1.0)
    parent.rotation_euler = (math.radians(10), math.radians(-20), math.radians(35))
    parent.scale = (1.4, 0.8, 1.0)
    bpy.ops.mesh.primitive_cube_add(size=0.8, location=(-1.0, 0, 0))
    cube = bpy.context.object
    cube.name = "FlatCube"
    cube.data.materials.append(principled("Red", (0.8, 0.1, 0.1), roughness=0.6))
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=1, radius=0.5, location=(0.9, 0, 0))
    ico = bpy.context.object
    ico.name = "SmoothIco"
    ico.data.materials.append(principled("Green", (0.1, 0.7, 0.2), roughness=0.4))
    bpy.ops.object.shade_smooth()
    ico.modifiers.new("Subsurf", "SUBSURF").levels = 2
    ico.modifiers["Subsurf"].render_levels = 2
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=0.25, location=(0, 0, 0))
    small = bpy.context.object
    small.name = "Moon"
    small.data.materials.append(principled("White", (0.8, 0.8, 0.8), roughness=0.5))
    for ob, p in ((cube, parent), (ico, parent), (small, ico)):
        ob.parent = p
    small.location = (0.0, 0.0, 0.9)
    small.scale = (1.0, 1.0, 1.6)
    add_light("SUN", "Sun", (0, 0, 5), 2.5, rot=(math.radians(35), 0, math.radians(-40)))
    add_light("POINT", "Point", (-2.0, -2.5, 3.0), 600.0)
    add_camera((0.5, -5.5, 3.0), (0.2, 0.3, 0.9), lens=40.0)
    bpy.context.view_layer.update()
    probes = []
    for ob, r in ((cube, 0.25), (ico, 0.3), (small, 0.15)):
        probes.append((ob.name.lower(), tuple(ob.matrix_world.translation), r))
    # the faces of the cube: flat shading shows as uniform faces
    for k, off in enumerate(((0.0, -0.35, 0.0), (0.0, 0.0, 0.35))):
        probes.append(("cube_face%d" % k, tuple(cube.matrix_world @ Vector(off)), 0.12))
    probes.append(("ground", (-1.5, -1.5, 0.0), 0.5))
    return probes


def to_y_up(v):
    """Blender (x, y, z) to the exporters' Y-up (x, z, -y)."""
    return [v[0], v[2], -v[1]]


def regions(probes, path, w, h):
    from bpy_extras.object_utils import world_to_camera_view
    sc = bpy.context.scene
    cam = sc.camera
    right = cam.matrix_world.to_3x3() @ Vector((1, 0, 0))
    out = {}
    for name, c, r in probes:
        c = Vector(c)
        v = world_to_camera_view(sc, cam, c)
        e = world_to_camera_view(sc, cam, c + right * r)
        out[name] = [[v.x * w, (1 - v.y) * h, 2 * abs(e.x - v.x) * w]]  # the compare averages radius/2
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


def trace_scenes(opt, name):
    out, w, h = opt["out"], opt["width"], opt["height"]
    base = {"version": 1, "render": {"width": w, "height": h, "samples": opt["trace_spp"],
                                     "max_depth": MAX_DEPTH, "seed": opt["seed"]},
            "background": {"color": [BACKGROUND] * 3}}
    for kind, f in (("gltf", name + ".gltf"), ("glb", name + ".glb"), ("zup", name + "-zup.gltf")):
        s = dict(base, description="Blender %s export of %s.blend" % (kind, name),
                 camera={"gltf": f}, objects=[{"type": "mesh", "file": f}])
        with open(os.path.join(out, "%s-%s.json" % (name, kind)), "w") as fp:
            json.dump(s, fp, indent=1)
    sc = bpy.context.scene
    cam = sc.camera
    m = cam.matrix_world
    fwd = m.to_3x3() @ Vector((0, 0, -1))
    up = m.to_3x3() @ Vector((0, 1, 0))
    # sensor fit AUTO: the larger side spans the camera's angle
    if w >= h:
        yfov = 2 * math.atan(math.tan(cam.data.angle / 2) * h / w)
    else:
        yfov = cam.data.angle
    lights = []
    for ob in sc.objects:
        if ob.type != "LIGHT":
            continue
        d = ob.data
        col = list(d.color)
        if d.type == "POINT":
            lights.append({"type": "point", "position": to_y_up(ob.matrix_world.translation),
                           "color": col, "intensity": d.energy / (4 * math.pi)})
        elif d.type == "SUN":
            lights.append({"type": "directional", "color": col, "intensity": d.energy,
                           "direction": to_y_up(ob.matrix_world.to_3x3() @ Vector((0, 0, -1)))})
    s = dict(base, description="Blender OBJ export of %s.blend" % name,
             camera={"position": to_y_up(m.translation), "look_at": to_y_up(m.translation + fwd),
                     "up": to_y_up(up), "fov": math.degrees(yfov)},
             lights=lights, objects=[{"type": "mesh", "file": name + ".obj"}])
    with open(os.path.join(out, "%s-obj.json" % name), "w") as fp:
        json.dump(s, fp, indent=1)


def export(opt, name):
    out = opt["out"]
    common = dict(export_cameras=True, export_lights=True, export_apply=True)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + ".gltf"), export_format="GLTF_SEPARATE", **common)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + ".glb"), export_format="GLB", **common)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + "-zup.gltf"), export_format="GLTF_SEPARATE",
                              export_yup=False, **common)
    bpy.ops.export_scene.obj(filepath=os.path.join(out, name + ".obj"), use_materials=True,
                             use_mesh_modifiers=True, use_normals=True, use_uvs=True, path_mode="RELATIVE")


def cycles(opt, stem):
    """Renders the scene with Cycles to DIR/STEM.pfm."""
    exr = os.path.join(opt["out"], stem + ".exr")
    bpy.context.scene.render.filepath = exr
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(exr)
    img.colorspace_settings.name = "Linear"
    w, h = img.size
    px = np.empty(w * h * 4, dtype=np.float32)
    img.pixels.foreach_get(px)
    render.write_pfm(os.path.join(opt["out"], stem + ".pfm"), px.reshape(h, w, 4)[:, :, :3])
    os.remove(exr)


def main():
    opt = args()
    os.makedirs(opt["out"], exist_ok=True)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    name = opt["scene"]
    if name == "stilllife":
        probes = still_life(opt["out"], False)
    elif name == "spotarea":
        probes = still_life(opt["out"], True)
    elif name == "hierarchy":
        probes = hierarchy(opt["out"])
    else:
        raise SystemExit("--scene %s: stilllife, spotarea or hierarchy" % name)
    sc = bpy.context.scene
    world = bpy.data.worlds.new("World")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (BACKGROUND,) * 3 + (1,)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    sc.world = world
    render.settings({"render": {"max_depth": MAX_DEPTH}}, {"mask": False, "spp": opt["spp"], "seed": opt["seed"], "threads": opt["threads"],
                                                           "bounces": None, "size": 1})
    sc.render.resolution_x, sc.render.resolution_y = opt["width"], opt["height"]
    sc.render.threads_mode = "FIXED"
    sc.render.threads = opt["threads"]
    bpy.context.view_layer.update()
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(opt["out"], name + ".blend"))
    export(opt, name)
    trace_scenes(opt, name)
    regions(probes, os.path.join(opt["out"], name + "-regions.json"), opt["width"], opt["height"])
    cycles(opt, name + "-cycles")
    area = [ob for ob in sc.objects if ob.type == "LIGHT" and ob.data.type == "AREA"]
    if area:
        # glTF holds no area light: the same without them, to tell what
        # else differs (NAME-cycles-punctual.pfm)
        for ob in area:
            ob.hide_render = True
        cycles(opt, name + "-cycles-punctual")
    print("blender_roundtrip.py: %s in %s" % (name, opt["out"]))


if __name__ == "__main__":
    render.run(main, "blender_roundtrip.py")
