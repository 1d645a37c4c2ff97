"""What the importer, the exporter and the panel share: the `idmodel` package, the
engines, the GLB scene record, and Blender-version differences.

Everything about the formats is the `idmodel` package's (the Rust library): this module
only moves files between it and Blender's own glTF importer and exporter.
"""

import json
import os
import struct
import sys

# The formats, by the extension the file has and the name `idmodel` uses.
FORMATS = (
    ("mdl", "Quake MDL", ".mdl"),
    ("md2", "Quake II MD2", ".md2"),
    ("md3", "Quake III MD3", ".md3"),
    ("md5mesh", "Doom 3 md5mesh", ".md5mesh"),
)
EXTENSIONS = tuple(ext for _, _, ext in FORMATS)

# (id, label, format): the engines `idmodel` checks against, as `idmodel.engines(format)`
# lists them. Static because Blender enums are built when the add-on registers, before
# anything needs the package.
ENGINES = (
    ("winquake", "WinQuake", "mdl"),
    ("glquake", "GLQuake", "mdl"),
    ("quakespasm", "QuakeSpasm", "mdl"),
    ("quake2", "Quake II", "md2"),
    ("quake3", "Quake III Arena 1.32", "md3"),
    ("ioq3", "ioquake3", "md3"),
    ("doom3", "Doom 3", "md5mesh"),
)
# The engine each format is written for when none is chosen (the command's defaults).
DEFAULT_ENGINE = {"mdl": "quakespasm", "md2": "quake2", "md3": "ioq3", "md5mesh": "doom3"}

# Scene custom properties this add-on sets on import.
RECORD = "idmodel_record"  # the GLB scene's extras, as JSON text
SOURCE = "idmodel_source"  # the file or folder imported
SOURCE_FORMAT = "idmodel_format"  # "mdl", "md2", "md3", "player" or "md5mesh"

# The hidden meshes idmodel writes for an animated MD3 tag ("frames of tag_weapon"):
# geometry the way back reads, not part of the model a user edits.
TAG_FRAMES_PREFIX = "frames of tag_"


def engine_format(engine):
    """The format an engine loads."""
    for e, _, f in ENGINES:
        if e == engine:
            return f
    return None


def format_of_path(path):
    """"mdl", "md2", "md3" or "md5mesh" from a file name, else None."""
    ext = os.path.splitext(path)[1].lower()
    for f, _, e in FORMATS:
        if e == ext:
            return f
    return None


class MissingPackage(Exception):
    """The `idmodel` Python package could not be imported."""


def idmodel():
    """The `idmodel` package: from the add-on's `vendor/` folder (the plain add-on zip for
    Blender 3.x), else as installed (a Blender 4.2+ extension installs its wheel into
    Blender's Python), else a `MissingPackage` saying how to install it."""
    vendor = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor")
    if os.path.isdir(vendor) and vendor not in sys.path:
        sys.path.insert(0, vendor)
    try:
        import idmodel as module
    except ImportError as e:
        raise MissingPackage(
            f"the idmodel Python package is missing ({e}); install the add-on zip that "
            "bundles it, or `pip install --target <add-on>/vendor idmodel-*.whl`"
        ) from None
    return module


def idmodel_for(operator):
    """`idmodel()` for an operator: `None` after reporting the missing package as its
    error."""
    try:
        return idmodel()
    except MissingPackage as e:
        operator.report({"ERROR"}, str(e))
        return None


def numpy_bool_shim():
    """Debian's Blender 3.4 glTF add-on still calls `numpy.bool`, which numpy 1.24
    removed; give it back (only where it is missing)."""
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool


def operator_options(op, wanted):
    """`wanted` without the options `op` (a `bpy.ops` operator) does not have: Blender
    3.x and 4.x name some glTF options differently, and an unknown keyword is an error."""
    have = {p.identifier for p in op.get_rna_type().properties}
    return {k: v for k, v in wanted.items() if k in have}


# --- The GLB scene record -------------------------------------------------------------
#
# idmodel's GLB keeps what glTF cannot say (MD3 raw normals and names, MD2/MDL patches,
# md5 bounds, a player's animation.cfg) in the scene's extras, the record that gives an
# unedited model back byte for byte. Blender's importer stores extras as custom
# properties, but it cannot hold a list of mixed values: it keeps such a value as its
# Python repr (a string), which no glTF reader can use again. So the importer keeps the
# record as JSON text in one scene property, and the exporter puts it back, as JSON, into
# the GLB Blender writes, before idmodel reads it. idmodel itself decides whether the
# record still fits the geometry (it compares indices, positions and UVs).


def read_glb_json(path):
    """The JSON document of a GLB and the bytes after its JSON chunk."""
    with open(path, "rb") as f:
        data = f.read()
    magic, _version, _length = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF":
        raise ValueError(f"{path}: not a GLB")
    n, kind = struct.unpack_from("<II", data, 12)
    if kind != 0x4E4F534A:
        raise ValueError(f"{path}: the first GLB chunk is not JSON")
    return json.loads(data[20 : 20 + n].decode("utf-8")), data[20 + n :]


def write_glb_json(path, doc, rest):
    """Writes a GLB from its JSON document and the chunks after it (kept as they are)."""
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + rest
    with open(path, "wb") as f:
        f.write(struct.pack("<4sII", b"glTF", 2, 12 + len(body)))
        f.write(body)


def scene_extras(path):
    """The extras of a GLB's first scene (idmodel's record), or {}."""
    doc, _ = read_glb_json(path)
    scenes = doc.get("scenes") or [{}]
    extras = scenes[doc.get("scene", 0)].get("extras")
    return extras if isinstance(extras, dict) else {}


def keep_record(scene, extras, source, fmt):
    """After an import: the record as JSON text on `scene`, in place of the values
    Blender's importer made from it."""
    for key in extras:
        if key in scene.keys():
            del scene[key]
    scene[RECORD] = json.dumps(extras, separators=(",", ":"))
    scene[SOURCE] = source
    scene[SOURCE_FORMAT] = fmt


def restore_record(path, scene):
    """Before idmodel reads a GLB Blender wrote: its scene extras with the record of
    `scene` back as JSON, and without this add-on's own properties. Returns whether the
    GLB had a record put back."""
    text = scene.get(RECORD)
    doc, rest = read_glb_json(path)
    scenes = doc.get("scenes") or []
    if not scenes:
        return False
    target = scenes[doc.get("scene", 0)]
    extras = target.get("extras")
    extras = dict(extras) if isinstance(extras, dict) else {}
    for key in (RECORD, SOURCE, SOURCE_FORMAT):
        extras.pop(key, None)
    record = {}
    if text:
        try:
            record = json.loads(text)
        except ValueError:
            record = {}
    extras.update(record)
    if extras:
        target["extras"] = extras
    else:
        target.pop("extras", None)
    write_glb_json(path, doc, rest)
    return bool(record)


def first_line(e):
    """An exception as one line (idmodel's errors are one line already)."""
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]
