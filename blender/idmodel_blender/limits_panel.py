"""The counts an engine limits, for the selected meshes, against `idmodel.limits`: in the
3D view's sidebar (tab "idmodel") and in the export dialog.

MDL and MD3 vertices are counted as a glTF export makes them: one per distinct
(vertex, UV) pair over the face corners (a vertex on a UV seam counts once per side),
per material for MD3 (a surface per material). MD2 keeps texture coordinates per
triangle corner, and idmodel welds the vertices that agree in every frame, so MD2
counts distinct positions over all frames (shape keys) instead. All with `foreach_get`
and numpy: no Python loop per vertex or corner.
"""

import bpy
import numpy as np
from bpy.props import EnumProperty

from . import common

_cache = {}  # mesh pointer -> (key, counts); cleared on every depsgraph update
_limits = {}  # engine -> idmodel.limits(engine)


def mesh_counts(me):
    """(vertices per material, triangles per material) of a mesh, as two int arrays
    indexed by material slot (at least one entry)."""
    return _counts(me)[:2]


def positions_count(me):
    """The distinct positions of the vertices the faces use, a position being the
    vertex's place in every frame (the base and each shape key): what an MD2 keeps."""
    return _counts(me)[2]


def _counts(me):
    keys = me.shape_keys.key_blocks if me.shape_keys else ()
    key = (len(me.vertices), len(me.loops), len(me.polygons), me.uv_layers.active_index, len(keys))
    hit = _cache.get(me.as_pointer())
    if hit is not None and hit[0] == key:
        return hit[1]
    npoly, nloop = len(me.polygons), len(me.loops)
    totals = np.empty(npoly, dtype=np.int32)
    starts = np.empty(npoly, dtype=np.int32)
    mats = np.empty(npoly, dtype=np.int32)
    me.polygons.foreach_get("loop_total", totals)
    me.polygons.foreach_get("loop_start", starts)
    me.polygons.foreach_get("material_index", mats)
    nmat = max(1, int(mats.max()) + 1 if npoly else 1)
    tris = np.bincount(mats, weights=np.maximum(totals - 2, 0), minlength=nmat).astype(np.int64)

    # Each corner's material: a polygon's corners are the run loop_start .. + loop_total,
    # and the runs tile the corners, so in loop_start order they are the corners in order.
    order = np.argsort(starts, kind="stable")
    loop_mat = np.repeat(mats[order], totals[order])
    if len(loop_mat) != nloop:  # not a valid mesh: count every corner as material 0
        loop_mat = np.zeros(nloop, dtype=np.int32)
    key_cols = np.zeros((nloop, 4), dtype=np.int32)
    vi = np.empty(nloop, dtype=np.int32)
    me.loops.foreach_get("vertex_index", vi)
    key_cols[:, 0] = vi
    key_cols[:, 1] = loop_mat
    uv_layer = me.uv_layers.active
    if uv_layer is not None and nloop:
        uv = np.empty(nloop * 2, dtype=np.float32)
        uv_layer.data.foreach_get("uv", uv)
        uv += np.float32(0.0)  # -0.0 and 0.0 are one UV
        key_cols[:, 2:] = uv.view(np.int32).reshape(nloop, 2)
    uniq = np.unique(key_cols.view(np.dtype((np.void, 16))).ravel())
    verts = np.bincount(uniq.view(np.int32).reshape(-1, 4)[:, 1], minlength=nmat).astype(np.int64)
    counts = (verts, tris, _distinct_positions(me, vi, keys))
    _cache[me.as_pointer()] = (key, counts)
    return counts


def _distinct_positions(me, vi, keys):
    """Distinct positions over all frames of the vertices in `vi`, told apart by a
    random projection of every frame's coordinates summed into one float64 per vertex
    (memory per vertex, not per vertex and frame; equal positions give equal sums)."""
    n = len(me.vertices)
    if n == 0 or len(vi) == 0:
        return 0
    rng = np.random.default_rng(0x1D)
    co = np.empty(n * 3, dtype=np.float32)
    h = np.zeros(n, dtype=np.float64)
    sources = [me.vertices] + [k.data for k in keys]
    for src in sources:
        src.foreach_get("co", co)
        h += co.reshape(n, 3).astype(np.float64) @ rng.standard_normal(3)
    return int(len(np.unique(h[np.unique(vi)])))


def limits(engine):
    """`idmodel.limits(engine)`, kept; None when the package is missing."""
    if engine not in _limits:
        try:
            _limits[engine] = common.idmodel().limits(engine)
        except Exception:  # a missing package: the panel says so
            return None
    return _limits[engine]


def counted_objects(context):
    """The selected mesh objects a model is made from (not idmodel's tag-frame meshes)."""
    return [
        ob
        for ob in context.selected_objects
        if ob.type == "MESH" and not ob.name.startswith(common.TAG_FRAMES_PREFIX)
    ]


def draw_counts(layout, context, engine):
    """Each selected mesh's vertices and triangles against `engine`'s limits (red when
    over); MDL and MD2 limit the whole model, MD3 each surface (material)."""
    box = layout.box()
    fmt = common.engine_format(engine)
    lim = limits(engine)
    if lim is None:
        box.label(text="idmodel package missing", icon="ERROR")
        return
    obs = counted_objects(context)
    if not obs:
        box.label(text="Select mesh objects to count them")
        return
    if context.mode != "OBJECT":
        box.label(text="Counts as of the last Object Mode", icon="INFO")
    vmax, tmax = lim.get("vertices"), lim.get("triangles")
    per = "per surface" if fmt == "md3" else "per model"
    box.label(text=f"{engine}: {fmt_limit(vmax)} vertices, {fmt_limit(tmax)} triangles {per}")
    total_v = total_t = 0
    for ob in obs:
        verts, tris = mesh_counts(ob.data)
        if fmt == "md3":
            v, t = int(verts.max()), int(tris.max())
            label = f"{ob.name}: {v} vertices, {t} triangles (largest surface)"
        else:
            if fmt == "md2":
                verts = np.array([positions_count(ob.data)])
            v, t = int(verts.sum()), int(tris.sum())
            label = f"{ob.name}: {v} vertices, {t} triangles"
        total_v += int(verts.sum())
        total_t += int(tris.sum())
        row = box.row()
        row.alert = over(v, vmax) or over(t, tmax)
        row.label(text=label, icon="ERROR" if row.alert else "MESH_DATA")
    if fmt != "md3" and len(obs) > 1:
        row = box.row()
        row.alert = over(total_v, vmax) or over(total_t, tmax)
        row.label(text=f"model: {total_v} vertices, {total_t} triangles")


def over(n, limit):
    return limit is not None and n > limit


def fmt_limit(n):
    return "no limit on" if n is None else str(n)


class VIEW3D_PT_idmodel(bpy.types.Panel):
    """Vertex and triangle counts against an engine's limits"""

    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "idmodel"
    bl_label = "Engine limits"

    def draw(self, context):
        self.layout.prop(context.scene, "idmodel_engine", text="Engine")
        draw_counts(self.layout, context, context.scene.idmodel_engine)


def clear_cache(*_args):
    _cache.clear()


def register():
    bpy.types.Scene.idmodel_engine = EnumProperty(
        name="Engine",
        description="The engine whose limits the counts are compared with",
        items=[(e, label, f"{label} ({fmt.upper()})") for e, label, fmt in common.ENGINES],
        default="quake2",
    )
    bpy.utils.register_class(VIEW3D_PT_idmodel)
    if clear_cache not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(clear_cache)


def unregister():
    if clear_cache in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(clear_cache)
    bpy.utils.unregister_class(VIEW3D_PT_idmodel)
    del bpy.types.Scene.idmodel_engine
    _cache.clear()
    _limits.clear()
