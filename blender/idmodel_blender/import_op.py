"""File ▸ Import ▸ Quake MDL / Quake II MD2 / Quake III MD3 / Doom 3 md5 (idmodel).

`idmodel.convert` turns the model into a GLB (frames as morph targets, one glTF
animation per clip, MD3 tags as animated nodes, md5 as a skin with animations), which
Blender's own glTF importer reads: shape keys, actions, empties, an armature.
"""

import glob
import os
import shutil
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from . import common

PLAYER_PARTS = ("head", "upper", "lower")


def player_folder(path):
    """The Quake III player folder `path` (an .md3) is part of, or None: a folder with
    head.md3, upper.md3, lower.md3 and animation.cfg."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(os.path.join(folder, "animation.cfg")):
        return None
    if all(os.path.isfile(os.path.join(folder, p + ".md3")) for p in PLAYER_PARTS):
        return folder
    return None


def md5_joint_count(path):
    """`numJoints` of an md5mesh or md5anim, read from its first lines (None if absent)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("latin-1")
    except OSError:
        return None
    for line in head.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "numJoints":
            try:
                return int(words[1])
            except ValueError:
                return None
    return None


def anims_beside(mesh):
    """The .md5anim files in the md5mesh's folder with its number of joints (a folder
    may hold several models' anims; the conversion drops any that still does not fit)."""
    joints = md5_joint_count(mesh)
    folder = os.path.dirname(os.path.abspath(mesh))
    out = []
    for p in sorted(glob.glob(os.path.join(glob.escape(folder), "*.md5anim"))):
        if joints is None or md5_joint_count(p) == joints:
            out.append(p)
    return out


def engine_items():
    items = [
        ("DEFAULT", "Format's default", "The engine the format is written for by default "
         "(QuakeSpasm, Quake II, ioquake3, Doom 3)"),
        ("ALL", "Every engine", "Every engine that loads the format"),
        ("NONE", "Don't check", "Import without checking"),
    ]
    items += [(e, label, f"Check against {label} ({fmt.upper()})") for e, label, fmt in common.ENGINES]
    return items


class IMPORT_SCENE_OT_idmodel(bpy.types.Operator, ImportHelper):
    """Import a Quake MDL, Quake II MD2, Quake III MD3 (or player folder) or Doom 3 md5mesh"""

    bl_idname = "import_scene.idmodel"
    bl_label = "Import id model"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".md3"
    filter_glob: StringProperty(default="*.mdl;*.md2;*.md3;*.md5mesh", options={"HIDDEN"})

    frames: EnumProperty(
        name="Frames",
        items=(
            ("ALL", "All frames", "Every frame as a shape key, every clip as an action"),
            ("FIRST", "First frame only", "The first frame, no animation"),
        ),
        default="ALL",
    )
    whole_player: BoolProperty(
        name="Whole player folder",
        description="An .md3 in a Quake III player folder (head, upper and lower .md3 with "
        "animation.cfg): import the whole player, assembled on its tags",
        default=True,
    )
    md5_anims: BoolProperty(
        name="Include .md5anim files beside the mesh",
        description="An .md5mesh: add the .md5anim files of its folder that fit its "
        "skeleton, one action each",
        default=True,
    )
    game: StringProperty(
        name="Game folders / archives",
        description="Game folders or archives (.pak, .pk3, .pk4) to find textures in, "
        "separated by ';' (the model's own game root is always searched)",
        default="",
    )
    file_normals: BoolProperty(
        name="The file's normals",
        description="Keep the file's normals as custom split normals. Off: Blender's "
        "smooth normals, which export without splitting vertices (custom normals differ "
        "by roundings between the corners of a vertex, and the glTF exporter splits "
        "vertices there, raising MD2/MDL/MD3 vertex counts on export)",
        default=False,
    )
    merge_vertices: BoolProperty(
        name="Merge vertices",
        description="Weld the vertices the GLB splits at UV seams back into one where "
        "position (in every frame), normal and weights agree: a connected mesh to edit. "
        "Off by default: welding drops degenerate triangles and reorders vertices, so the "
        "export no longer gives the file's triangles and bytes back",
        default=False,
    )
    engine: EnumProperty(
        name="Check against",
        description="The engine whose findings are reported (refusals, hazards, warnings)",
        items=engine_items(),
        default="DEFAULT",
    )

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "frames")
        layout.prop(self, "whole_player")
        layout.prop(self, "md5_anims")
        layout.prop(self, "game")
        layout.prop(self, "merge_vertices")
        layout.prop(self, "file_normals")
        layout.prop(self, "engine")

    def execute(self, context):
        idm = common.idmodel_for(self)
        if idm is None:
            return {"CANCELLED"}
        path = os.path.abspath(bpy.path.abspath(self.filepath))
        fmt = common.format_of_path(path)
        if fmt is None:
            self.report({"ERROR"}, f"{path}: not a .mdl, .md2, .md3 or .md5mesh")
            return {"CANCELLED"}
        source, kind = path, fmt
        if fmt == "md3" and self.whole_player:
            folder = player_folder(path)
            if folder is not None:
                source, kind = folder, "player"
        options = {}
        game = [g.strip() for g in self.game.split(";") if g.strip()]
        if game:
            options["game"] = [os.path.abspath(bpy.path.abspath(g)) for g in game]
        if self.frames == "FIRST":
            options["frame"] = 0
        anims = anims_beside(path) if fmt == "md5mesh" and self.md5_anims else []

        tmp = tempfile.mkdtemp(prefix="idmodel-import-")
        try:
            glb = os.path.join(tmp, "model.glb")
            report, anims = convert_with_anims(idm, source, glb, options, anims)
            extras = common.scene_extras(glb)
            common.numpy_bool_shim()
            before = set(bpy.data.objects)
            shading = "NORMALS" if self.file_normals else "SMOOTH"
            result = bpy.ops.import_scene.gltf(
                filepath=glb, import_shading=shading, merge_vertices=self.merge_vertices
            )
            if "FINISHED" not in result:
                self.report({"ERROR"}, f"{path}: Blender's glTF importer failed")
                return {"CANCELLED"}
        except idm.Error as e:
            self.report({"ERROR"}, common.first_line(e))
            return {"CANCELLED"}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

        common.keep_record(context.scene, extras, source, kind)
        for w in report.warnings:
            self.report({"WARNING"}, w)
        self.report_findings(idm, fmt, source, kind, anims)
        new = len(set(bpy.data.objects) - before)
        what = f"{os.path.basename(source)} ({kind}"
        what += f", {len(anims)} md5anim" if anims else ""
        self.report({"INFO"}, f"imported {what}): {new} objects")
        return {"FINISHED"}

    def report_findings(self, idm, fmt, source, kind, anims):
        """idmodel.check's findings for the chosen engine, as warnings."""
        if self.engine == "NONE":
            return
        if self.engine == "ALL":
            engine = None
        elif self.engine == "DEFAULT" or common.engine_format(self.engine) != fmt:
            engine = common.DEFAULT_ENGINE[fmt]
        else:
            engine = self.engine
        files = [os.path.join(source, p + ".md3") for p in PLAYER_PARTS] if kind == "player" else [source]
        files += anims
        for f in files:
            try:
                findings = idm.check(f, engine)
            except idm.Error as e:
                self.report({"WARNING"}, common.first_line(e))
                continue
            for x in findings:
                engines = ", ".join(getattr(x, "engines", None) or [x.engine])
                self.report({"WARNING"}, f"{os.path.basename(f)}: {engines}: {x.severity}: {x.message}")


def convert_with_anims(idm, source, glb, options, anims):
    """`idmodel.convert` with the md5anims that fit: an anim the mesh refuses (another
    skeleton with as many joints) is left out and the conversion tried again."""
    anims = list(anims)
    while True:
        try:
            return idm.convert(source, glb, anims=anims, force=True, **options), anims
        except idm.Error as e:
            message = str(e)
            bad = [a for a in anims if a in message]
            if not bad:
                raise
            anims = [a for a in anims if a not in bad]


def menu_import(self, context):
    self.layout.operator(
        IMPORT_SCENE_OT_idmodel.bl_idname,
        text="Quake MDL / Quake II MD2 / Quake III MD3 / Doom 3 md5 (idmodel)",
    )
