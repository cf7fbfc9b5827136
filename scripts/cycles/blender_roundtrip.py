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
- maps: four tiles of quadrants (a probe per quadrant) under a Sun and a
  Point: roughness and metallic from two Non-Color images (glTF: one
  packed metallicRoughnessTexture; MTL: map_Ns and refl/map_refl, or
  map_Pr/map_Pm with the PBR extensions), a tangent-space Normal Map node
  (MTL: map_Bump), an emission texture (strength 3), and a base colour
  through a Mapping node (offset, 90 degree turn, scale -1 in u: glTF's
  KHR_texture_transform; MTL holds no turn).
- attributes: red tiles with an alpha texture over a grey ground, one of
  Blend mode, one of Clip (Cycles blends both), a Color Attribute (per
  vertex, quadrants split) into the base colour, and a texture read
  through a second UV map (OBJ holds one).
- specular: Principled spheres of Specular 0, 0.5 and 1 on a dark base
  and one of Specular Tint 1 on a red base (roughness 0.3), a grey floor,
  a Sun and a Point: glTF's KHR_materials_specular and _ior; behind
  them a sphere whose Specular is an image (1 above, 0 below), which the
  exporter writes as a specularColorTexture.
- clearcoat: Principled spheres on a dark red base without a coat, with
  Clearcoat 1, with Clearcoat from an image (1 above, 0 below) and with
  Clearcoat Roughness from an image (0.1 above, 0.6 below), a grey
  floor, a Sun and a Point: glTF's KHR_materials_clearcoat with its
  clearcoatTexture and clearcoatRoughnessTexture; probes on each half.
- shapekeys: a sphere with a shape key at 0.7 (its upper half raised),
  a cube with one at 0.5 (its top face moved along x): glTF morph
  targets and weights; and a sphere keyframed (Bezier) across the floor,
  exported at frame 0 and rendered by Cycles at frame 24, which the glTF
  scenes pose with "animation": 0, "time": 1 (the OBJ exports hold frame
  0 and the shape keys applied).
- instances: three objects sharing one mesh (Alt-D), a collection (kept
  out of the scene's tree) instanced by two empties, and a camera of
  vertical sensor fit with lens shift (glTF holds no shift: the glTF
  scenes give it, as a user would).

Each writes, in DIR: NAME.blend, NAME.gltf (+ .bin, floor.png), NAME.glb,
NAME-zup.gltf (export_yup off: Z-up, as some users export), NAME.obj and
NAME.mtl (the legacy exporter, export_scene.obj, materials on),
NAME-cpp.obj/.mtl and NAME-pbr.obj/.mtl (Blender 3.4's C++ exporter,
wm.obj_export, vertex colours on, without and with
export_pbr_extensions), and a trace scene around each (NAME-gltf.json,
NAME-glb.json, NAME-zup.json, NAME-obj.json, NAME-objcpp.json,
NAME-objpbr.json: glTF scenes take the camera from the file and its lights;
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


def quad_image(out, name, tl, tr, bl, br, non_color=False, w=64):
    """A w x w image of four quadrants of RGBA values (as the image shows
    them: top left, top right, bottom left, bottom right), saved as
    DIR/NAME.png. The values are the stored bytes / 255: sRGB-encoded for
    a colour image, as they are for a Non-Color one."""
    px = np.zeros((w, w, 4), np.float32)  # Blender's rows run bottom to top
    top, bottom = slice(w // 2, w), slice(0, w // 2)
    left, right = slice(0, w // 2), slice(w // 2, w)
    for rows, cols, v in ((top, left, tl), (top, right, tr), (bottom, left, bl), (bottom, right, br)):
        px[rows, cols] = v
    alpha = any(len(v) == 4 and v[3] < 1 for v in (tl, tr, bl, br))
    img = bpy.data.images.new(name, w, w, alpha=alpha)
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    img.pixels.foreach_set(px.ravel())
    img.filepath_raw = os.path.join(out, name + ".png")
    img.file_format = "PNG"
    img.save()
    img.filepath = img.filepath_raw
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    return img


def grey(v, a=1.0):
    return (v, v, v, a)


def tex_node(m, img, interpolation="Linear"):
    t = m.node_tree.nodes.new("ShaderNodeTexImage")
    t.image = img
    t.interpolation = interpolation
    return t


def add_tile(name, loc, mat, size=1.8, cuts=0):
    """A square of side size lying at loc, facing +z, its UVs the unit
    square (u along +x, v along +y); cuts subdivides it (for vertex
    colours by quadrant)."""
    bpy.ops.mesh.primitive_plane_add(size=size, location=loc)
    ob = bpy.context.object
    ob.name = name
    if cuts:
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.subdivide(number_cuts=cuts)
        bpy.ops.object.mode_set(mode="OBJECT")
    ob.data.materials.append(mat)
    return ob


def quadrant_probes(name, loc, size=1.8, r=0.28):
    x, y, z = loc
    q = size / 4
    return [(name + "_tl", (x - q, y + q, z), r), (name + "_tr", (x + q, y + q, z), r),
            (name + "_bl", (x - q, y - q, z), r), (name + "_br", (x + q, y - q, z), r)]


QUADS = ((0.8, 0.15, 0.1, 1), (0.15, 0.7, 0.15, 1), (0.1, 0.2, 0.8, 1), (0.8, 0.75, 0.1, 1))


def tile_lights():
    add_light("SUN", "Sun", (0, 0, 5), 2.5, rot=(math.radians(35), 0, math.radians(-50)))
    add_light("POINT", "Point", (-1.0, -3.0, 2.5), 500.0, color=(1.0, 0.9, 0.8))


def maps(out):
    """Roughness and metallic maps, a normal map, an emission texture, a
    base colour through a Mapping node: four tiles of quadrants."""
    probes = []
    # roughness and metallic from two Non-Color images (the exporter packs
    # them into one metallicRoughnessTexture)
    m = principled("RoughMetalMaps", (0.8, 0.5, 0.3))
    b = m.node_tree.nodes["Principled BSDF"]
    rough = quad_image(out, "roughness", grey(0.15), grey(0.7), grey(0.15), grey(0.7), True)
    metal = quad_image(out, "metallic", grey(1), grey(1), grey(0), grey(0), True)
    m.node_tree.links.new(tex_node(m, rough).outputs["Color"], b.inputs["Roughness"])
    m.node_tree.links.new(tex_node(m, metal).outputs["Color"], b.inputs["Metallic"])
    add_tile("RoughMetal", (-1.0, 1.0, 0), m)
    probes += quadrant_probes("rm", (-1.0, 1.0, 0))
    # a tangent-space normal map: each quadrant tilts the normal 35
    # degrees one way (top left +u, top right -u, bottom left +v) or
    # not at all (bottom right)
    s, c = math.sin(math.radians(35)), math.cos(math.radians(35))
    enc = lambda n: tuple(0.5 * x + 0.5 for x in n) + (1.0,)  # noqa: E731
    nimg = quad_image(out, "normal", enc((s, 0, c)), enc((-s, 0, c)), enc((0, s, c)), enc((0, 0, 1)), True)
    m = principled("NormalMapped", (0.7, 0.7, 0.7), roughness=0.6)
    b = m.node_tree.nodes["Principled BSDF"]
    nm = m.node_tree.nodes.new("ShaderNodeNormalMap")
    nm.space = "TANGENT"
    m.node_tree.links.new(tex_node(m, nimg).outputs["Color"], nm.inputs["Color"])
    m.node_tree.links.new(nm.outputs["Normal"], b.inputs["Normal"])
    add_tile("NormalMap", (1.0, 1.0, 0), m)
    probes += quadrant_probes("nm", (1.0, 1.0, 0))
    # an emission texture (the quadrant colours), strength 3, black base
    eimg = quad_image(out, "emission", *QUADS)
    m = principled("EmissionMap", (0, 0, 0), roughness=1.0, emission=(1, 1, 1), strength=3.0)
    b = m.node_tree.nodes["Principled BSDF"]
    m.node_tree.links.new(tex_node(m, eimg).outputs["Color"], b.inputs["Emission"])
    add_tile("EmissionMap", (-1.0, -1.0, 0), m)
    probes += quadrant_probes("em", (-1.0, -1.0, 0))
    # the base colour through a Mapping node (UV in): KHR_texture_transform
    cimg = quad_image(out, "quads", *QUADS)
    m = principled("UVTransform", roughness=1.0, image=cimg)
    nt = m.node_tree
    uv = nt.nodes.new("ShaderNodeUVMap")
    mp = nt.nodes.new("ShaderNodeMapping")
    mp.vector_type = "POINT"
    mp.inputs["Location"].default_value = (0.5, 0.0, 0.0)
    mp.inputs["Rotation"].default_value = (0.0, 0.0, math.radians(90))
    mp.inputs["Scale"].default_value = (-1.0, 1.0, 1.0)
    nt.links.new(uv.outputs["UV"], mp.inputs["Vector"])
    nt.links.new(mp.outputs["Vector"], nt.nodes["Image Texture"].inputs["Vector"])
    add_tile("UVTransform", (1.0, -1.0, 0), m)
    probes += quadrant_probes("uvx", (1.0, -1.0, 0))
    tile_lights()
    add_camera((0.0, -3.6, 4.6), (0.0, -0.1, 0.0), lens=30.0)
    return probes


def attributes(out):
    """Alpha textures (blend and clip), vertex colours, a second UV map."""
    probes = []
    bpy.ops.mesh.primitive_plane_add(size=8, location=(0, 0, 0))
    bpy.context.object.name = "Ground"
    bpy.context.object.data.materials.append(principled("Ground", (0.5, 0.5, 0.5), roughness=1.0))
    # a red tile, its alpha by quadrant from the image's alpha channel,
    # raised over the grey ground: once as Blend, once as Clip (0.5)
    aimg = quad_image(out, "alpha", (0.8, 0.1, 0.1, 0.0), (0.8, 0.1, 0.1, 0.35),
                      (0.8, 0.1, 0.1, 0.7), (0.8, 0.1, 0.1, 1.0))
    for name, method, loc in (("AlphaBlend", "BLEND", (-1.0, 1.0, 0.4)), ("AlphaClip", "CLIP", (1.0, 1.0, 0.4))):
        m = principled(name, roughness=0.8)
        b = m.node_tree.nodes["Principled BSDF"]
        t = tex_node(m, aimg)
        m.node_tree.links.new(t.outputs["Color"], b.inputs["Base Color"])
        m.node_tree.links.new(t.outputs["Alpha"], b.inputs["Alpha"])
        m.blend_method = method
        m.alpha_threshold = 0.5
        m.shadow_method = "HASHED" if method == "BLEND" else "CLIP"
        add_tile(name, loc, m)
        probes += quadrant_probes(name.lower().replace("alpha", "a"), loc)
    # vertex colours: a Color Attribute (vertices, byte) by quadrant
    # into the base colour
    m = principled("VertexColour", roughness=1.0)
    nt = m.node_tree
    va = nt.nodes.new("ShaderNodeVertexColor")
    va.layer_name = "Col"
    nt.links.new(va.outputs["Color"], nt.nodes["Principled BSDF"].inputs["Base Color"])
    ob = add_tile("VertexColour", (-1.0, -1.0, 0.01), m, cuts=1)
    # each quadrant its own vertices: OBJ holds colours per vertex, and
    # Blender 3.4's glTF exporter too writes one colour per vertex (a
    # shared vertex takes one of its corners' colours)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.edge_split(type="EDGE")
    bpy.ops.object.mode_set(mode="OBJECT")
    me = ob.data
    # (a Face Corner attribute, Blender 3.4's glTF exporter reads by
    # vertex index: the colours land on the wrong vertices)
    col = me.color_attributes.new("Col", "BYTE_COLOR", "POINT")
    lin = [tuple(srgb_to_linear(x) for x in q[:3]) + (1.0,) for q in QUADS]
    for poly in me.polygons:
        cx, cy = poly.center.x, poly.center.y
        q = lin[(0 if cy > 0 else 2) + (0 if cx < 0 else 1)]
        for vi in poly.vertices:
            col.data[vi].color = q
    probes += quadrant_probes("vcol", (-1.0, -1.0, 0.01))
    # two UV maps: the texture reads the second, the first turned by 180
    # degrees (a texture read through the first shows diagonally swapped)
    cimg = quad_image(out, "quads", *QUADS)
    m = principled("SecondUV", roughness=1.0, image=cimg)
    nt = m.node_tree
    uv = nt.nodes.new("ShaderNodeUVMap")
    uv.uv_map = "UVMap2"
    nt.links.new(uv.outputs["UV"], nt.nodes["Image Texture"].inputs["Vector"])
    ob = add_tile("SecondUV", (1.0, -1.0, 0.01), m)
    me = ob.data
    uv2 = me.uv_layers.new(name="UVMap2")
    for i, d in enumerate(me.uv_layers["UVMap"].data):
        uv2.data[i].uv = (1 - d.uv[0], 1 - d.uv[1])
    me.uv_layers.active = me.uv_layers["UVMap"]
    probes += quadrant_probes("uv2", (1.0, -1.0, 0.01))
    tile_lights()
    add_camera((0.0, -3.6, 4.6), (0.0, -0.1, 0.0), lens=30.0)
    return probes


def specular(out):
    """Principled spheres of Specular 0, 0.5 (the default) and 1 on a dark
    base, and one of Specular Tint 1 on a red base, roughness 0.3, not
    metallic, over a grey floor under a Sun and a Point: Blender's glTF
    exporter writes KHR_materials_specular (and KHR_materials_ior, IOR
    1.45) for all but the default. Returns the probes."""
    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.data.materials.append(principled("FloorMat", (0.3, 0.3, 0.3), roughness=1.0))
    spheres = [("spec0", 0.0, 0.0, (0.05, 0.05, 0.05)), ("spec05", 0.5, 0.0, (0.05, 0.05, 0.05)),
               ("spec1", 1.0, 0.0, (0.05, 0.05, 0.05)), ("tint", 0.5, 1.0, (0.6, 0.08, 0.05))]
    probes = []
    for i, (name, spec, tint, base) in enumerate(spheres):
        m = principled(name, base, 0.0, 0.3)
        b = m.node_tree.nodes["Principled BSDF"]
        b.inputs["Specular"].default_value = spec
        b.inputs["Specular Tint"].default_value = tint
        x = -2.25 + 1.5 * i
        add_sphere(name, (x, 0.0, 0.6), 0.6, m)
        probes.append((name, (x, 0.0, 0.6), 0.45))
    # Specular from a Non-Color image, 1 on the upper half and 0 on the
    # lower: the exporter bakes Principled's 0.08 x Specular / F0(IOR)
    # into a specularColorTexture (its largest value as the
    # specularColorFactor, 2.37, and the image divided by it: 1 and 0).
    # Behind the row, above the gap between spec05 and spec1.
    half = quad_image(out, "specular", grey(1), grey(1), grey(0), grey(0), True)
    m = principled("spectex", (0.05, 0.05, 0.05), 0.0, 0.3)
    b = m.node_tree.nodes["Principled BSDF"]
    m.node_tree.links.new(tex_node(m, half).outputs["Color"], b.inputs["Specular"])
    add_sphere("spectex", (0.0, 2.5, 1.55), 0.45, m)
    probes.append(("spectex", (0.0, 2.5, 1.55), 0.34))
    # and each half alone: points of the sphere facing the camera, 31
    # degrees above and below its equator
    for name, z in (("spectex-top", 0.514), ("spectex-bottom", -0.514)):
        probes.append((name, (0.0, 2.5 - 0.45 * 0.857, 1.55 + 0.45 * z), 0.12))
    add_light("SUN", "Sun", (0, 0, 5), 3.0, rot=(math.radians(35), 0, math.radians(-20)))
    add_light("POINT", "Point", (1.5, -3.0, 3.0), 600.0)
    add_camera((0.0, -6.0, 2.2), (0.0, 0.0, 0.5))
    return probes + [("floor", (0.0, -1.6, 0), 0.5)]


def clearcoat(out):
    """Principled spheres on a dark red base (roughness 0.5) over a grey
    floor under a Sun and a Point: no coat, Clearcoat 1 (Clearcoat
    Roughness 0.1), Clearcoat from a Non-Color image (1 on the upper
    half, 0 on the lower: glTF's clearcoatTexture, its red, factor 1) and
    Clearcoat 1 whose Clearcoat Roughness is an image (0.1 above, 0.6
    below: clearcoatRoughnessTexture, its green). Probes on each sphere
    and on each half of each. Returns the probes."""
    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    floor = bpy.context.object
    floor.name = "Floor"
    floor.data.materials.append(principled("FloorMat", (0.3, 0.3, 0.3), roughness=1.0))
    coat = quad_image(out, "clearcoat", grey(1), grey(1), grey(0), grey(0), True)
    rough = quad_image(out, "clearcoat-roughness", grey(0.1), grey(0.1), grey(0.6), grey(0.6), True)
    probes = []
    for i, name in enumerate(("cc0", "cc1", "cctex", "ccrough")):
        m = principled(name, (0.3, 0.03, 0.03), 0.0, 0.5)
        b = m.node_tree.nodes["Principled BSDF"]
        b.inputs["Clearcoat"].default_value = 0.0 if name == "cc0" else 1.0
        b.inputs["Clearcoat Roughness"].default_value = 0.1
        if name == "cctex":
            m.node_tree.links.new(tex_node(m, coat).outputs["Color"], b.inputs["Clearcoat"])
        if name == "ccrough":
            m.node_tree.links.new(tex_node(m, rough).outputs["Color"], b.inputs["Clearcoat Roughness"])
        x = -2.25 + 1.5 * i
        add_sphere(name, (x, 0.0, 0.6), 0.6, m)
        probes.append((name, (x, 0.0, 0.6), 0.45))
        # each half alone: points of the sphere 31 degrees above and
        # below its equator, turned 40 degrees from the camera to the
        # left, away from the Point's highlight (where Cycles'
        # Principled coat, GTR1 of a quarter the weight, and glTF's GGX
        # coat differ most)
        for half, z in (("top", 0.515), ("bottom", -0.515)):
            c = 0.6 * 0.857
            probes.append(("%s-%s" % (name, half), (x - c * 0.643, -c * 0.766, 0.6 + 0.6 * z), 0.12))
    add_light("SUN", "Sun", (0, 0, 5), 3.0, rot=(math.radians(35), 0, math.radians(-20)))
    add_light("POINT", "Point", (1.5, -3.0, 3.0), 600.0)
    add_camera((0.0, -6.0, 2.2), (0.0, 0.0, 0.5))
    return probes + [("floor", (0.0, -1.6, 0), 0.5)]


# POSE is what a scene's glTF trace scenes add to the mesh object (an
# animation and time), and the frames to export at and render at; set by
# shape_keys.
POSE = {}


def shape_keys(out):
    """Shape keys and an animation: a sphere whose key "Stretch" (value
    0.7) raises its upper half by 1.2, a cube whose key "Lean" (0.5)
    moves its top face 0.8 along x, and a small sphere keyframed (Bezier,
    Blender's default) from x = -2 at frame 0 to x = 2 at frame 48 and
    exported at frame 0, where Cycles renders frame 24 (1 s at 24 fps)
    and the glTF scenes pose the file with "animation": 0, "time": 1.
    Probes where only the morphed and posed shapes are (above the
    sphere, beside the cube's top, the moving sphere at frame 24) and on
    the bases. Returns the probes."""
    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    bpy.context.object.data.materials.append(principled("Ground", (0.5, 0.5, 0.5), roughness=1.0))
    blob = add_sphere("Blob", (-1.3, 0.0, 0.6), 0.6, principled("BlobMat", (0.8, 0.2, 0.1), roughness=0.5))
    blob.shape_key_add(name="Basis")
    k = blob.shape_key_add(name="Stretch")
    for v in k.data:
        if v.co.z > 0:
            v.co.z += 1.2
    k.value = 0.7
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(1.3, 0.0, 0.5))
    cube = bpy.context.object
    cube.name = "Leaner"
    cube.data.materials.append(principled("LeanMat", (0.1, 0.3, 0.8), roughness=0.5))
    cube.shape_key_add(name="Basis")
    k = cube.shape_key_add(name="Lean")
    for v in k.data:
        if v.co.z > 0:
            v.co.x += 0.8
    k.value = 0.5
    mover = add_sphere("Mover", (-2.0, -1.5, 0.3), 0.3, principled("MoverMat", (0.05, 0.5, 0.05), roughness=0.5))
    sc = bpy.context.scene
    sc.render.fps = 24
    sc.frame_start, sc.frame_end = 0, 48
    mover.keyframe_insert("location", frame=0)
    mover.location.x = 2.0
    mover.keyframe_insert("location", frame=48)
    sc.frame_set(24)
    x24 = mover.matrix_world.translation.x
    sc.frame_set(0)
    POSE.update(fields={"animation": 0, "time": 1.0}, render_frame=24)
    add_light("SUN", "Sun", (0, 0, 5), 3.0, rot=(math.radians(35), 0, math.radians(-20)))
    add_light("POINT", "Point", (1.5, -3.0, 3.0), 600.0)
    add_camera((0.0, -7.0, 2.6), (0.0, 0.0, 0.8))
    return [("blob_base", (-1.3, -0.6, 0.6), 0.2), ("blob_stretched", (-1.3, -0.45, 1.6), 0.15),
            ("cube_base", (1.3, -0.5, 0.3), 0.15), ("cube_lean", (1.95, -0.5, 0.85), 0.1),
            ("mover_at_1s", (x24, -1.5 - 0.3, 0.3), 0.12), ("floor", (0.0, -1.0, 0), 0.3)]


def srgb_to_linear(c):
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def instances(out):
    """Linked duplicates (objects sharing one mesh), a collection instanced
    twice, and a camera with lens shift and a vertical sensor fit."""
    bpy.ops.mesh.primitive_plane_add(size=10, location=(0, 0, 0))
    bpy.context.object.data.materials.append(principled("Ground", (0.5, 0.5, 0.5), roughness=1.0))
    bpy.ops.mesh.primitive_cube_add(size=0.8, location=(-1.6, 0.5, 0.4))
    crate = bpy.context.object
    crate.name = "Crate"
    crate.data.materials.append(principled("Crate", (0.8, 0.3, 0.1), roughness=0.6))
    dups = [crate]
    for k, (loc, rz, sc) in enumerate((((-0.4, 1.2, 0.6), 30, 1.5), ((-1.4, -0.8, 0.3), -20, 0.75))):
        d = bpy.data.objects.new("Crate.%d" % (k + 1), crate.data)  # Alt-D: the same mesh
        d.location = loc
        d.rotation_euler = (0, 0, math.radians(rz))
        d.scale = (sc,) * 3
        bpy.context.scene.collection.objects.link(d)
        dups.append(d)
    # the collection is not in the scene's tree (as one linked from a
    # library): only its instances are drawn. (Excluded from the view
    # layer instead, Blender 3.4's glTF and legacy OBJ exporters write
    # its objects where they stand besides the instances.)
    pair = bpy.data.collections.new("Pair")
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=0.35, location=(0, 0, 0.35))
    ball = bpy.context.object
    ball.name = "Ball"
    ball.data.materials.append(principled("Ball", (0.1, 0.4, 0.8), roughness=0.3))
    bpy.ops.object.shade_smooth()
    bpy.ops.mesh.primitive_cone_add(radius1=0.3, depth=0.6, location=(0.7, 0, 0.3))
    cone = bpy.context.object
    cone.name = "Cone"
    cone.data.materials.append(principled("Cone", (0.2, 0.7, 0.2), roughness=0.5))
    for ob in (ball, cone):
        bpy.context.scene.collection.objects.unlink(ob)
        pair.objects.link(ob)
    inst = []
    for k, (loc, rz, sc) in enumerate((((1.0, 0.8, 0), 0, 1.0), ((1.4, -1.0, 0), 60, 0.7))):
        e = bpy.data.objects.new("PairInstance%d" % k, None)
        e.instance_type = "COLLECTION"
        e.instance_collection = pair
        e.location = loc
        e.rotation_euler = (0, 0, math.radians(rz))
        e.scale = (sc,) * 3
        bpy.context.scene.collection.objects.link(e)
        inst.append(e)
    tile_lights()
    cam = add_camera((0.3, -5.0, 3.0), (0.3, 0.0, 0.3), lens=30.0)
    cam.data.sensor_fit = "VERTICAL"
    cam.data.sensor_height = 20.0
    cam.data.shift_x = 0.12
    cam.data.shift_y = -0.08
    bpy.context.view_layer.update()
    probes = []
    for d in dups:
        probes.append((d.name.lower().replace(".", "_"), tuple(d.matrix_world @ Vector((0, -0.4, 0))), 0.15 * d.scale[0]))
        probes.append((d.name.lower().replace(".", "_") + "_top", tuple(d.matrix_world @ Vector((0, 0, 0.4))), 0.15 * d.scale[0]))
    for e in inst:
        m = e.matrix_world
        probes.append((e.name.lower() + "_ball", tuple(m @ Vector((0, -0.2, 0.45))), 0.15 * e.scale[0]))
        probes.append((e.name.lower() + "_cone", tuple(m @ Vector((0.7, -0.1, 0.25))), 0.1 * e.scale[0]))
    probes.append(("ground", (0.0, -2.0, 0.0), 0.5))
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
    _, shift = camera_fov_shift(bpy.context.scene.camera.data, w, h)
    for kind, f in (("gltf", name + ".gltf"), ("glb", name + ".glb"), ("zup", name + "-zup.gltf")):
        # glTF holds no lens shift: the scene gives it, as a user would
        gcam = {"gltf": f, "shift": shift} if shift != [0, 0] else {"gltf": f}
        s = dict(base, description="Blender %s export of %s.blend" % (kind, name),
                 camera=gcam, objects=[dict({"type": "mesh", "file": f}, **POSE.get("fields", {}))])
        with open(os.path.join(out, "%s-%s.json" % (name, kind)), "w") as fp:
            json.dump(s, fp, indent=1)
    sc = bpy.context.scene
    cam = sc.camera
    m = cam.matrix_world
    fwd = m.to_3x3() @ Vector((0, 0, -1))
    up = m.to_3x3() @ Vector((0, 1, 0))
    yfov, shift = camera_fov_shift(cam.data, w, h)
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
    camera = {"position": to_y_up(m.translation), "look_at": to_y_up(m.translation + fwd),
              "up": to_y_up(up), "fov": math.degrees(yfov)}
    if shift != [0, 0]:
        camera["shift"] = shift
    for kind, f, what in (("obj", name + ".obj", "legacy OBJ (export_scene.obj)"),
                          ("objcpp", name + "-cpp.obj", "OBJ (wm.obj_export)"),
                          ("objpbr", name + "-pbr.obj", "OBJ (wm.obj_export, PBR extensions)")):
        s = dict(base, description="Blender %s export of %s.blend" % (what, name),
                 camera=camera, lights=lights, objects=[{"type": "mesh", "file": f}])
        with open(os.path.join(out, "%s-%s.json" % (name, kind)), "w") as fp:
            json.dump(s, fp, indent=1)


def camera_fov_shift(cam, w, h):
    """trace's vertical fov (radians) and shift (units of the image
    height) for Blender camera data cam at w x h pixels: the sensor fit
    (AUTO: the larger side) says which side spans the sensor, and
    Blender's shift is in units of that side."""
    fit = cam.sensor_fit
    if fit == "AUTO":
        fit = "HORIZONTAL" if w >= h else "VERTICAL"
    if fit == "HORIZONTAL":
        size = cam.sensor_width if cam.sensor_fit != "AUTO" else max(cam.sensor_width, 0)
        yfov = 2 * math.atan(size / 2 / cam.lens * h / w)
        k = w / h
    else:
        size = cam.sensor_height if cam.sensor_fit != "AUTO" else cam.sensor_width
        yfov = 2 * math.atan(size / 2 / cam.lens)
        k = 1.0
    return yfov, [cam.shift_x * k, cam.shift_y * k]


def export(opt, name):
    out = opt["out"]
    common = dict(export_cameras=True, export_lights=True, export_apply=True)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + ".gltf"), export_format="GLTF_SEPARATE", **common)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + ".glb"), export_format="GLB", **common)
    bpy.ops.export_scene.gltf(filepath=os.path.join(out, name + "-zup.gltf"), export_format="GLTF_SEPARATE",
                              export_yup=False, **common)
    bpy.ops.export_scene.obj(filepath=os.path.join(out, name + ".obj"), use_materials=True,
                             use_mesh_modifiers=True, use_normals=True, use_uvs=True, path_mode="RELATIVE")
    # Blender 3.4's C++ exporter, without and with its PBR extensions
    for suffix, pbr in (("-cpp", False), ("-pbr", True)):
        bpy.ops.wm.obj_export(filepath=os.path.join(out, name + suffix + ".obj"), export_materials=True,
                              apply_modifiers=True, export_normals=True, export_uv=True, export_colors=True,
                              export_pbr_extensions=pbr, path_mode="RELATIVE")


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
    elif name == "maps":
        probes = maps(opt["out"])
    elif name == "attributes":
        probes = attributes(opt["out"])
    elif name == "instances":
        probes = instances(opt["out"])
    elif name == "specular":
        probes = specular(opt["out"])
    elif name == "clearcoat":
        probes = clearcoat(opt["out"])
    elif name == "shapekeys":
        probes = shape_keys(opt["out"])
    else:
        raise SystemExit("--scene %s: stilllife, spotarea, hierarchy, maps, attributes, instances, specular, clearcoat or shapekeys" % name)
    sc = bpy.context.scene
    world = bpy.data.worlds.new("World")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (BACKGROUND,) * 3 + (1,)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 1.0
    sc.world = world
    render.settings({"render": {"max_depth": MAX_DEPTH}, "film": {"filter": "box", "filter_width": 1}}, {"mask": False, "spp": opt["spp"], "noise_threshold": 0, "min_samples": 0, "seed": opt["seed"], "threads": opt["threads"],
                                                           "bounces": None, "size": 1})
    sc.render.resolution_x, sc.render.resolution_y = opt["width"], opt["height"]
    sc.render.threads_mode = "FIXED"
    sc.render.threads = opt["threads"]
    bpy.context.view_layer.update()
    bpy.ops.wm.save_as_mainfile(filepath=os.path.join(opt["out"], name + ".blend"))
    export(opt, name)
    trace_scenes(opt, name)
    regions(probes, os.path.join(opt["out"], name + "-regions.json"), opt["width"], opt["height"])
    if "render_frame" in POSE:
        # exported at the first frame; Cycles renders the frame the glTF
        # scenes' "time" poses (the OBJ exports hold the first frame)
        sc.frame_set(POSE["render_frame"])
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
