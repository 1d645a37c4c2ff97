"""Blender side of benches/compare/blender-roundtrip: import a glTF, export it again with
the exporter's defaults (only the file name and GLB format given).

    blender -b --factory-startup --python blender_io.py -- IN.glb OUT.glb
"""
import sys

import numpy

# Debian's Blender 3.4 glTF add-on uses `numpy.bool`, which numpy ≥ 1.24 removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402

src, dst = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)
bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB")
