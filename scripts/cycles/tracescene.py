"""Reading a trace scene file (docs/scene-format.md) with its defaults filled in.

Shared by render.py (inside Blender's Python) and compare.py (system
Python). It does not validate the scene: run `trace validate` for that.
Only the standard library and numpy are used.

Everything here is in trace's own coordinates (right-handed, +y up);
render.py maps to Blender's (+z up) with (x, y, z) -> (x, -z, y).
"""

import json
import math
import os

import numpy as np

# Material defaults, from docs/scene-format.md "materials".
MATERIAL_DEFAULTS = {
    "diffuse": {"color": [0.8, 0.8, 0.8]},
    "metal": {"color": [0.8, 0.8, 0.8], "roughness": 0.0},
    "dielectric": {"ior": 1.5, "color": [1.0, 1.0, 1.0], "roughness": 0.0},
    "pbr": {"base_color": [1.0, 1.0, 1.0], "metallic": 0.0, "roughness": 0.5,
            "emissive": [0.0, 0.0, 0.0]},
    "emissive": {"color": [1.0, 1.0, 1.0], "intensity": 1.0},
    "phong": {"color": [1.0, 1.0, 1.0], "ambient": 0.0, "diffuse": 1.0,
              "specular": 0.0, "shininess": 32.0, "reflection": 0.0},
}

RENDER_DEFAULTS = {"width": 640, "height": 480, "samples": 16, "max_depth": 8,
                   "integrator": "path", "seed": 1}


def load(path):
    """Returns the scene as a dict with defaults filled in, plus 'dir' (the
    scene's folder, for assets) and 'material_list' (names in file order;
    material index i+1 in masks, 0 being the background)."""
    with open(path) as f:
        s = json.load(f)
    s["dir"] = os.path.dirname(os.path.abspath(path))
    r = dict(RENDER_DEFAULTS)
    r.update(s.get("render", {}))
    s["render"] = r
    c = {"up": [0, 1, 0], "fov": 40.0, "shift": [0, 0], "aperture": 0.0, "focus_distance": 0.0}
    c.update(s["camera"])
    s["camera"] = c
    s.setdefault("background", {"color": [0, 0, 0]})
    fm = {"exposure": 0.0, "filter": "box"}
    fm.update(s.get("film", {}))
    fm.setdefault("filter_width", 1.0 if fm["filter"] == "box" else 1.5)
    s["film"] = fm
    mats = {}
    for name, m in s.get("materials", {}).items():
        full = dict(MATERIAL_DEFAULTS[m["type"]])
        full.update(m)
        mats[name] = full
    s["materials"] = mats
    s["lights"] = [light_defaults(l) for l in s.get("lights", [])]
    s.setdefault("objects", [])
    s["material_list"] = list(mats)
    return s


def light_defaults(l):
    """A light with its defaults filled in (docs/scene-format.md "lights");
    a spot's axis as 'direction' (unit) also when the file gives look_at."""
    full = {"color": [1.0, 1.0, 1.0], "intensity": 1.0}
    if l["type"] != "directional":
        full["falloff"] = "inverse_square"
    if l["type"] == "spot":
        full.update(inner_angle=0.0, outer_angle=45.0)
    full.update(l)
    if l["type"] == "spot":
        d = np.array(l["direction"] if "direction" in l else np.subtract(l["look_at"], l["position"]), dtype=np.float64)
        full["direction"] = list(d / np.linalg.norm(d))
        full.pop("look_at", None)
    return full


def spot_cone(l):
    """A spot's cos(inner angle) and cos(outer angle)."""
    return math.cos(math.radians(l["inner_angle"])), math.cos(math.radians(l["outer_angle"]))


def spot_factor(l, cos_theta):
    """trace's spot light (glTF's KHR_lights_punctual): the share of the
    intensity toward a direction whose cosine to the axis is cos_theta,
    a^2 with a = clamp((cos - cos outer)/max(0.001, cos inner - cos outer), 0, 1)."""
    ci, co = spot_cone(l)
    a = np.clip((cos_theta - co) / max(0.001, ci - co), 0.0, 1.0)
    return a * a


def cycles_spot_factor(l, cos_theta):
    """Cycles 3.4's spot (kernel/light/light.h spot_attenuation) as
    render.py sets it up (spot_size 2 outer, spot_blend (cos inner - cos
    outer)/(1 - cos outer)): cos_theta itself inside the cone, times
    smoothstep(t) = t^2 (3 - 2t), t the same a as trace's, in the blend;
    0 past the outer angle."""
    ci, co = spot_cone(l)
    t = np.clip((cos_theta - co) / max(1e-9, ci - co), 0.0, 1.0)
    return np.where(cos_theta > co, cos_theta * t * t * (3 - 2 * t), 0.0)


# GGX's alpha below which trace's metal, pbr and dielectric are smooth
# (tracer/microfacet.go ggxMinAlpha); alpha = roughness^2.
MIRROR_ALPHA = 1e-3

# classify's levels: "exact" (Cycles renders the material as trace defines
# it: compared, in the headline numbers), "approx" (the closest Cycles 3.4
# nodes differ in a stated, small way: compared, reported apart) and
# "none" (no close Cycles equivalent: left out with a 1 px margin).
LEVELS = ("exact", "approx", "none")

# What Cycles 3.4's GGX does differently from trace's (docs/scene-format.md
# "materials"), quoted by classify.
_SMITH = ("Cycles 3.4's Smith masking-shadowing is separable, G1(wo) G1(wi), trace's "
          "height-correlated 1/(1 + L(wo) + L(wi)): Cycles is darker toward grazing angles")
_METAL_FRESNEL = ("Cycles' metallic Fresnel (Principled v1) is F0 + (1 - F0) (Fd(wo.h, 1.5) - 0.04)/0.96, "
                  "Fd the exact dielectric Fresnel, close to trace's Schlick F0 + (1 - F0)(1 - wo.h)^5")
_ROUGH_BASE = ("trace weighs the rough base by 1 - the dielectric's compensated albedo at cos theta_o and "
               "compensates its lobes' multiple scattering (pixel version 16), the nodes by 1 - Fc(cos theta_o), "
               "single scattering")


def is_smooth(roughness):
    """Whether trace treats a GGX surface of this roughness as a mirror."""
    r = min(max(float(roughness), 0.0), 1.0)
    return r * r < MIRROR_ALPHA


def classify(m, pbr="lambert"):
    """Returns (level, why): how closely the Cycles material that render.py
    builds for m renders trace's material (a level of LEVELS). pbr is
    render.py's --pbr: "lambert" (the default: trace's diffuse base built
    from nodes) or "principled" (one Principled BSDF, as Blender's glTF
    importer makes it)."""
    t = m["type"]
    if t == "diffuse":
        return "exact", "Lambert = Cycles Diffuse BSDF, roughness 0"
    if t == "emissive":
        return "exact", "Emission, two-sided"
    if t == "metal":
        if is_smooth(m["roughness"]):
            return "exact", ("mirror with Schlick's Fresnel: Glossy BSDF Sharp coloured F0 + (1 - F0)(1 - cos)^5, "
                             "cos from Layer Weight Facing (the half vector is the normal)")
        return "approx", ("rough metal, Principled metallic 1: Principled BSDF metallic 1, GGX (single "
                          "scattering, alpha = roughness^2 in both; trace compensates multiple scattering, "
                          "render.py --ggx multi Cycles' Multiscatter GGX: ggx_check.py); " + _METAL_FRESNEL + "; "
                          + _SMITH)
    if t == "dielectric":
        if is_smooth(m["roughness"]):
            return "exact", ("smooth glass, exact Fresnel, transmission tinted only: Mix Shader by the Fresnel node "
                             "of Glossy Sharp (white) and Refraction Sharp (colour)")
        return "approx", ("rough glass, Fresnel at the normal: Cycles 3.4's GGX glass (here Glossy and "
                          "Refraction GGX mixed by the Fresnel node) weighs reflection and refraction by the "
                          "Fresnel at the shading normal, trace (Walter 2007) by the Fresnel at each microfacet "
                          "normal (on one interface at roughness 0.5, up to 30 % apart toward grazing views, "
                          "ggx_check.py); trace compensates multiple scattering (pixel version 17: its lobe / its "
                          "albedo, a clear sphere vanishes in a white furnace), the nodes are single scattering "
                          "(render.py --ggx multi: one Glass BSDF of Cycles' Multiscatter GGX, which keeps the "
                          "energy too: ggx_check.py --parts glass); " + _SMITH + "; and Cycles' rough refraction is brighter when light "
                          "sampling finds the light than when its BSDF sampling does (up to 11 % at roughness 0.5)")
    if t == "pbr":
        metal = min(max(float(m["metallic"]), 0.0), 1.0)
        smooth = is_smooth(m["roughness"])
        if pbr == "principled":
            if metal < 1:
                return "approx", ("pbr as Principled, Disney diffuse: one Principled BSDF (specular 0.5, GGX); "
                                  "its diffuse is Disney's (Schlick darkening at grazing view and light, retro-reflection growing with "
                                  "roughness) and not weighed by the coat, trace's Lambert x (1 - the dielectric's compensated albedo at "
                                  "cos theta_o)"
                                  + ("" if smooth else "; " + _METAL_FRESNEL + "; " + _SMITH))
            if smooth:
                return "approx", "pbr metallic 1 as Principled: a mirror; " + _METAL_FRESNEL
            return "approx", "pbr metallic 1 as Principled: " + _METAL_FRESNEL + "; " + _SMITH
        base = "diffuse base exact (Diffuse BSDF coloured (1 - metallic) base (1 - Fc(cos theta_o)) by nodes)"
        if float(m.get("clearcoat", 0)) > 0:
            coat = ("clear coat by nodes: the base weighted by 1 - clearcoat Fc(cos theta_o) (Layer Weight), "
                    "plus clearcoat x the F0 0.04 specular lobe")
            if smooth and is_smooth(m.get("clearcoat_roughness", 0)):
                return "exact", base + "; mirror specular; " + coat + ", a mirror (Glossy Sharp)"
            return "approx", ("rough pbr or rough clear coat, Principled metallic 1 specular: " + base.replace(" exact", "")
                              + "; " + coat
                              + "; " + _ROUGH_BASE + "; " + _METAL_FRESNEL + "; " + _SMITH)
        if smooth:
            return "exact", base + "; mirror specular with Schlick's Fresnel (Glossy Sharp, as metal)"
        return "approx", ("rough pbr, Principled metallic 1 specular: " + base.replace(" exact", "") + "; specular = Principled BSDF "
                          "metallic 1 coloured F0 (for F0 0.04 its Fresnel is the exact one of IOR 1.5); "
                          + _ROUGH_BASE + "; " + _METAL_FRESNEL + "; " + _SMITH)
    if t == "phong":
        return "none", "phong: trace's diffuse + cosine-power lobe mix has no Cycles BSDF"
    return "none", "unknown type " + t


# ---------------------------------------------------------------- transforms


def _sincos_deg(deg):
    """sin, cos of deg degrees, exact at multiples of 90 (as scenes/transform.go)."""
    r = math.fmod(deg, 360.0)
    if r < 0:
        r += 360.0
    exact = {0.0: (0.0, 1.0), 360.0: (0.0, 1.0), 90.0: (1.0, 0.0),
             180.0: (0.0, -1.0), 270.0: (-1.0, 0.0)}
    if r in exact:
        return exact[r]
    a = math.radians(r)
    return math.sin(a), math.cos(a)


def transform_matrices(tr):
    """Returns (linear, normal, offset, flip) for a mesh object's transform,
    as scenes/transform.go builds them: p -> T . Rz . Ry . Rx . S . p, normals
    through (R.S)^-T = R.S^-1, and flip when the determinant is negative."""
    tr = tr or {}
    t = np.array(tr.get("translate", [0, 0, 0]), dtype=np.float64)
    rx, ry, rz = tr.get("rotate", [0, 0, 0])
    sc = tr.get("scale", 1)
    s = np.array([sc, sc, sc] if isinstance(sc, (int, float)) else sc, dtype=np.float64)
    sx, cx = _sincos_deg(rx)
    sy, cy = _sincos_deg(ry)
    sz, cz = _sincos_deg(rz)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    R = Rz @ Ry @ Rx
    linear = R * s[None, :]
    normal = R / s[None, :]
    flip = bool((s[0] < 0) != (s[1] < 0) != (s[2] < 0))
    return linear, normal, t, flip


def background_rotation(b):
    """The rotation R (3 x 3, trace coordinates) that an image background's
    "rotation" turns its map by, as scenes/background.go reads it: a number
    is degrees about +y, [rx, ry, rz] degrees about x, then y, then z (a
    mesh transform's rotate); the identity without one. A ray along d looks
    the map up at R^T d."""
    r = b.get("rotation", 0)
    rx, ry, rz = (0, r, 0) if isinstance(r, (int, float)) else r
    return transform_matrices({"rotate": [rx, ry, rz]})[0]


# ---------------------------------------------------------------- OBJ


def read_obj(path):
    """Reads a Wavefront OBJ as trace does (docs/scene-format.md "Meshes"):
    v, vt, vn, f (polygons as fans; v, v/vt, v//vn, v/vt/vn; negative
    indices), usemtl. Returns positions (n,3), and per triangle corner the
    position index (m,3), uv (m,3,2) and normal (m,3,3) or None when not
    every face gives normals, and the material name of each triangle
    (None where the file gives none). mtllib is not read: a material the
    file names must be one of the scene's (the gallery's knot names none)."""
    vs, vts, vns = [], [], []
    tri_v, tri_t, tri_n, tri_m = [], [], [], []
    all_normals = True
    mat = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            k = w[0]
            if k == "v":
                vs.append([float(x) for x in w[1:4]])
            elif k == "vt":
                vts.append([float(w[1]), float(w[2]) if len(w) > 2 else 0.0])
            elif k == "vn":
                vns.append([float(x) for x in w[1:4]])
            elif k == "usemtl":
                mat = w[1] if len(w) > 1 else None
            elif k == "f":
                corners = []
                for c in w[1:]:
                    parts = c.split("/")

                    def idx(i, n):
                        if i >= len(parts) or parts[i] == "":
                            return None
                        j = int(parts[i])
                        return j - 1 if j > 0 else n + j
                    corners.append((idx(0, len(vs)), idx(1, len(vts)), idx(2, len(vns))))
                for i in range(1, len(corners) - 1):
                    tri = (corners[0], corners[i], corners[i + 1])
                    tri_v.append([c[0] for c in tri])
                    tri_t.append([vts[c[1]] if c[1] is not None else [0.0, 0.0] for c in tri])
                    if all(c[2] is not None for c in tri):
                        tri_n.append([vns[c[2]] for c in tri])
                    else:
                        all_normals = False
                    tri_m.append(mat)
    normals = np.array(tri_n, dtype=np.float64) if all_normals and tri_n else None
    if normals is not None and np.any(np.linalg.norm(normals, axis=2) == 0):
        normals = None  # a zero normal: trace shades the whole mesh flat
    return (np.array(vs, dtype=np.float64), np.array(tri_v, dtype=np.int64),
            np.array(tri_t, dtype=np.float64), normals, tri_m)


# ---------------------------------------------------------------- geometry


def plane_axes(normal):
    """The plane's unit normal and tangent axes (t, b) of its (u, v), as
    tracer/shape.go newPlane makes them."""
    n = np.array(normal, dtype=np.float64)
    n /= np.linalg.norm(n)
    ref = np.array([0.0, 0.0, 1.0]) if abs(n[0]) > 0.9 else np.array([1.0, 0.0, 0.0])
    t = ref - n * np.dot(ref, n)
    t /= np.linalg.norm(t)
    b = np.cross(t, n)
    return n, t, b


def triangles(scene, plane_half_size):
    """Every surface but spheres as triangles, in trace coordinates: a list
    of dicts with 'material' (a name), 'p' (m,3,3) corner positions,
    'uv' (m,3,2) the trace surface coordinates at the corners (affine over
    each triangle, so interpolation is exact), 'n' (m,3,3) smooth normals
    or None, and 'what' (a label). Planes become one square of half side
    plane_half_size centred on the camera's foot on the plane."""
    out = []
    cam = np.array(scene["camera"]["position"], dtype=np.float64)
    for i, o in enumerate(scene["objects"]):
        t = o["type"]
        what = "objects[%d] %s" % (i, o.get("name", t))
        if t == "quad":
            c, e1, e2 = (np.array(o[k], dtype=np.float64) for k in ("corner", "edge1", "edge2"))
            p = np.array([[c, c + e1, c + e1 + e2], [c, c + e1 + e2, c + e2]])
            uv = np.array([[[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [0, 1]]], dtype=np.float64)
            out.append({"material": o["material"], "p": p, "uv": uv, "n": None, "what": what})
        elif t == "triangle":
            p = np.array([o["vertices"]], dtype=np.float64)
            uv = np.array([o["uv"]] if "uv" in o else [[[0, 0], [1, 0], [0, 1]]], dtype=np.float64)
            out.append({"material": o["material"], "p": p, "uv": uv, "n": None, "what": what})
        elif t == "plane":
            n, ta, ba = plane_axes(o["normal"])
            pt = np.array(o["point"], dtype=np.float64)
            centre = cam - n * np.dot(cam - pt, n)
            L = plane_half_size
            corners = [centre + L * (sa * ta + sb * ba) for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
            uvs = [[np.dot(q - pt, ta), np.dot(q - pt, ba)] for q in corners]
            # Wound so that the geometric normal is the plane's (t x b is
            # -n): Cycles takes a triangle's front from its winding, and
            # glass is entered through its front.
            p = np.array([[corners[0], corners[2], corners[1]], [corners[0], corners[3], corners[2]]])
            uv = np.array([[uvs[0], uvs[2], uvs[1]], [uvs[0], uvs[3], uvs[2]]])
            out.append({"material": o["material"], "p": p, "uv": uv, "n": None, "what": what})
        elif t == "mesh":
            path = os.path.join(scene["dir"], o["file"])
            if not path.lower().endswith(".obj"):
                raise SystemExit("%s: only OBJ meshes are converted, not %s" % (what, o["file"]))
            pos, tv, tt, tn, tm = read_obj(path)
            lin, nrm, off, _flip = transform_matrices(o.get("transform"))
            pw = pos @ lin.T + off
            p = pw[tv]
            n = None
            if tn is not None:
                n = tn @ nrm.T
                n /= np.linalg.norm(n, axis=2, keepdims=True)
                # trace turns an interpolated normal that points away from
                # the triangle's geometric normal over to its side
                # (tracer/surface.go); Cycles does not, and flips both to
                # the side the ray comes from by the winding alone. Wind
                # each triangle so its geometric normal agrees with its
                # vertex normals (knot.obj is wound clockwise), which gives
                # trace's shading in Cycles.
                g = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
                bad = np.einsum("ij,ij->i", g, n.sum(axis=1)) < 0
                for arr in (p, tt, n):
                    arr[bad, 1], arr[bad, 2] = arr[bad, 2].copy(), arr[bad, 1].copy()
            # Material per triangle: the scene's of the file's name, else
            # the object's (MTL-described materials are not converted).
            names = [m if m in scene["materials"] else o.get("material") for m in tm]
            for name in sorted(set(names)):
                sel = np.array([x == name for x in names])
                out.append({"material": name, "p": p[sel], "uv": tt[sel],
                            "n": None if n is None else n[sel], "what": what})
        elif t == "sphere":
            pass  # render.py makes them from Blender's UV sphere
        else:
            raise SystemExit("%s: unknown object type %s" % (what, t))
    return out


def spheres(scene):
    """The spheres: (centre, radius, material name, label)."""
    return [(np.array(o["center"], dtype=np.float64), float(o["radius"]), o["material"],
             "objects[%d] %s" % (i, o.get("name", "sphere")))
            for i, o in enumerate(scene["objects"]) if o["type"] == "sphere"]


def camera_frame(cam):
    """The camera's unit forward, right and up vectors (tracer/camera.go)."""
    eye = np.array(cam["position"], dtype=np.float64)
    fwd = np.array(cam["look_at"], dtype=np.float64) - eye
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, np.array(cam["up"], dtype=np.float64))
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    return fwd, right, up
