"""Render scene descriptions with Blender Cycles (run by bench/render3d/generate.py).

Run with the Python that has Blender's ``bpy`` module (a separate venv, not a project
dependency): ``.venv-render/bin/python bench/render3d/blender_scene.py SCENES.json``.
``SCENES.json`` is a list of scenes written by generate.py; each is rendered to its
``exr`` path and ``<exr>.npy`` (linear RGB, float16), which generate.py turns into the
committed JPEG.

Units: metres; the board's top surface is z = 0, x to the right of the first player,
y away from the first player (board coordinates' y is flipped). Everything is in the
scene description, so this script makes no random choices.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

import bpy
import numpy as np


def _reset(samples: int, width: int, height: int) -> Any:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.use_denoising = os.environ.get("RENDER3D_DENOISE", "1") == "1"
    scene.cycles.denoising_prefilter = "FAST"
    scene.cycles.denoising_quality = "FAST"
    scene.cycles.max_bounces = 2
    scene.cycles.diffuse_bounces = 1
    scene.cycles.glossy_bounces = 1
    scene.cycles.transmission_bounces = 1
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.transparent_max_bounces = 4
    scene.render.resolution_x = width
    scene.render.resolution_y = height
    scene.render.resolution_percentage = 100
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 2
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "16"
    return scene


def _material(name: str, spec: dict[str, Any]) -> Any:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    bsdf.inputs["Roughness"].default_value = spec.get("roughness", 0.5)
    if "coat" in spec:
        bsdf.inputs["Coat Weight"].default_value = spec["coat"]
    if "image" in spec:
        tex = nodes.new("ShaderNodeTexImage")
        tex.image = bpy.data.images.load(spec["image"])
        tex.interpolation = "Linear"
        mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        if spec.get("alpha"):
            mat.node_tree.links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
    else:
        r, g, b = spec["rgb"]
        bsdf.inputs["Base Color"].default_value = (r, g, b, 1.0)
    return mat


def _add(obj: Any, mat: Any, smooth: bool, bevel: float) -> None:
    obj.data.materials.append(mat)
    if bevel > 0:
        mod = obj.modifiers.new("bevel", "BEVEL")
        mod.width = bevel
        mod.segments = 3
        mod.limit_method = "ANGLE"
    if smooth:
        obj.data.shade_smooth()


def _place(item: dict[str, Any], index: int) -> None:
    kind = item["kind"]
    x, y, z = item["at"]
    mat = _material(f"m{index}", item["material"])
    if kind == "cylinder":
        bpy.ops.mesh.primitive_cylinder_add(
            vertices=64, radius=item["radius"], depth=item["depth"], location=(x, y, z)
        )
        _add(bpy.context.object, mat, True, item.get("bevel", 0.0))
    elif kind == "box":
        sx, sy, sz = item["size"]
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=(x, y, z))
        obj = bpy.context.object
        obj.scale = (sx, sy, sz)
        obj.rotation_euler = tuple(math.radians(a) for a in item.get("rotation", (0, 0, 0)))
        bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
        _add(obj, mat, False, item.get("bevel", 0.0))
    elif kind == "plane":  # a decal or the board's print: an image on a flat square
        sx, sy = item["size"]
        bpy.ops.mesh.primitive_plane_add(size=1.0, location=(x, y, z))
        obj = bpy.context.object
        obj.scale = (sx, sy, 1.0)
        obj.rotation_euler = tuple(math.radians(a) for a in item.get("rotation", (0, 0, 0)))
        obj.data.materials.append(mat)
    elif kind == "capsule":  # an arm or a finger: a cylinder with round ends
        (x1, y1, z1), r = item["to"], item["radius"]
        dx, dy, dz = x1 - x, y1 - y, z1 - z
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        mid = ((x + x1) / 2, (y + y1) / 2, (z + z1) / 2)
        bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=r, depth=length, location=mid)
        obj = bpy.context.object
        obj.rotation_euler = (0.0, math.acos(dz / length), math.atan2(dy, dx))
        _add(obj, mat, True, 0.0)
        for end in ((x, y, z), (x1, y1, z1)):
            bpy.ops.mesh.primitive_uv_sphere_add(radius=r, location=end)
            _add(bpy.context.object, mat, True, 0.0)
    elif kind == "ellipsoid":
        bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0, location=(x, y, z))
        obj = bpy.context.object
        obj.scale = tuple(item["radii"])
        obj.rotation_euler = (0.0, 0.0, math.radians(item.get("turn", 0.0)))
        _add(obj, mat, True, 0.0)


def _light(spec: dict[str, Any]) -> None:
    light = bpy.data.lights.new("light", spec["type"])
    light.color = spec["rgb"]
    light.energy = spec["watts"]
    if spec["type"] == "AREA":
        light.size = spec["size"]
    else:
        light.shadow_soft_size = spec["size"]
    obj = bpy.data.objects.new("light", light)
    obj.location = spec["at"]
    tx, ty, tz = spec.get("target", (0.0, 0.0, 0.0))
    _look_at(obj, (tx, ty, tz), 0.0)
    bpy.context.collection.objects.link(obj)


def _look_at(obj: Any, target: tuple[float, float, float], roll: float) -> None:
    """Point the object's -Z at ``target`` with its +Y as close to world +Y as it goes (the
    board's top is up in the picture), then turn it by ``roll`` degrees about its axis."""
    from mathutils import Matrix, Vector

    forward = (Vector(target) - obj.location).normalized()
    right = forward.cross(Vector((0.0, 1.0, 0.0)))
    if right.length < 1e-6:
        right = Vector((1.0, 0.0, 0.0))
    right.normalize()
    up = right.cross(forward)
    basis = Matrix((right, up, -forward)).transposed()
    obj.rotation_euler = basis.to_euler()
    obj.rotation_euler.rotate_axis("Z", math.radians(roll))


def render(scene_spec: dict[str, Any]) -> None:
    """Build one scene and write its EXR."""
    scene = _reset(scene_spec["samples"], scene_spec["width"], scene_spec["height"])
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*scene_spec["ambient"]["rgb"], 1.0)
    bg.inputs["Strength"].default_value = scene_spec["ambient"]["strength"]
    scene.world = world
    for i, item in enumerate(scene_spec["objects"]):
        _place(item, i)
    for spec in scene_spec["lights"]:
        _light(spec)
    cam_data = bpy.data.cameras.new("camera")
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.angle = math.radians(scene_spec["camera"]["fov"])
    cam = bpy.data.objects.new("camera", cam_data)
    cam.location = scene_spec["camera"]["at"]
    bpy.context.collection.objects.link(cam)
    _look_at(cam, tuple(scene_spec["camera"]["target"]), scene_spec["camera"]["roll"])
    scene.camera = cam
    scene.render.filepath = scene_spec["exr"]
    t0 = time.process_time()
    bpy.ops.render.render(write_still=True)
    print(f"render call {time.process_time() - t0:.1f} s CPU", flush=True)
    # EXR readers vary (OpenCV's is often built without it): hand over a plain array
    image = bpy.data.images.load(scene_spec["exr"])
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    np.save(scene_spec["exr"] + ".npy", pixels.reshape(h, w, 4)[::-1, :, :3].astype(np.float16))


def main() -> None:
    """Render every scene in the JSON file named on the command line."""
    with open(sys.argv[-1], encoding="utf-8") as f:
        scenes = json.load(f)
    for spec in scenes:
        start, cpu = time.perf_counter(), time.process_time()
        render(spec)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"rendered {spec['exr']} in {wall:.1f} s ({cpu:.1f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
