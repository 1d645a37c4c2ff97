"""Blender reads idmodel's quantized GLBs as the plain ones (run by ci/blender.sh):

    blender -b --factory-startup --python-exit-code 1 --python ci/blender_quantized.py -- \
        A.glb A.q.glb B.glb B.q.glb ...

For each pair (the plain GLB, then the `--quantize` one), Blender's own glTF importer
loads both, and every mesh object's vertices in world space, in its base and in every
shape key (the morph targets; a quantized mesh whose first target is frame 0 is matched
frame by frame), are compared: within half the quantization step (the
scale of the quantized object) on each axis. Prints one line per pair and exits 1 when
any pair differs more or fails to import.
"""
import sys

import bpy
import numpy

# Debian's numpy has no `numpy.bool`, which the importer of this Blender still uses.
if not hasattr(numpy, "bool"):
    numpy.bool = bool


def load(path):
    """Mesh objects by shape: (vertices, shape keys) -> [(name, world matrix, frames)]."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    out = {}
    for ob in bpy.context.scene.objects:
        if ob.type != "MESH":
            continue
        me = ob.data
        n = len(me.vertices)
        base = numpy.empty(n * 3, dtype=numpy.float64)
        me.vertices.foreach_get("co", base)
        frames = [base.reshape(n, 3)]
        if me.shape_keys:
            keys = me.shape_keys.key_blocks[1:]
            for kb in keys:
                co = numpy.empty(n * 3, dtype=numpy.float64)
                kb.data.foreach_get("co", co)
                frames.append(co.reshape(n, 3))
            # A quantized mesh whose first morph target is frame 0 (named `frame0`,
            # the glTF mesh's weights [1, 0, ...]): that key moves no vertex and stands
            # for the base, so the frames are the keys.
            if (len(keys) > 1 and keys[0].name.startswith("frame0")
                    and numpy.array_equal(frames[1], frames[0])):
                frames = frames[1:]
        m = numpy.array(ob.matrix_world, dtype=numpy.float64)
        world = [f @ m[:3, :3].T + m[:3, 3] for f in frames]
        scale = float(numpy.abs(m[:3, :3]).max())
        out.setdefault((n, len(frames)), []).append((ob.name, scale, world))
    return out


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    failed = 0
    for plain_path, quant_path in zip(args[0::2], args[1::2]):
        problems = []
        try:
            plain, quant = load(plain_path), load(quant_path)
        except Exception as e:  # an import that fails is the finding
            problems.append(f"import failed: {e}")
            plain, quant = {}, {}
        worst, compared = 0.0, 0
        for shape, objs in plain.items():
            others = quant.get(shape, [])
            if len(others) != len(objs):
                problems.append(f"{len(objs)} meshes of shape {shape}, {len(others)} quantized")
                continue
            for (_, _, a), (name, step, b) in zip(sorted(objs, key=lambda o: o[0]), sorted(others, key=lambda o: o[0])):
                # A float mesh (skinned, or a tag's frames) has scale 1 and must match.
                half = step / 2 if step < 0.5 else 0.0
                for fa, fb in zip(a, b):
                    d = float(numpy.abs(fa - fb).max()) if len(fa) else 0.0
                    reach = float(numpy.abs(fa).max()) if len(fa) else 0.0
                    if d > half + 1e-4 * (1 + reach):
                        problems.append(f"{name}: a vertex moved {d:.3g}, half step {half:.3g}")
                        break
                    worst = max(worst, d)
                compared += 1
        if compared == 0 and (plain or quant):
            problems.append("no mesh compared")
        if problems:
            failed += 1
        status = "ok" if not problems else "FAIL"
        print(f"{status} {quant_path}: {compared} meshes, largest move {worst:.2e}"
              + ("" if not problems else ": " + "; ".join(problems[:3])))
    print(f"blender: {len(args) // 2 - failed} of {len(args) // 2} quantized GLBs read as their plain GLBs")
    sys.exit(1 if failed else 0)


main()
