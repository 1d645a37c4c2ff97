"""File ▸ Export ▸ Quake MDL / Quake II MD2 / Quake III MD3 / Doom 3 md5 (idmodel).

Blender's own glTF exporter writes the scene as a GLB (shape keys as morph targets,
actions as animations, custom properties as extras), the importer's record goes back
into it, and `idmodel.convert` writes the id format for the chosen engine: a file the
engine would refuse is not written (the refusal is the error shown), unless "Fit to
engine limits" simplifies it until it fits or "Write even if the engine refuses" is on.
"""

import os
import shutil
import tempfile

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import common, limits_panel

_EXT = {f: e for f, _, e in common.FORMATS}
_BY_EXT = {e: f for f, _, e in common.FORMATS}


def gltf_options(path, use_selection):
    """The glTF exporter's options that keep what idmodel reads back: morph targets
    (frames), every action (clips), skins (md5), custom properties (the record), the
    materials' images (skins); no lights, cameras or modifiers applied (they would break
    shape keys). Names differ between Blender 3.x and 4.x; unknown ones are dropped."""
    wanted = {
        "filepath": path,
        "check_existing": False,
        "export_format": "GLB",
        "export_extras": True,
        "export_yup": True,
        "export_apply": False,
        "export_texcoords": True,
        "export_normals": True,
        "export_tangents": False,
        "export_materials": "EXPORT",
        "export_image_format": "AUTO",
        "export_morph": True,
        "export_morph_normal": False,
        "export_morph_tangent": False,
        "export_skins": True,
        "export_animations": True,
        "export_frame_range": False,
        "export_force_sampling": True,
        "export_nla_strips": True,  # 3.x: every action, one animation each
        "export_animation_mode": "ACTIONS",  # 4.x: the same
        "export_cameras": False,
        "export_lights": False,
        "use_selection": use_selection,
        "will_save_settings": False,
    }
    return common.operator_options(bpy.ops.export_scene.gltf, wanted)


class SmoothShading:
    """Every polygon of `meshes` shaded smooth (and no sharp edges or auto smooth)
    while the glTF exporter runs, then as it was. The id formats keep one normal per
    vertex: a flat face or a sharp edge would split each of its corners into a vertex
    of its own (a flat-shaded 64 × 64 UV sphere becomes 16,256 MD2 vertices instead of
    4,223). Custom split normals (an import with "The file's normals") still apply."""

    def __init__(self, meshes):
        self.meshes = meshes
        self.saved = []

    def __enter__(self):
        for me in self.meshes:
            smooth = np.empty(len(me.polygons), dtype=bool)
            me.polygons.foreach_get("use_smooth", smooth)
            auto = getattr(me, "use_auto_smooth", None)  # Blender < 4.1
            sharp = None
            attr = me.attributes.get("sharp_edge") if auto is None else None
            if attr is not None and attr.domain == "EDGE" and attr.data_type == "BOOLEAN":
                sharp = np.empty(len(me.edges), dtype=bool)
                attr.data.foreach_get("value", sharp)
                attr.data.foreach_set("value", np.zeros(len(me.edges), dtype=bool))
            self.saved.append((me, smooth, auto, sharp))
            me.polygons.foreach_set("use_smooth", np.ones(len(me.polygons), dtype=bool))
            if auto is not None and not me.has_custom_normals:
                me.use_auto_smooth = False  # Blender 3.x reads custom normals only with it
            me.update()
        return self

    def __exit__(self, *_exc):
        for me, smooth, auto, sharp in self.saved:
            me.polygons.foreach_set("use_smooth", smooth)
            if auto is not None:
                me.use_auto_smooth = auto
            if sharp is not None:
                attr = me.attributes.get("sharp_edge")
                if attr is not None:
                    attr.data.foreach_set("value", sharp)
            me.update()
        return False


def exported_meshes(context, use_selection):
    """The meshes the glTF exporter writes (linked library meshes are read-only)."""
    objects = context.selected_objects if use_selection else context.scene.objects
    return list({ob.data for ob in objects if ob.type == "MESH" and ob.data.library is None})


def md5_problems(context, use_selection):
    """What would make an md5mesh export wrong, one line each, as (blocking, line):
    an object with an unapplied transform (Doom 3 reads joints and weights in model
    space), a mesh bound to no armature, vertex groups that name no bone, vertices with
    no weight (Doom 3 would put them at the origin)."""
    objects = context.selected_objects if use_selection else list(context.scene.objects)
    # Bone display shapes (Blender 4's glTF importer makes an icosphere for them) are
    # not part of the model.
    shapes = {
        pb.custom_shape
        for arm in objects
        if arm.type == "ARMATURE" and arm.pose is not None
        for pb in arm.pose.bones
        if pb.custom_shape is not None
    }
    out = []
    for ob in objects:
        if ob.type not in ("MESH", "ARMATURE") or ob in shapes:
            continue
        m = np.array(ob.matrix_world, dtype=np.float64)
        if not np.allclose(m, np.eye(4), atol=1e-5) and ob.parent is None:
            out.append((False, f"{ob.name}: unapplied transform (location, rotation or scale): "
                        "apply it (Object > Apply > All Transforms) so joints and vertices agree"))
        if ob.type != "MESH":
            continue
        arm = ob.find_armature()
        if arm is None:
            out.append((True, f"{ob.name}: bound to no armature; every md5 mesh is skinned "
                        "to the skeleton (add an Armature modifier)"))
            continue
        bones = set(arm.data.bones.keys())
        groups = {g.index: g.name for g in ob.vertex_groups}
        stray = sorted(n for n in groups.values() if n not in bones)
        if stray:
            shown = ", ".join(stray[:5]) + (" ..." if len(stray) > 5 else "")
            out.append((False, f"{ob.name}: vertex groups that name no bone of {arm.name} "
                        f"({shown}); their weights are dropped"))
        bone_groups = {i for i, n in groups.items() if n in bones}
        unweighted = sum(
            1 for v in ob.data.vertices
            if not any(g.group in bone_groups and g.weight > 0.0 for g in v.groups)
        )
        if unweighted:
            out.append((True, f"{ob.name}: {unweighted} vertices have no bone weight; "
                        "Doom 3 would draw them at the origin (weight paint them)"))
    return out


def engine_items():
    items = [("DEFAULT", "Format's default", "QuakeSpasm for MDL, Quake II for MD2, "
              "ioquake3 for MD3, Doom 3 for md5mesh")]
    items += [(e, label, f"{label} ({fmt.upper()})") for e, label, fmt in common.ENGINES]
    return items


class EXPORT_SCENE_OT_idmodel(bpy.types.Operator, ExportHelper):
    """Export as Quake MDL, Quake II MD2, Quake III MD3 (or player folder) or Doom 3 md5mesh"""

    bl_idname = "export_scene.idmodel"
    bl_label = "Export id model"
    bl_options = {"REGISTER", "PRESET"}

    filename_ext = ".md3"
    filter_glob: StringProperty(default="*.mdl;*.md2;*.md3;*.md5mesh", options={"HIDDEN"})

    format: EnumProperty(
        name="Format",
        items=[(f, f"{label} ({ext})", label) for f, label, ext in common.FORMATS],
        default="md3",
    )
    # The format `check` last saw, to tell a changed format from a typed extension.
    last_format: StringProperty(default="", options={"HIDDEN", "SKIP_SAVE"})
    engine: EnumProperty(
        name="Engine",
        description="The engine the file is for: what it refuses is not written",
        items=engine_items(),
        default="DEFAULT",
    )
    fit: BoolProperty(
        name="Fit to engine limits",
        description="Split, simplify or resize a model over the engine's vertex, triangle "
        "or skin limits until it fits (every frame, UV and weight follows)",
        default=False,
    )
    unchecked: BoolProperty(
        name="Write even if the engine refuses",
        description="Write the file even when the engine would refuse to load it",
        default=False,
    )
    player_folder: BoolProperty(
        name="Quake III player folder",
        description="MD3: write a player (lower, upper, head .md3, animation.cfg and "
        "skins) into the chosen file's folder, from an imported player",
        default=False,
    )
    use_selection: BoolProperty(
        name="Selected only",
        description="Export the selected objects only",
        default=False,
    )
    smooth: BoolProperty(
        name="Smooth normals",
        description="Shade every face smooth for the export (the formats keep one normal "
        "per vertex, so flat faces and sharp edges would split every corner into a vertex "
        "of its own). Off: Blender's normals as shaded",
        default=True,
    )

    def invoke(self, context, event):
        kind = context.scene.get(common.SOURCE_FORMAT)
        if kind == "player":
            self.format, self.player_folder = "md3", True
        elif kind in _EXT:
            self.format = kind
        self.last_format = self.format
        if not self.filepath:
            # The imported model's name (a player: its upper.md3), in the .blend's folder.
            source = context.scene.get(common.SOURCE)
            if kind == "player":
                stem = "upper"
            elif source:
                stem = os.path.splitext(os.path.basename(source))[0]
            else:
                stem = os.path.splitext(os.path.basename(bpy.data.filepath))[0] or "untitled"
            folder = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
            self.filepath = os.path.join(folder, stem + _EXT[self.format])
        return ExportHelper.invoke(self, context, event)

    def check(self, context):
        """Keeps the file's extension and the format enum in step: a changed format
        changes the extension, a typed known extension changes the format."""
        path = self.filepath
        root, ext = os.path.splitext(path)
        ext = ext.lower()
        if self.format != self.last_format:
            path = (root if ext in _BY_EXT else path) + _EXT[self.format]
        elif ext in _BY_EXT and _BY_EXT[ext] != self.format:
            self.format = _BY_EXT[ext]
        elif ext not in _BY_EXT:
            path = path + _EXT[self.format]
        self.last_format = self.format
        changed = path != self.filepath
        self.filepath = path
        return changed

    def target_engine(self):
        return common.DEFAULT_ENGINE[self.format] if self.engine == "DEFAULT" else self.engine

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "format")
        layout.prop(self, "engine")
        engine = self.target_engine()
        if common.engine_format(engine) != self.format:
            layout.label(text=f"{engine} does not load {self.format}", icon="ERROR")
        layout.prop(self, "fit")
        layout.prop(self, "unchecked")
        row = layout.row()
        row.enabled = self.format == "md3"
        row.prop(self, "player_folder")
        layout.prop(self, "use_selection")
        layout.prop(self, "smooth")
        limits_panel.draw_counts(layout, context, engine)

    def execute(self, context):
        idm = common.idmodel_for(self)
        if idm is None:
            return {"CANCELLED"}
        out = os.path.abspath(bpy.path.abspath(self.filepath))
        fmt = common.format_of_path(out) or self.format
        if self.engine == "DEFAULT":
            engine = common.DEFAULT_ENGINE[fmt]
        else:
            engine = self.engine
        if common.engine_format(engine) != fmt:
            self.report({"ERROR"}, f"{out}: {engine} does not load {fmt} files")
            return {"CANCELLED"}
        target = out
        if fmt == "md3" and self.player_folder:
            target = os.path.dirname(out) + os.sep
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        if context.mode != "OBJECT" and context.view_layer.objects.active is not None:
            bpy.ops.object.mode_set(mode="OBJECT")

        if fmt == "md5mesh":
            problems = md5_problems(context, self.use_selection)
            for _blocking, line in problems:
                self.report({"WARNING"}, line)
            blocking = [line for b, line in problems if b]
            if blocking and not self.unchecked:
                self.report({"ERROR"}, blocking[0] + "; nothing was written (or write it anyway)")
                return {"CANCELLED"}

        tmp = tempfile.mkdtemp(prefix="idmodel-export-")
        try:
            glb = os.path.join(tmp, "scene.glb")
            common.numpy_bool_shim()
            opts = gltf_options(glb, self.use_selection)
            meshes = exported_meshes(context, self.use_selection) if self.smooth else []
            with SmoothShading(meshes):
                result = bpy.ops.export_scene.gltf(**opts)
            if "FINISHED" not in result or not os.path.isfile(glb):
                self.report({"ERROR"}, "Blender's glTF exporter failed")
                return {"CANCELLED"}
            common.restore_record(glb, context.scene)
            report = idm.convert(
                glb, target, engine=engine, fit=self.fit, unchecked=self.unchecked, force=True
            )
        except idm.Error as e:
            # idmodel names its input, the temporary GLB: name the file asked for instead.
            self.report({"ERROR"}, common.first_line(e).replace(glb, out))
            return {"CANCELLED"}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for w in report.warnings:
            self.report({"WARNING"}, w.replace(glb, out))
        for line in report.lines:
            self.report({"INFO"}, line)
        return {"FINISHED"}


def menu_export(self, context):
    self.layout.operator(
        EXPORT_SCENE_OT_idmodel.bl_idname,
        text="Quake MDL / Quake II MD2 / Quake III MD3 / Doom 3 md5 (idmodel)",
    )
