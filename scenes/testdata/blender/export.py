# Writes the Blender exports that TestBlenderPLYSTL reads: one cube,
# turned and stretched, shaded smooth, with its UV map and a byte colour
# per vertex, as PLY (ASCII and binary, with normals, UVs and colours) and
# OBJ (the C++ exporter, same axes, with normals, UVs and colours); then
# triangulated, as STL (ASCII and binary) and OBJ. Regenerate with
#
#	cd scenes/testdata/blender && blender -b --factory-startup --python export.py
#
# (Blender 3.4; the files are committed, the test does not need Blender).
import bpy, bmesh, math, os

out = os.path.dirname(os.path.abspath(__file__))
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(size=2)
ob = bpy.context.active_object
ob.rotation_euler = (0.3, 0.5, 0.7)
ob.scale = (1.5, 0.75, 1.0)
ob.location = (0.25, -0.5, 1.0)
bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
bpy.ops.object.shade_smooth()
me = ob.data
# A byte colour on the corners, one colour per vertex (linear values as
# Blender shows them; it stores their sRGB encoding in bytes).
col = me.color_attributes.new("Col", 'BYTE_COLOR', 'CORNER')
me.color_attributes.active_color = col
for loop in me.loops:
    v = loop.vertex_index
    col.data[loop.index].color = ((v & 1) * 0.8 + 0.1, ((v >> 1) & 1) * 0.5 + 0.2, ((v >> 2) & 1) * 0.3 + 0.05, 1.0)

def obj(name, **kw):
    bpy.ops.wm.obj_export(filepath=os.path.join(out, name), forward_axis='Y', up_axis='Z',
                          export_materials=False, export_normals=True, export_uv=True, export_colors=True, **kw)

for ascii, name in ((True, "cube-ascii.ply"), (False, "cube-binary.ply")):
    bpy.ops.export_mesh.ply(filepath=os.path.join(out, name), use_ascii=ascii, use_normals=True,
                            use_uv_coords=True, use_colors=True, axis_forward='Y', axis_up='Z')
obj("cube.obj")

bm = bmesh.new()
bm.from_mesh(me)
bmesh.ops.triangulate(bm, faces=bm.faces)
bm.to_mesh(me)
bm.free()
for ascii, name in ((True, "cube-ascii.stl"), (False, "cube-binary.stl")):
    bpy.ops.export_mesh.stl(filepath=os.path.join(out, name), ascii=ascii, axis_forward='Y', axis_up='Z')
obj("cube-tri.obj")
