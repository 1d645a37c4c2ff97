"""Blender (headless): import each GLB and export it again with the glTF add-on's
defaults, as a user does with File > Import and File > Export (the defaults drop custom
properties, so the idmodel extras are gone).

    blender -b --factory-startup --python ci/blender_roundtrip.py -- IN.glb OUT.glb [...]

ci/blender.sh converts each exported GLB back to its id format and compares it with the
original (ci/blender_compare.py).
"""

import sys

import bpy

try:  # Debian's Blender with a newer numpy: its importer still uses numpy.bool.
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool
except ImportError:
    pass

args = sys.argv[sys.argv.index("--") + 1 :]
failed = 0
for src, dst in zip(args[0::2], args[1::2]):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        bpy.ops.import_scene.gltf(filepath=src)
        bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB")
    except Exception as e:  # one line per file; the comparison reports what is missing
        failed += 1
        print(f"FAIL {src}: {e}")
print(f"blender: {len(args) // 2 - failed} of {len(args) // 2} GLBs imported and exported")
sys.exit(1 if failed else 0)
