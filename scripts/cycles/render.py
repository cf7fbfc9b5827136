"""Renders a trace scene file with Blender's Cycles (Blender 3.4).

Run inside Blender:

    blender -b --factory-startup --python scripts/cycles/render.py -- \
        --scene scenes/examples/cornell-box.json --size 128 --spp 64 \
        --out x.pfm [--seed 1] [--scale 1e-3] [--threads 2] [--mask] [--stats x.json] \
        [--pbr lambert|principled] [--ggx single|multi] [--world-mis 0] \
        [--noise-threshold 0.01 [--min-samples 0] [--sample-count n.pfm]]

It builds a Blender scene from the trace scene (conversion below), renders
it with Cycles on the CPU and writes the linear radiance as a PFM (rows
bottom to top, as trace's .pfm output). --mask instead renders, at each
pixel centre, which material the camera ray first hits: every material
becomes an emission of strength (its index in the scene's "materials" + 1),
the background 0, no bounces, one sample with a 0.01 px filter, no depth of
field. --stats writes the CPU seconds (user + sys, all threads) of the
bpy.ops.render.render call alone. --world-mis 0 turns Cycles' importance
sampling of the world off (BSDF sampling alone finds the sky), for
scripts/cycles/ggx_check.py. --noise-threshold T > 0 turns Cycles'
adaptive sampling on (adaptive_threshold T, adaptive_min_samples
--min-samples, 0 for Cycles' automatic count; --spp the most a pixel
takes), for scripts/cycles/adaptive_compare.py. --sample-count writes
Cycles' Debug Sample Count pass, with or without adaptive sampling, as a
PFM (the same value in each channel): the samples each pixel took over
--spp, as Cycles normalises it (1 everywhere without adaptive sampling).
--ggx multi builds the rough GGX lobes of metal and pbr materials (their
Principled BSDFs) with Cycles 3.4's "Multiscatter GGX" distribution (a
random walk between microfacets that keeps the energy single scattering
loses, as trace's compensation does since pixel version 16), and rough
dielectrics as one Glass BSDF of Multiscatter GGX (pixel version 17), for
scripts/cycles/ggx_check.py; single (the default) with "GGX".

Conversion (trace coordinates (x, y, z), +y up, map to Blender's (x, -z, y),
a rotation, so handedness and cross products carry over; --scale multiplies
every position):

- camera: vertical sensor fit with the vertical fov (orthographic: the
  ortho scale the view's height); shift in units of the
  image height (Blender's unit with a vertical fit, as trace's H); thin lens
  with the radius aperture/2 turned into an f-stop.
- quads, triangles, OBJ meshes (read here, fans, smooth normals as custom
  split normals, UVs), planes (one big square): triangle meshes carrying
  trace's (u, v) as a UV map; spheres: a 256 x 128 smooth UV sphere whose
  (u, v) is computed in the shader from the object coordinates as trace
  does from the normal.
- materials: see material() (--pbr chooses how pbr materials are built);
  backgrounds: see world(); point lights: see point_light() for the units;
  spot lights: spot_light(), Cycles' Spot, whose penumbra differs.
"""

import math
import os
import resource
import sys
import time

import bpy
import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracescene  # noqa: E402

# Cycles' point light (radius 0) of power P "watts" sends P / (4 pi) W/sr,
# an isotropic source: the irradiance at distance d is P/(4 pi d^2) cos;
# trace's point light gives intensity/d^2 cos. So P = 4 pi x intensity.
# Measured by units_check.py against the closed form a/pi x I/h^2 (a guess
# of 4 pi^2, with an extra 1/pi, came out pi times too bright).
POINT_LIGHT_WATTS_PER_INTENSITY = 4 * math.pi

# The distribution of the rough GGX lobes of metal and pbr materials
# (--ggx): Cycles 3.4's single-scattering GGX or its Multiscatter GGX.
GGX_DISTRIBUTIONS = {"single": "GGX", "multi": "MULTI_GGX"}
GGX = "GGX"


def args():
    a = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    opt = {"seed": 1, "scale": 1.0, "threads": 2, "mask": False, "stats": None,
           "spp": 16, "size": 128, "bounces": None, "pbr": "lambert",
           "world_mis": 1, "noise_threshold": 0.0, "min_samples": 0, "sample_count": None, "ggx": "single"}
    i = 0
    while i < len(a):
        k = a[i].lstrip("-")
        if k == "mask":
            opt["mask"] = True
            i += 1
            continue
        opt[k] = a[i + 1]
        i += 2
    for k in ("world_mis", "noise_threshold", "min_samples", "sample_count"):
        opt[k] = opt.pop(k.replace("_", "-"), opt[k])
    for k in ("seed", "threads", "spp", "size", "world_mis", "min_samples"):
        opt[k] = int(opt[k])
    opt["scale"] = float(opt["scale"])
    opt["noise_threshold"] = float(opt["noise_threshold"])
    if opt["bounces"] is not None:
        opt["bounces"] = int(opt["bounces"])
    if opt["pbr"] not in ("lambert", "principled"):
        raise SystemExit("--pbr %s: lambert or principled" % opt["pbr"])
    if opt["ggx"] not in GGX_DISTRIBUTIONS:
        raise SystemExit("--ggx %s: single or multi" % opt["ggx"])
    global GGX
    GGX = GGX_DISTRIBUTIONS[opt["ggx"]]
    return opt


def to_blender(p, scale=1.0):
    """trace (x, y, z) -> Blender (x, -z, y), on the last axis."""
    p = np.asarray(p, dtype=np.float64)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1) * scale


# ---------------------------------------------------------------- materials


def node(tree, kind, **inputs):
    n = tree.nodes.new(kind)
    for k, v in inputs.items():
        if k.startswith("_"):
            setattr(n, k[1:], v)
        else:
            n.inputs[k].default_value = v
    return n


def math_node(tree, op, a, b=None):
    """A Math node a op b; a and b are sockets or numbers."""
    n = tree.nodes.new("ShaderNodeMath")
    n.operation = op
    n.use_clamp = False
    for i, x in enumerate((a, b)):
        if x is None:
            continue
        if isinstance(x, (int, float)):
            n.inputs[i].default_value = x
        else:
            tree.links.new(x, n.inputs[i])
    return n.outputs[0]


def unit_coordinates(tree, output):
    """A SeparateXYZ node of the normalised texture coordinate `output`
    ("Object", "Generated", ...)."""
    tc = tree.nodes.new("ShaderNodeTexCoord")
    nrm = tree.nodes.new("ShaderNodeVectorMath")
    nrm.operation = "NORMALIZE"
    tree.links.new(tc.outputs[output], nrm.inputs[0])
    sep = tree.nodes.new("ShaderNodeSeparateXYZ")
    tree.links.new(nrm.outputs[0], sep.inputs[0])
    return sep


def uv_sockets(tree, uvkind):
    """The trace surface coordinates (u, v) as two float sockets: from the
    UV map 'traceuv' (meshes, quads, triangles, planes), or for spheres
    u = (atan2(-z, x) + pi)/2pi, v = acos(-y)/pi of the unit normal, in
    trace axes, i.e. (atan2(by, bx) + pi)/2pi and acos(-bz)/pi in Blender's
    object coordinates of a unit sphere."""
    if uvkind == "sphere":
        sep = unit_coordinates(tree, "Object")
        at = math_node(tree, "ARCTAN2", sep.outputs["Y"], sep.outputs["X"])
        u = math_node(tree, "DIVIDE", math_node(tree, "ADD", at, math.pi), 2 * math.pi)
        v = math_node(tree, "DIVIDE", math_node(tree, "ARCCOSINE", math_node(tree, "MULTIPLY", sep.outputs["Z"], -1.0)), math.pi)
        return u, v
    uvn = tree.nodes.new("ShaderNodeUVMap")
    uvn.uv_map = "traceuv"
    sep = tree.nodes.new("ShaderNodeSeparateXYZ")
    tree.links.new(uvn.outputs["UV"], sep.inputs[0])
    return sep.outputs["X"], sep.outputs["Y"]


def load_image(scene, desc):
    """Loads an image texture or background for Cycles with trace's
    decoding: Radiance HDR and PFM files (recognised by their first bytes,
    as trace does) hold linear values, whatever `colorspace` says; other
    files are decoded as sRGB or, with "linear", taken as they are
    ("Non-Color": value/255). Blender's sRGB is the exact piecewise curve,
    as trace's."""
    path = os.path.join(scene["dir"], desc["file"])
    with open(path, "rb") as f:
        head = f.read(10)
    float_file = head[:2] in (b"PF", b"Pf") or head.startswith(b"#?RADIANCE") or head.startswith(b"#?RGBE")
    img = bpy.data.images.load(path, check_existing=True)
    if float_file or desc.get("colorspace", "srgb") == "linear":
        img.colorspace_settings.name = "Linear" if float_file else "Non-Color"
    else:
        img.colorspace_settings.name = "sRGB"
    return img


def color_socket(tree, m, scene, uvkind, key="color"):
    """The material's colour (m[key], or m["texture"] in its place): a
    constant RGBA, or a socket for a texture.
    checker: even where floor(u s) + floor(v s) is even, else odd (parity
    as f - 2 floor(f/2)); image: the UV lookup, bilinear (Linear), repeat,
    sRGB or linear (Non-Color) as the scene says."""
    tex = m.get("texture")
    if tex is None:
        return tuple(m[key]) + (1.0,)
    u, v = uv_sockets(tree, uvkind)
    if tex["type"] == "checker":
        s = float(tex.get("scale", 1))
        f = math_node(tree, "ADD", math_node(tree, "FLOOR", math_node(tree, "MULTIPLY", u, s)),
                      math_node(tree, "FLOOR", math_node(tree, "MULTIPLY", v, s)))
        parity = math_node(tree, "SUBTRACT", f, math_node(tree, "MULTIPLY", math_node(tree, "FLOOR", math_node(tree, "MULTIPLY", f, 0.5)), 2.0))
        mix = tree.nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MIX"
        mix.use_clamp = False
        tree.links.new(parity, mix.inputs["Fac"])
        mix.inputs["Color1"].default_value = tuple(tex.get("even", [1, 1, 1])) + (1.0,)
        mix.inputs["Color2"].default_value = tuple(tex.get("odd", [0, 0, 0])) + (1.0,)
        return mix.outputs["Color"]
    if tex["type"] == "image":
        img = load_image(scene, tex)
        comb = tree.nodes.new("ShaderNodeCombineXYZ")
        tree.links.new(u, comb.inputs["X"])
        tree.links.new(v, comb.inputs["Y"])
        it = tree.nodes.new("ShaderNodeTexImage")
        it.image = img
        it.interpolation = "Linear"
        it.extension = "REPEAT"
        tree.links.new(comb.outputs[0], it.inputs["Vector"])
        return it.outputs["Color"]
    raise SystemExit("texture type %s is not converted" % tex["type"])


def link_or_set(tree, value, socket):
    if isinstance(value, tuple):
        socket.default_value = value
    else:
        tree.links.new(value, socket)


def mix_rgb(tree, blend, fac, a, b):
    """A MixRGB node of the given blend ("MIX", "MULTIPLY") between a and b
    (tuples or sockets; a float socket becomes a grey), unclamped, fac a
    number or a socket; returns its colour socket."""
    n = tree.nodes.new("ShaderNodeMixRGB")
    n.blend_type = blend
    n.use_clamp = False
    for sock, x in ((n.inputs["Fac"], fac), (n.inputs["Color1"], a), (n.inputs["Color2"], b)):
        if isinstance(x, (int, float, tuple)):
            sock.default_value = x
        else:
            tree.links.new(x, sock)
    return n.outputs["Color"]


def add_shaders(tree, shaders):
    """The sum of shader sockets (Add Shader nodes)."""
    out = shaders[0]
    for sh in shaders[1:]:
        add = tree.nodes.new("ShaderNodeAddShader")
        tree.links.new(out, add.inputs[0])
        tree.links.new(sh, add.inputs[1])
        out = add.outputs[0]
    return out


def facing_pow5(tree):
    """(1 - cos theta_o)^5 as a float socket: Layer Weight's Facing (blend
    0.5) is 1 - |N.I| at the shading normal, cos theta_o in trace."""
    lw = node(tree, "ShaderNodeLayerWeight", Blend=0.5)
    return math_node(tree, "POWER", lw.outputs["Facing"], 5.0)


def specular_lobe(tree, f0, roughness):
    """trace's GGX conductor lobe of reflectance f0 at normal incidence
    (tracer/microfacet.go): a mirror (alpha < MIRROR_ALPHA) is exact as a
    Glossy BSDF Sharp coloured by Schlick's F0 + (1 - F0)(1 - cos)^5 at the
    view angle (a mirror's half vector is its normal); a rough one is the
    closest Cycles 3.4 node, a Principled BSDF of metallic 1 and base colour
    f0, distribution GGX (single scattering; Cycles squares roughness as
    trace does), specular 0.5 (its Fresnel curve (Fd(wo.h, 1.5) - 0.04)/0.96
    then stands in for Schlick's (1 - wo.h)^5), no tint, sheen, clearcoat
    or emission. Returns a shader socket."""
    if tracescene.is_smooth(roughness):
        sh = node(tree, "ShaderNodeBsdfGlossy", _distribution="SHARP")
        link_or_set(tree, mix_rgb(tree, "MIX", facing_pow5(tree), f0, (1.0, 1.0, 1.0, 1.0)), sh.inputs["Color"])
        return sh.outputs[0]
    sh = node(tree, "ShaderNodeBsdfPrincipled", _distribution=GGX, _subsurface_method="BURLEY",
              Metallic=1.0, Specular=0.5, **{"Specular Tint": 0.0, "Roughness": float(roughness),
                                             "Sheen": 0.0, "Clearcoat": 0.0, "Transmission": 0.0,
                                             "Subsurface": 0.0, "Anisotropic": 0.0,
                                             "Emission": (0.0, 0.0, 0.0, 1.0)})
    link_or_set(tree, f0, sh.inputs["Base Color"])
    return sh.outputs[0]


def scale_shader(tree, sh, fac):
    """The shader sh weighted by 1 - fac (a number or a socket): a Mix
    Shader of sh and an Emission of strength 0, which adds nothing."""
    mix = tree.nodes.new("ShaderNodeMixShader")
    if isinstance(fac, (int, float)):
        mix.inputs["Fac"].default_value = float(fac)
    else:
        tree.links.new(fac, mix.inputs["Fac"])
    tree.links.new(sh, mix.inputs[1])
    tree.links.new(node(tree, "ShaderNodeEmission", Strength=0.0).outputs[0], mix.inputs[2])
    return mix.outputs[0]


def pbr_f0(tree, base, metal):
    """F0 = mix(0.04, base, metallic), a tuple or a socket."""
    if isinstance(base, tuple):
        return tuple(0.04 * (1 - metal) + c * metal for c in base[:3]) + (1.0,)
    return mix_rgb(tree, "MIX", metal, (0.04, 0.04, 0.04, 1.0), base)


def material(scene, name, uvkind, mask_index=None, pbr="lambert"):
    """A Blender material for trace material `name` (tracescene.classify
    says how close each is):
    diffuse -> Diffuse BSDF (roughness 0: Lambert);
    emissive -> Emission, strength 1, colour x intensity (Cycles' mesh
      emission is two-sided, as trace's);
    metal -> specular_lobe(colour, roughness): a mirror with Schlick's
      Fresnel exactly, a rough metal as a Principled BSDF metallic 1, GGX;
    dielectric -> Mix Shader, factor the Fresnel node (exact, at the shading
      normal, IOR inverted from behind) between Refraction BSDF (colour) and
      Glossy BSDF (white), both Sharp when smooth, else GGX of the
      roughness: trace tints only the transmitted light, Cycles' Glass BSDF
      both (it is this mix with one colour on both); smooth glass is exact;
      rough glass is Cycles 3.4's GGX glass, which weighs its lobes by the
      Fresnel at the shading normal where trace takes each microfacet's;
      an attenuation_color and _distance (absorption inside) -> a Volume
      Absorption of the same coefficients in the material's Volume output;
    pbr, with pbr = "lambert" -> Diffuse BSDF coloured (1 - metallic) x
      base x (1 - Fc), Fc = 0.04 + 0.96 (1 - cos theta_o)^5 from Layer
      Weight, trace's diffuse exactly; plus specular_lobe(F0 =
      mix(0.04, base, metallic), roughness); plus Emission of `emissive`;
      with pbr = "principled" -> one Principled BSDF (base colour, metallic,
      roughness, specular 0.5 for F0 0.04, GGX, emission), as Blender's glTF
      importer builds it, whose diffuse is Disney's;
      Cycles does not sample a pbr's emission as a light (sample_as_light
      off), as trace does not;
    phong -> an approximation only (left out of the comparison):
      reflection x mirror + (1 - reflection) x (diffuse x Lambert x colour
      + specular x GGX with alpha = sqrt(2/(shininess+2))).
    With mask_index, an emission of that strength instead."""
    m = scene["materials"][name]
    key = "%s|%s|%s|%s" % (name, uvkind, mask_index, pbr)
    if key in bpy.data.materials:
        return bpy.data.materials[key]
    mat = bpy.data.materials.new(key)
    mat.use_nodes = True
    tree = mat.node_tree
    tree.nodes.clear()
    out = tree.nodes.new("ShaderNodeOutputMaterial")
    out.target = "CYCLES"
    t = m["type"]
    if mask_index is not None:
        sh = node(tree, "ShaderNodeEmission", Color=(1, 1, 1, 1), Strength=float(mask_index)).outputs[0]
    elif t == "diffuse":
        d = node(tree, "ShaderNodeBsdfDiffuse", Roughness=0.0)
        link_or_set(tree, color_socket(tree, m, scene, uvkind), d.inputs["Color"])
        sh = d.outputs[0]
    elif t == "emissive":
        e = node(tree, "ShaderNodeEmission", Strength=float(m["intensity"]))
        link_or_set(tree, color_socket(tree, m, scene, uvkind), e.inputs["Color"])
        sh = e.outputs[0]
    elif t == "metal":
        sh = specular_lobe(tree, color_socket(tree, m, scene, uvkind), m["roughness"])
    elif t == "dielectric":
        smooth = tracescene.is_smooth(m["roughness"])
        dist = "SHARP" if smooth else "GGX"
        rough = 0.0 if smooth else float(m["roughness"])
        ior = float(m["ior"])
        if not smooth and GGX == "MULTI_GGX":
            # --ggx multi: one Glass BSDF of Multiscatter GGX (its random
            # walk keeps the energy, as trace's compensation does since
            # pixel version 17); it tints reflection too, which a clear
            # glass does not notice.
            g = node(tree, "ShaderNodeBsdfGlass", _distribution="MULTI_GGX", Roughness=rough, IOR=ior)
            link_or_set(tree, color_socket(tree, m, scene, uvkind), g.inputs["Color"])
            dist = None
        refr = None if dist is None else node(tree, "ShaderNodeBsdfRefraction", _distribution=dist, Roughness=rough, IOR=ior)
        if refr is None:
            sh = g.outputs[0]
        else:
            link_or_set(tree, color_socket(tree, m, scene, uvkind), refr.inputs["Color"])
            refl = node(tree, "ShaderNodeBsdfGlossy", _distribution=dist, Roughness=rough, Color=(1, 1, 1, 1))
            fr = node(tree, "ShaderNodeFresnel", IOR=ior)
            mix = tree.nodes.new("ShaderNodeMixShader")
            tree.links.new(fr.outputs["Fac"], mix.inputs["Fac"])
            tree.links.new(refr.outputs[0], mix.inputs[1])
            tree.links.new(refl.outputs[0], mix.inputs[2])
            sh = mix.outputs[0]
        if float(m.get("attenuation_distance", 0)) > 0:
            # Absorption inside (Beer-Lambert): trace's sigma = -ln(colour) /
            # distance per channel; Cycles' Volume Absorption absorbs
            # density x (1 - colour), so density = max sigma and colour =
            # 1 - sigma / density.
            d = float(m["attenuation_distance"])
            sigma = [-math.log(max(float(c), 1e-30)) / d for c in m["attenuation_color"]]
            dens = max(max(sigma), 1e-12)
            va = node(tree, "ShaderNodeVolumeAbsorption", Density=dens,
                      Color=tuple(1 - x / dens for x in sigma) + (1.0,))
            tree.links.new(va.outputs[0], out.inputs["Volume"])
            mat.cycles.homogeneous_volume = True
    elif t == "pbr":
        metal = min(max(float(m["metallic"]), 0.0), 1.0)
        rough = min(max(float(m["roughness"]), 0.0), 1.0)
        base = color_socket(tree, m, scene, uvkind, key="base_color")
        emit = tuple(float(x) for x in m["emissive"])
        for k in ("metallic_roughness", "emissive_texture"):
            if k in m:
                raise SystemExit("material %s: pbr %s textures are not converted" % (name, k))
        clear = min(max(float(m.get("clearcoat", 0.0)), 0.0), 1.0)
        clear_rough = min(max(float(m.get("clearcoat_roughness", 0.0)), 0.0), 1.0)
        if clear > 0 and any(emit):
            raise SystemExit("material %s: a clear coat on an emitting pbr is not converted" % name)
        if pbr == "principled":
            p = node(tree, "ShaderNodeBsdfPrincipled", _distribution=GGX, _subsurface_method="BURLEY",
                     Metallic=metal, Specular=0.5,
                     **{"Specular Tint": 0.0, "Roughness": 0.0 if tracescene.is_smooth(rough) else rough,
                        "Sheen": 0.0, "Clearcoat": clear, "Clearcoat Roughness": clear_rough,
                        "Transmission": 0.0, "Subsurface": 0.0,
                        "Anisotropic": 0.0, "Emission": emit + (1.0,), "Emission Strength": 1.0})
            link_or_set(tree, base, p.inputs["Base Color"])
            sh = p.outputs[0]
        else:
            lobes = []
            if metal < 1:
                # (1 - metallic)(1 - Fc) = (1 - metallic) 0.96 (1 - (1 - cos)^5):
                # trace's base before pixel version 16, which weighs it by
                # 1 - the dielectric's compensated albedo at cos theta_o
                # (tracer/ggxenergy.go), a table no node holds.
                k = math_node(tree, "MULTIPLY", math_node(tree, "SUBTRACT", 1.0, facing_pow5(tree)),
                              0.96 * (1 - metal))
                d = node(tree, "ShaderNodeBsdfDiffuse", Roughness=0.0)
                link_or_set(tree, mix_rgb(tree, "MULTIPLY", 1.0, base, k), d.inputs["Color"])
                lobes.append(d.outputs[0])
            lobes.append(specular_lobe(tree, pbr_f0(tree, base, metal), rough))
            if any(emit):
                lobes.append(node(tree, "ShaderNodeEmission", Color=emit + (1.0,), Strength=1.0).outputs[0])
            sh = add_shaders(tree, lobes)
            if clear > 0:
                # trace's clear coat (tracer/microfacet.go): the base times
                # 1 - clear Fc(cos theta_o), Fc Schlick's of F0 0.04, plus
                # clear times a GGX lobe of F0 0.04 (specular_lobe).
                fc = math_node(tree, "ADD", math_node(tree, "MULTIPLY", facing_pow5(tree), 0.96 * clear), 0.04 * clear)
                coat = specular_lobe(tree, (0.04, 0.04, 0.04, 1.0), clear_rough)
                sh = add_shaders(tree, [scale_shader(tree, sh, fc), scale_shader(tree, coat, 1.0 - clear)])
        if any(emit):
            mat.cycles.sample_as_light = False
    elif t == "phong":
        kd, ks = max(m["diffuse"], 0.0), max(m["specular"], 0.0)
        if kd + ks > 1:
            kd, ks = kd / (kd + ks), ks / (kd + ks)
        col = color_socket(tree, m, scene, uvkind)
        dif = node(tree, "ShaderNodeBsdfDiffuse", Roughness=0.0)
        if isinstance(col, tuple):
            dif.inputs["Color"].default_value = tuple(c * kd for c in col[:3]) + (1.0,)
        else:
            tree.links.new(mix_rgb(tree, "MULTIPLY", 1.0, col, (kd, kd, kd, 1.0)), dif.inputs["Color"])
        alpha = math.sqrt(2.0 / (m["shininess"] + 2.0))
        glo = node(tree, "ShaderNodeBsdfGlossy", _distribution="GGX", Roughness=math.sqrt(alpha), Color=(ks, ks, ks, 1))
        mirror = node(tree, "ShaderNodeBsdfGlossy", _distribution="SHARP", Color=(1, 1, 1, 1))
        mix = node(tree, "ShaderNodeMixShader", Fac=float(m["reflection"]))
        tree.links.new(add_shaders(tree, [dif.outputs[0], glo.outputs[0]]), mix.inputs[1])
        tree.links.new(mirror.outputs[0], mix.inputs[2])
        sh = mix.outputs[0]
    else:
        raise SystemExit("material %s: type %s is not converted" % (name, t))
    tree.links.new(sh, out.inputs["Surface"])
    return mat


# ---------------------------------------------------------------- geometry


def add_triangles(name, p, uv, n, mat):
    """One mesh object of triangles (positions p (m,3,3) in Blender axes,
    uv (m,3,2), smooth normals n (m,3,3) or None for flat)."""
    m = p.shape[0]
    me = bpy.data.meshes.new(name)
    me.vertices.add(3 * m)
    me.vertices.foreach_set("co", p.reshape(-1).astype(np.float32))
    me.loops.add(3 * m)
    me.loops.foreach_set("vertex_index", np.arange(3 * m, dtype=np.int32))
    me.polygons.add(m)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * m, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(m, 3, dtype=np.int32))
    layer = me.uv_layers.new(name="traceuv")
    layer.data.foreach_set("uv", uv.reshape(-1).astype(np.float32))
    me.update(calc_edges=True)
    me.validate(clean_customdata=False)
    if n is not None:
        me.polygons.foreach_set("use_smooth", np.ones(m, dtype=bool))
        me.use_auto_smooth = True
        me.normals_split_custom_set([tuple(x) for x in n.reshape(-1, 3)])
    me.materials.append(mat)
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob


_SPHERE_MESH = []


def unit_sphere_mesh(segments=256, rings=128):
    """A unit UV sphere (built with numpy: bmesh's is slow) with exact
    radial normals as custom split normals; made once and shared."""
    if _SPHERE_MESH:
        return _SPHERE_MESH[0]
    th = np.pi * np.arange(1, rings) / rings            # polar angle of the inner rings
    ph = 2 * np.pi * np.arange(segments) / segments
    ring = np.stack([np.outer(np.sin(th), np.cos(ph)), np.outer(np.sin(th), np.sin(ph)),
                     np.repeat(np.cos(th)[:, None], segments, axis=1)], axis=-1).reshape(-1, 3)
    verts = np.concatenate([[[0, 0, 1]], ring, [[0, 0, -1]]])
    last = len(verts) - 1
    j = np.arange(segments)
    jn = (j + 1) % segments
    faces = [np.stack([np.zeros(segments, int), 1 + j, 1 + jn], 1)]    # top fan
    for r in range(rings - 2):
        a, b = 1 + r * segments, 1 + (r + 1) * segments
        q = np.stack([a + j, b + j, b + jn, a + jn], 1)
        faces += [q[:, [0, 1, 2]], q[:, [0, 2, 3]]]
    base = 1 + (rings - 2) * segments
    faces.append(np.stack([base + j, np.full(segments, last), base + jn], 1))  # bottom fan
    tri = np.concatenate(faces).astype(np.int32)
    me = bpy.data.meshes.new("unit sphere")
    me.vertices.add(len(verts))
    me.vertices.foreach_set("co", verts.reshape(-1).astype(np.float32))
    m = len(tri)
    me.loops.add(3 * m)
    me.loops.foreach_set("vertex_index", tri.reshape(-1))
    me.polygons.add(m)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * m, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(m, 3, dtype=np.int32))
    me.update(calc_edges=True)
    me.polygons.foreach_set("use_smooth", np.ones(m, dtype=bool))
    me.use_auto_smooth = True
    me.normals_split_custom_set_from_vertices([tuple(v) for v in verts])
    _SPHERE_MESH.append(me)
    return me


def add_sphere(name, centre, radius, mat):
    """A smooth 256 x 128 UV sphere of the given centre and radius (Blender
    axes), its material on the object; its object coordinates are those of
    the unit sphere."""
    ob = bpy.data.objects.new(name, unit_sphere_mesh())
    ob.location = tuple(centre)
    ob.scale = (radius, radius, radius)
    bpy.context.scene.collection.objects.link(ob)
    if len(ob.data.materials) == 0:
        ob.data.materials.append(None)
    ob.material_slots[0].link = "OBJECT"
    ob.material_slots[0].material = mat
    return ob


# ---------------------------------------------------------------- world, lights, camera


def world(scene, mask, mis=True):
    """The background: colour -> Background of that colour; gradient ->
    (1 - t) bottom + t top with t = 0.5 (d.y + 1) = 0.5 (d_blender.z + 1),
    d the ray direction (the world's Generated coordinate); image -> an
    equirectangular Environment Texture, turned 90 degrees about the
    vertical so that trace's u = (atan2(-x, z) + pi)/2pi lands (Blender's
    u is -atan2(y, x)/2pi + 1/2), times intensity. An image background's
    "rotation" R (trace turns the map by R: a ray along d looks it up at
    R^T d) is one more Mapping node before that one, of type Vector, which
    turns the ray direction by (C R C^T)^T, C trace's axes into Blender's
    (to_blender), given as Blender's XYZ Euler angles (Rz Ry Rx, the
    rotate convention of trace's transforms, but about Blender's axes)."""
    w = bpy.data.worlds.new("trace")
    bpy.context.scene.world = w
    w.use_nodes = True
    tree = w.node_tree
    tree.nodes.clear()
    out = tree.nodes.new("ShaderNodeOutputWorld")
    bg = node(tree, "ShaderNodeBackground", Strength=1.0)
    tree.links.new(bg.outputs[0], out.inputs["Surface"])
    b = scene["background"]
    kind = b.get("type", "color")
    if mask or kind == "color":
        bg.inputs["Color"].default_value = tuple(b.get("color", [0, 0, 0]) if not mask else [0, 0, 0]) + (1.0,)
    elif kind == "gradient":
        sep = unit_coordinates(tree, "Generated")
        t = math_node(tree, "MULTIPLY", math_node(tree, "ADD", sep.outputs["Z"], 1.0), 0.5)
        mix = tree.nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MIX"
        tree.links.new(t, mix.inputs["Fac"])
        mix.inputs["Color1"].default_value = tuple(b["bottom"]) + (1.0,)
        mix.inputs["Color2"].default_value = tuple(b["top"]) + (1.0,)
        tree.links.new(mix.outputs[0], bg.inputs["Color"])
    elif kind == "image":
        img = load_image(scene, b)
        tc = tree.nodes.new("ShaderNodeTexCoord")
        mp = tree.nodes.new("ShaderNodeMapping")
        mp.vector_type = "VECTOR"
        mp.inputs["Rotation"].default_value = (0.0, 0.0, math.radians(90.0))
        if "rotation" in b:
            from mathutils import Matrix

            C = to_blender(np.eye(3)).T  # columns: trace's axes in Blender's
            turn = (C @ tracescene.background_rotation(b) @ C.T).T
            rot = tree.nodes.new("ShaderNodeMapping")
            rot.vector_type = "VECTOR"
            rot.inputs["Rotation"].default_value = tuple(Matrix(turn.tolist()).to_euler("XYZ"))
            tree.links.new(tc.outputs["Generated"], rot.inputs["Vector"])
            tree.links.new(rot.outputs[0], mp.inputs["Vector"])
        else:
            tree.links.new(tc.outputs["Generated"], mp.inputs["Vector"])
        env = tree.nodes.new("ShaderNodeTexEnvironment")
        env.image = img
        env.interpolation = "Linear"
        env.projection = "EQUIRECTANGULAR"
        tree.links.new(mp.outputs[0], env.inputs["Vector"])
        tree.links.new(env.outputs["Color"], bg.inputs["Color"])
        bg.inputs["Strength"].default_value = float(b.get("intensity", 1.0))
    else:
        raise SystemExit("background type %s is not converted" % kind)
    # Cycles' default world sampling (Automatic: MIS with a map of the
    # world), as Cycles is used; trace samples only image backgrounds
    # directly, and gradients by BSDF sampling alone. mis False: none.
    w.cycles.sampling_method = "AUTOMATIC" if mis else "NONE"


def spot_light(i, l, scale):
    """trace spot light -> Cycles 3.4 Spot of radius 0, of the power of
    point_light's (Cycles' spot is its point light masked: P/(4 pi) W/sr
    along the axis), pointing along the axis (Blender's light shines down
    its local -Z). spot_size is twice the outer angle, and spot_blend
    (cos inner - cos outer)/(1 - cos outer) makes Cycles' blend, which runs
    over spot_blend x (1 - cos(spot_size/2)) of the cosine inward from the
    edge, end at the inner angle: full light inside it, none past the
    outer one, as trace. Cycles 3.4 differs in two ways that no setting
    changes (tracescene.cycles_spot_factor): its blend is a smoothstep of
    that cosine, t^2 (3 - 2t), where trace's (glTF's) is t^2, so its
    penumbra is brighter (3x at the outer edge, 2x half way), and it dims
    the whole cone by cos theta, theta the angle from the axis (1 - cos 15
    deg = 3.4 %); Cycles 4.0 dropped that factor."""
    from mathutils import Vector
    if l["falloff"] != "inverse_square":
        raise SystemExit("lights[%d]: falloff %s has no Cycles equivalent" % (i, l["falloff"]))
    ci, co = tracescene.spot_cone(l)
    ld = bpy.data.lights.new("light%d" % i, "SPOT")
    ld.shadow_soft_size = 0.0
    ld.color = tuple(l["color"])
    ld.energy = float(l["intensity"]) * POINT_LIGHT_WATTS_PER_INTENSITY * scale * scale
    ld.spot_size = 2 * math.radians(l["outer_angle"])
    ld.spot_blend = (ci - co) / (1 - co) if co < 1 else 0.0
    ld.show_cone = False
    ld.cycles.max_bounces = 1024
    ld.cycles.cast_shadow = True
    ld.cycles.use_multiple_importance_sampling = True
    ob = bpy.data.objects.new("light%d" % i, ld)
    ob.location = tuple(to_blender(l["position"], scale))
    ob.rotation_mode = "QUATERNION"
    ob.rotation_quaternion = Vector(tuple(to_blender(l["direction"]))).to_track_quat("-Z", "Y")
    bpy.context.scene.collection.objects.link(ob)


def point_light(i, l, scale):
    """trace point light -> Cycles point light of radius 0. trace's light
    arriving over distance d is colour x intensity / d^2; Cycles' point
    light of power P sends P/(4 pi) W/sr (see POINT_LIGHT_WATTS_PER_INTENSITY),
    so P = 4 pi x intensity, and with --scale s distances shrink by s, so
    P is multiplied by s^2 to keep the irradiance. falloff "none" cannot be
    expressed (Cycles lights are physical) and is refused."""
    if l.get("falloff", "inverse_square") != "inverse_square":
        raise SystemExit("lights[%d]: falloff %s has no Cycles equivalent" % (i, l["falloff"]))
    ld = bpy.data.lights.new("light%d" % i, "POINT")
    ld.shadow_soft_size = 0.0
    ld.color = tuple(l.get("color", [1, 1, 1]))
    ld.energy = float(l.get("intensity", 1.0)) * POINT_LIGHT_WATTS_PER_INTENSITY * scale * scale
    ld.cycles.max_bounces = 1024
    ld.cycles.cast_shadow = True
    ld.cycles.use_multiple_importance_sampling = True
    ob = bpy.data.objects.new("light%d" % i, ld)
    ob.location = tuple(to_blender(l["position"], scale))
    bpy.context.scene.collection.objects.link(ob)


def camera(scene, scale, mask, size):
    """A camera with trace's frame: right = forward x up, up = right x
    forward (tracer/camera.go), Blender's camera looking down its -Z with
    +Y up; vertical sensor fit so that the fov and the shift are in units
    of the image height, as trace's."""
    c = scene["camera"]
    fwd, right, up = (to_blender(v) for v in tracescene.camera_frame(c))
    eye = to_blender(c["position"], scale)
    cd = bpy.data.cameras.new("cam")
    cd.type = "PERSP"
    cd.sensor_fit = "VERTICAL"
    cd.sensor_height = 24.0
    cd.sensor_width = 24.0
    cd.lens = 12.0 / math.tan(math.radians(c["fov"]) / 2)
    cd.shift_x = float(c["shift"][0])
    cd.shift_y = float(c["shift"][1])
    if c.get("type") == "orthographic":
        # The view's height (trace's default: what the fov spans at
        # look_at); with the vertical fit, Blender's ortho_scale is it.
        d = float(np.linalg.norm(np.array(c["look_at"], dtype=float) - np.array(c["position"], dtype=float)))
        cd.type = "ORTHO"
        cd.ortho_scale = float(c.get("height", 2 * d * math.tan(math.radians(c["fov"]) / 2))) * scale
    extent = max(1.0, float(np.abs(np.array(c["position"])).max())) * scale
    cd.clip_start = 1e-6 * extent
    cd.clip_end = 1e8 * extent
    if c["aperture"] > 0 and not mask:
        focus = c["focus_distance"] or float(np.linalg.norm(np.array(c["look_at"], dtype=float) - np.array(c["position"], dtype=float)))
        cd.dof.use_dof = True
        cd.dof.focus_distance = focus * scale
        # Cycles' lens radius is (lens in mm x 1e-3) / (2 fstop) in scene
        # units; trace's is aperture / 2.
        cd.dof.aperture_fstop = (cd.lens * 1e-3) / (c["aperture"] * scale)
        cd.dof.aperture_blades = 0
        cd.dof.aperture_ratio = 1.0
        cd.dof.aperture_rotation = 0.0
    ob = bpy.data.objects.new("cam", cd)
    from mathutils import Matrix
    m = Matrix.Identity(4)
    for r in range(3):
        m[r][0], m[r][1], m[r][2], m[r][3] = right[r], up[r], -fwd[r], eye[r]
    ob.matrix_world = m
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.scene.camera = ob


# ---------------------------------------------------------------- settings


def settings(scene, opt):
    """Cycles CPU path tracing, no adaptive sampling (unless
    --noise-threshold asks for it), no clamping, no
    denoising, no light threshold, no path guiding (3.4 has no light tree),
    bounces = max_depth - 1 for every kind (trace's max_depth counts the
    shaded hits: 1 is direct light only, which is Cycles' 0 bounces; both
    still count the emission the last ray hits), the scene's pixel filter (a Box of 1 px by default), the
    Standard view, exposure 0, a fixed seed, float EXR out."""
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    cy = sc.cycles
    cy.device = "CPU"
    cy.feature_set = "SUPPORTED"
    cy.samples = 1 if opt["mask"] else opt["spp"]
    cy.use_adaptive_sampling = opt["noise_threshold"] > 0 and not opt["mask"]
    cy.adaptive_threshold = opt["noise_threshold"]
    cy.adaptive_min_samples = opt["min_samples"]
    cy.use_denoising = False
    cy.seed = opt["seed"]
    cy.use_animated_seed = False
    b = max(scene["render"]["max_depth"] - 1, 0) if opt["bounces"] is None else opt["bounces"]
    if opt["mask"]:
        b = 0
    for k in ("max_bounces", "diffuse_bounces", "glossy_bounces", "transmission_bounces",
              "volume_bounces", "transparent_max_bounces"):
        setattr(cy, k, b)
    cy.min_light_bounces = 0
    cy.min_transparent_bounces = 0
    cy.sample_clamp_direct = 0.0
    cy.sample_clamp_indirect = 0.0
    cy.light_sampling_threshold = 0.0
    cy.caustics_reflective = True
    cy.caustics_refractive = True
    cy.blur_glossy = 0.0
    cy.use_guiding = False
    cy.direct_light_sampling_type = "MULTIPLE_IMPORTANCE_SAMPLING"
    cy.sample_offset = 0
    cy.scrambling_distance = 1.0
    cy.auto_scrambling_distance = False
    if hasattr(cy, "use_light_tree"):  # Cycles 3.5 and later
        cy.use_light_tree = False
    # The scene's pixel filter (film.filter): the same filters, by the
    # same definitions (tracer/filter.go follows Cycles' film.cpp).
    cy.pixel_filter_type = {"box": "BOX", "gaussian": "GAUSSIAN",
                            "blackman-harris": "BLACKMAN_HARRIS"}[scene["film"]["filter"]]
    cy.filter_width = float(scene["film"]["filter_width"])
    if opt["mask"]:
        cy.pixel_filter_type, cy.filter_width = "BOX", 0.01
    cy.film_exposure = 1.0  # Cycles' film exposure is a factor: 1 = 0 stops
    cy.use_auto_tile = False
    sc.render.film_transparent = False
    sc.render.resolution_x = opt["size"]
    sc.render.resolution_y = opt["size"]
    sc.render.resolution_percentage = 100
    sc.render.pixel_aspect_x = sc.render.pixel_aspect_y = 1.0
    sc.render.threads_mode = "FIXED"
    sc.render.threads = opt["threads"]
    sc.render.use_persistent_data = False
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.view_settings.gamma = 1.0
    sc.display_settings.display_device = "sRGB"
    sc.sequencer_colorspace_settings.name = "sRGB"
    sc.render.use_compositing = False
    sc.render.use_sequencer = False
    im = sc.render.image_settings
    im.file_format = "OPEN_EXR"
    im.color_mode = "RGB"
    im.color_depth = "32"
    im.exr_codec = "NONE"


def sample_count_pass(path):
    """Turns on the view layer's Debug Sample Count pass and has the
    compositor write it (the Render Result's passes, and a Viewer node's
    image, are not readable in background mode) as a float EXR: a File
    Output node writing path + "####.exr" (the frame number, 0001), the
    Composite node keeping the combined image for the render's EXR."""
    sc = bpy.context.scene
    sc.view_layers[0].cycles.pass_debug_sample_count = True
    sc.render.use_compositing = True
    sc.use_nodes = True
    tree = sc.node_tree
    tree.nodes.clear()
    rl = tree.nodes.new("CompositorNodeRLayers")
    comp = tree.nodes.new("CompositorNodeComposite")
    comp.use_alpha = False
    tree.links.new(rl.outputs["Image"], comp.inputs["Image"])
    out = tree.nodes.new("CompositorNodeOutputFile")
    out.base_path = os.path.dirname(os.path.abspath(path))
    out.file_slots[0].path = os.path.basename(path)
    f = out.format
    f.file_format, f.color_mode, f.color_depth, f.exr_codec = "OPEN_EXR", "RGB", "32", "NONE"
    tree.links.new(rl.outputs["Debug Sample Count"], out.inputs[0])
    return os.path.abspath(path) + "%04d.exr" % sc.frame_current


def read_exr(path):
    """A float EXR's RGB (scene-linear: no view transform is applied to
    float files): (h, w, 3) float32, first row the bottom one."""
    img = bpy.data.images.load(path)
    img.colorspace_settings.name = "Linear"
    w, h = img.size
    px = np.empty(w * h * 4, dtype=np.float32)
    img.pixels.foreach_get(px)
    return px.reshape(h, w, 4)[:, :, :3]


def write_pfm(path, rgb):
    """rgb: (h, w, 3) float32, first row the bottom one (Blender's order and
    PFM's)."""
    h, w, _ = rgb.shape
    with open(path, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (w, h))
        f.write(np.ascontiguousarray(rgb, dtype="<f4").tobytes())


def main():
    opt = args()
    scene = tracescene.load(opt["scene"])
    if scene["render"]["integrator"] != "path":
        raise SystemExit("%s: only the path integrator is compared with Cycles" % opt["scene"])
    bpy.ops.wm.read_factory_settings(use_empty=True)
    s = opt["scale"]
    settings(scene, opt)
    index = {name: i + 1 for i, name in enumerate(scene["material_list"])}

    def mat(name, uvkind):
        return material(scene, name, uvkind, index[name] if opt["mask"] else None, pbr=opt["pbr"])

    extent = max(1.0, max(abs(x) for x in scene["camera"]["position"]))
    tris = tracescene.triangles(scene, plane_half_size=1e3 * extent)
    for i, t in enumerate(tris):
        n = None if t["n"] is None else to_blender(t["n"])
        add_triangles("tri%d %s" % (i, t["what"]), to_blender(t["p"], s), t["uv"], n, mat(t["material"], "uv"))
    for i, (c, r, name, what) in enumerate(tracescene.spheres(scene)):
        add_sphere("sphere%d %s" % (i, what), to_blender(c, s), r * s, mat(name, "sphere"))
    if not opt["mask"]:
        for i, l in enumerate(scene["lights"]):
            if l["type"] == "spot":
                spot_light(i, l, s)
            elif l["type"] == "point":
                point_light(i, l, s)
            else:
                raise SystemExit("lights[%d]: type %s is not converted" % (i, l["type"]))
    world(scene, opt["mask"], mis=bool(opt["world_mis"]))
    camera(scene, s, opt["mask"], opt["size"])

    st = render_to_pfm(opt)
    if opt["stats"]:
        import json
        with open(opt["stats"], "w") as f:
            json.dump({**st, "bounces": bpy.context.scene.cycles.max_bounces, "size": opt["size"],
                       "scale": s, "mask": opt["mask"], "pbr": opt["pbr"], "blender": bpy.app.version_string}, f)
    print("render.py: %s %d spp, render %.2f s CPU, %.2f s wall"
          % (opt["out"], st["spp"], st["render_cpu_s"], st["render_wall_s"]))


def render_to_pfm(opt):
    """Renders the scene built in Blender into the PFM opt["out"] (and,
    with opt["sample_count"], Cycles' Debug Sample Count pass into that
    PFM); returns the render's stats: the CPU seconds (user + sys, all
    threads) and wall seconds of bpy.ops.render.render alone, spp, the
    adaptive sampling settings and the mean of the sample count pass
    (with it, the timed call includes the compositor writing the pass: a
    few milliseconds at 128 x 128). render.py's main and gltf_render.py's."""
    sc = bpy.context.scene
    count_exr = sample_count_pass(opt["sample_count"]) if opt.get("sample_count") else None
    exr = opt["out"] + ".exr"
    sc.render.filepath = exr
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    w0 = time.time()
    bpy.ops.render.render(write_still=True)
    w1 = time.time()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

    # Read the float EXR back and write it as a PFM.
    write_pfm(opt["out"], read_exr(exr))
    os.remove(exr)
    count = None
    if count_exr:
        count = read_exr(count_exr)
        write_pfm(opt["sample_count"], count)
        os.remove(count_exr)
    cy = sc.cycles
    return {"render_cpu_s": cpu, "render_wall_s": w1 - w0, "spp": cy.samples,
            "noise_threshold": cy.adaptive_threshold if cy.use_adaptive_sampling else 0.0,
            "min_samples": cy.adaptive_min_samples,
            "mean_sample_count": None if count is None else float(count.mean())}


def run(main, name):
    """Runs main inside Blender, which keeps running after an uncaught
    error: a SystemExit with a message exits 2 with it, any other error 1
    with its traceback."""
    try:
        main()
    except SystemExit as e:
        if e.code not in (None, 0):
            print("%s: %s" % (name, e.code), file=sys.stderr)
            sys.stdout.flush()
            os._exit(2)
        raise
    except Exception:
        import traceback
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)


if __name__ == "__main__":
    run(main, "render.py")
