"""Makes `WalkerTransformedArmature.dae` and its truth with Blender (the `bpy` module, 4.5 LTS, the last
with a Collada exporter): the Walker character of ../shared/assets/characters with its armature
object moved, turned and scaled non-uniformly, as when a rig object rather than its bones is posed.
Blender's Collada exporter writes that transform as the armature node's <matrix> above the joints.
The truth is every skinned vertex as Blender evaluates it (world frame, +Z up, metres) at frames of
the Walk clip, in the format of Walker.truth.json.

usage: python3 -m venv v && v/bin/pip install bpy==4.5.15
       v/bin/python make_walker_transformed_armature.py ../../../shared/assets/characters/Walker.glb
"""
import json
import math
import sys
from pathlib import Path

import bpy

source = Path(sys.argv[1]).resolve()
out = Path(__file__).resolve().parent
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=str(source))
armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
mesh = next(
    o for o in bpy.data.objects if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)
)
# Only the rig and its body (the importer also brings the bones' display shape).
for other in [o for o in bpy.data.objects if o not in (armature, mesh)]:
    bpy.data.objects.remove(other)
assert mesh.parent == armature

# The rig object's own transform: a turn about all three axes, a shift and a non-uniform scale.
armature.rotation_mode = "XYZ"
armature.rotation_euler = (math.radians(12.0), math.radians(-7.0), math.radians(33.0))
armature.location = (0.45, -0.30, 0.12)
armature.scale = (1.25, 0.85, 1.10)

walk = next(a for a in bpy.data.actions if a.name.startswith("Walk"))
armature.animation_data.action = walk
scene = bpy.context.scene
scene.render.fps = 30
scene.frame_start, scene.frame_end = 0, 30

# Every bone keyed at every frame: Blender's Collada exporter drops the channels of bones that
# the action does not key itself (the forearms of Walker.dae).
bpy.context.view_layer.objects.active = armature
armature.select_set(True)
bpy.ops.object.mode_set(mode="POSE")
bpy.ops.pose.select_all(action="SELECT")
bpy.ops.nla.bake(
    frame_start=0,
    frame_end=30,
    only_selected=False,
    visual_keying=True,
    use_current_action=True,
    bake_types={"POSE"},
)
bpy.ops.object.mode_set(mode="OBJECT")

bpy.ops.object.select_all(action="SELECT")
bpy.ops.wm.collada_export(
    filepath=str(out / "WalkerTransformedArmature.dae"),
    include_armatures=True,
    include_animations=True,
    export_animation_type_selection="sample",
    sampling_rate=1,
    include_all_actions=False,
)

samples = {}
for frame in [0, 4, 9, 15, 22, 27]:
    scene.frame_set(frame)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = mesh.evaluated_get(depsgraph)
    data = evaluated.to_mesh()
    world = evaluated.matrix_world
    samples[str(frame)] = [[round(c, 6) for c in world @ v.co] for v in data.vertices]
    evaluated.to_mesh_clear()
truth = {
    "character": "WalkerTransformedArmature",
    "fps": 30,
    "armature": {
        "location": list(armature.location),
        "rotation_euler_deg": [math.degrees(a) for a in armature.rotation_euler],
        "scale": list(armature.scale),
    },
    "clips": {"Walk": {"frames": 30, "duration_s": 1.0, "samples": samples}},
}
(out / "WalkerTransformedArmature.truth.json").write_text(json.dumps(truth))
print("wrote", out / "WalkerTransformedArmature.dae", "and its truth,", len(samples), "frames")
