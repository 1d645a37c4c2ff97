"""id Software's model formats as numpy arrays, engine checks and conversions.

Quake MDL, Quake II MD2, Quake III MD3 (files and player folders) and Doom 3 md5
(``.md5mesh``, ``.md5anim``, ``.md5camera``), read by the Rust library ``idmodel``:
exact to the engines, fuzzed, and fast. Arrays are built in Rust and handed to numpy
without per-vertex Python work.

>>> import idmodel
>>> model = idmodel.load("samples/cube.md3")          # doctest: +SKIP
>>> model.meshes[0].positions.shape                    # (frames, vertices, 3)  # doctest: +SKIP
>>> [f.message for f in model.check(engine="ioq3")]    # doctest: +SKIP
>>> idmodel.convert("samples/cube.md3", "cube.glb")    # doctest: +SKIP

Every rule (parsing, decoding, checks, conversion, writing) lives in the Rust
libraries; this package converts types.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import Error, Finding, Report

__version__ = _native.__version__

__all__ = [
    "Error",
    "Finding",
    "Report",
    "Model",
    "Mesh",
    "Player",
    "Material",
    "load",
    "check",
    "convert",
    "to_glb",
    "write",
    "write_mdl",
    "write_md2",
    "write_md3",
    "limits",
    "engines",
    "FORMATS",
]

#: The formats ``load`` reads, by the names ``Model.format`` uses.
FORMATS = ("mdl", "md2", "md3", "md5mesh", "md5anim", "md5camera")

PathLike = Union[str, "os.PathLike[str]"]
Source = Union[PathLike, bytes, bytearray, memoryview]


def _path(p: PathLike) -> str:
    return os.fspath(p)


class Mesh:
    """One mesh: MDL and MD2 the whole model, MD3 a surface, md5mesh a mesh.

    Arrays are numpy arrays, decoded when first asked for and then kept.
    """

    def __init__(self, native: Any) -> None:
        self._n = native

    def __repr__(self) -> str:
        return (
            f"Mesh({self.name!r}, vertices={self.vertex_count}, "
            f"triangles={self.triangle_count}, frames={self.frame_count})"
        )

    @property
    def name(self) -> str:
        """MD3 surface name, md5mesh mesh name; empty for MDL and MD2."""
        return self._n.name

    @property
    def shader(self) -> str:
        """MD3 first shader, md5mesh shader; empty for MDL and MD2."""
        return self._n.shader

    @property
    def vertex_count(self) -> int:
        """Vertices."""
        return self._n.vertex_count

    @property
    def triangle_count(self) -> int:
        """Triangles."""
        return self._n.triangle_count

    @property
    def frame_count(self) -> int:
        """Frames (MDL poses with groups expanded; 1 for md5mesh, its bind pose)."""
        return self._n.frame_count

    @cached_property
    def _frames(self) -> Tuple[np.ndarray, np.ndarray]:
        return self._n.frame_arrays(0, None)

    @property
    def positions(self) -> np.ndarray:
        """Every frame's positions, ``(frames, vertices, 3)`` float32, as the engine
        decodes them (md5mesh: the bind pose, skinned as Doom 3 does)."""
        return self._frames[0]

    @property
    def normals(self) -> np.ndarray:
        """Every frame's normals, ``(frames, vertices, 3)`` float32, from the format's
        normal table or encoding (md5 stores none: zeros)."""
        return self._frames[1]

    def frame(self, index: int) -> Tuple[np.ndarray, np.ndarray]:
        """Positions and normals of one frame, each ``(vertices, 3)``."""
        p, n = self._n.frame_arrays(index, 1)
        return p[0], n[0]

    @cached_property
    def triangles(self) -> np.ndarray:
        """``(triangles, 3)`` uint32 vertex indices, in the file's winding."""
        return self._n.triangle_array()

    @cached_property
    def uvs(self) -> Optional[np.ndarray]:
        """Per-vertex UVs ``(vertices, 2)`` float32 (MD3, md5mesh); ``None`` for MDL and
        MD2, which keep them per triangle corner (``corner_uvs``)."""
        return self._n.uv_array()

    @cached_property
    def corner_uvs(self) -> np.ndarray:
        """Per-corner UVs ``(triangles, 3, 2)`` float32, (0, 0) the image's top left:
        MDL (GLQuake's seam rule, half-texel offset), MD2, MD3."""
        return self._n.corner_uv_array()


class Material:
    """A material with its texture resolved as a conversion resolves it."""

    def __init__(self, name: str, image: Any) -> None:
        self.name = name
        #: ``(height, width, 4)`` uint8 RGBA pixels, or ``None``.
        self.pixels: Optional[np.ndarray] = None
        #: ``"png"`` or ``"jpeg"`` for a file kept as it is (``encoded`` holds it).
        self.mime: Optional[str] = None
        #: The encoded file, when the texture was kept encoded.
        self.encoded: Optional[bytes] = None
        if image is not None and image[0] == "rgba":
            _, w, h, data = image
            self.pixels = np.frombuffer(data, dtype=np.uint8).reshape(h, w, 4)
        elif image is not None:
            self.mime, self.encoded = image

    def __repr__(self) -> str:
        shape = None if self.pixels is None else self.pixels.shape[:2]
        return f"Material({self.name!r}, pixels={shape}, mime={self.mime!r})"


class Model:
    """A model file (MDL, MD2, MD3, md5mesh, md5anim or md5camera), read by ``load``."""

    def __init__(self, native: Any, anims: Sequence["Model"] = ()) -> None:
        self._n = native
        #: md5mesh: the md5anim models loaded with it.
        self.anims: List[Model] = list(anims)

    def __repr__(self) -> str:
        c = self.counts
        return (
            f"Model({self.name!r}, format={self.format!r}, meshes={c['meshes']}, "
            f"frames={c['frames']}, vertices={c['vertices']})"
        )

    @property
    def format(self) -> str:
        """``"mdl"``, ``"md2"``, ``"md3"``, ``"md5mesh"``, ``"md5anim"`` or ``"md5camera"``."""
        return self._n.format

    @property
    def name(self) -> str:
        """The path it was loaded from, or the name given with bytes."""
        return self._n.name

    @property
    def path(self) -> Optional[str]:
        """The path it was loaded from; ``None`` for bytes."""
        p = self._n.path
        return None if p is None else os.fspath(p)

    @property
    def data(self) -> bytes:
        """The file's bytes."""
        return self._n.data

    @cached_property
    def counts(self) -> Dict[str, int]:
        """frames, vertices, triangles, meshes, skins, tags, joints."""
        return self._n.counts()

    @cached_property
    def info(self) -> Dict[str, Any]:
        """What ``idmodel info --json`` reports (counts, bounds, clips, names)."""
        return json.loads(_native.info_json(self.name, self._n.data))

    @cached_property
    def meshes(self) -> List[Mesh]:
        """The meshes (MDL and MD2 one, MD3 one per surface, md5mesh one per mesh)."""
        return [Mesh(m) for m in self._n.meshes()]

    @property
    def frame_count(self) -> int:
        """Frames (MDL poses with groups expanded; md5mesh 0)."""
        return self.counts["frames"]

    @cached_property
    def frame_names(self) -> List[str]:
        """The name of each frame (MDL poses, MD2 and MD3 frames)."""
        return self._n.frame_names()

    @property
    def clips(self) -> List[str]:
        """The clips a conversion makes (frame-name runs, MDL groups, md5anims)."""
        return list(self.info.get("clips", []))

    @cached_property
    def skins(self) -> List[str]:
        """Skin names: MD2 paths, MDL ``skin<N>``, MD3 and md5 shaders per mesh."""
        return self._n.skin_names()

    @cached_property
    def tag_names(self) -> List[str]:
        """MD3 tag names."""
        return self._n.tag_names()

    @cached_property
    def _tags(self) -> Tuple[np.ndarray, np.ndarray]:
        return self._n.tags()

    @property
    def tag_origins(self) -> np.ndarray:
        """MD3 tag positions of every frame, ``(frames, tags, 3)``."""
        return self._tags[0]

    @property
    def tag_axes(self) -> np.ndarray:
        """MD3 tag axes of every frame, ``(frames, tags, 3, 3)``; rows forward, left, up."""
        return self._tags[1]

    @cached_property
    def _joints(self) -> Tuple[List[str], List[int]]:
        return self._n.joints()

    @property
    def joint_names(self) -> List[str]:
        """md5 joint names."""
        return self._joints[0]

    @cached_property
    def joint_parents(self) -> np.ndarray:
        """md5 joint parents, ``(joints,)`` int32, -1 for a root."""
        return np.asarray(self._joints[1], dtype=np.int32)

    @cached_property
    def poses(self) -> np.ndarray:
        """md5 model-space joint matrices ``(frames, joints, 3, 4)`` as Doom 3 builds
        them: md5mesh its bind pose, md5anim every frame."""
        return self._n.poses()

    @property
    def frame_rate(self) -> Optional[float]:
        """md5anim and md5camera frames per second."""
        return self._n.frame_rate()

    @cached_property
    def bounds(self) -> np.ndarray:
        """md5anim stored bounds per frame, ``(frames, 2, 3)``."""
        return self._n.bounds()

    def check(self, engine: Optional[str] = None) -> List[Finding]:
        """The engines' findings, as ``idmodel check --json`` gives them."""
        return _native.check_bytes(self.name, self._n.data, engine)

    def materials(self, **options: Any) -> List[Material]:
        """Materials with textures resolved (``game=[...]`` adds game folders or archives).
        Needs a model loaded from a path."""
        if self.path is None:
            raise ValueError("materials need a model loaded from a path")
        opts = dict(options)
        if self.anims and "anims" not in opts:
            opts["anims"] = [a.path for a in self.anims if a.path]
        mats, _warnings = _native.materials(self.path, _options(opts))
        return [Material(n, img) for n, img in mats]

    def to_glb(self, **options: Any) -> bytes:
        """The GLB the command writes for this model (same bytes)."""
        if self.path is not None:
            opts = dict(options)
            if self.anims and "anims" not in opts:
                opts["anims"] = [a.path for a in self.anims if a.path]
            return to_glb(self.path, **opts)
        files = [(os.path.basename(self.name) or "model", self.data)]
        files += [(os.path.basename(a.name), a.data) for a in self.anims]
        outs, _report = _native.convert_bytes(files, files[0][0], "model.glb", _options(options))
        return bytes(outs[0][1])


class Player:
    """A Quake III player folder: ``lower``, ``upper`` and ``head`` MD3 parts, their
    ``.skin`` files and ``animation.cfg``."""

    def __init__(self, path: str, parts: Dict[str, Model]) -> None:
        self.path = path
        #: The parts by name (``lower``, ``upper``, ``head``).
        self.parts = parts

    def __repr__(self) -> str:
        return f"Player({self.path!r}, parts={list(self.parts)})"

    @property
    def format(self) -> str:
        """``"md3-player"``."""
        return "md3-player"

    @cached_property
    def info(self) -> Dict[str, Any]:
        """What ``idmodel info --json`` reports for the folder."""
        return json.loads(_native.info_json(self.path))

    @property
    def clips(self) -> List[str]:
        """The clips of ``animation.cfg``."""
        return list(self.info.get("clips", []))

    @property
    def skins(self) -> List[str]:
        """The skin names (``default``, ``red``, ``blue`` …)."""
        return list(self.info.get("lower", {}).get("skin_names", []))

    def check(self, engine: Optional[str] = None) -> Dict[str, List[Finding]]:
        """Each part's findings (with its ``.skin`` files and ``animation.cfg``)."""
        return {k: m.check(engine) for k, m in self.parts.items()}

    def to_glb(self, **options: Any) -> bytes:
        """The GLB of the assembled player (same bytes as the command)."""
        return to_glb(self.path, **options)


def _options(options: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in options.items():
        if k in ("anims", "game") and v is not None:
            if isinstance(v, (str, os.PathLike)):
                v = [v]
            v = [_path(x) for x in v]
        elif k == "palette" and v is not None:
            v = _path(v)
        out[k] = v
    return out


def load(
    source: Source,
    name: Optional[str] = None,
    anims: Sequence[Source] = (),
) -> Union[Model, Player]:
    """Reads a model.

    ``source`` is a path (a file, ``ARCHIVE.pk3:entry``, or a Quake III player folder)
    or the file's bytes (``name`` then names it in messages). ``anims`` adds md5anim files
    (paths or bytes) to an md5mesh. Raises ``idmodel.Error`` with ``offset`` (or ``line``
    and ``column``) for a file the format's rules refuse.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        native = _native.parse_bytes(bytes(source), name or "<bytes>")
    else:
        path = _path(source)
        native = _native.load_path(path, name or path)
        if native is None:
            parts = {}
            for part in ("lower", "upper", "head"):
                p = os.path.join(path, part + ".md3")
                if os.path.exists(p):
                    parts[part] = load(p)
            if not parts:
                raise Error(f"{path}: a folder without lower.md3, upper.md3 or head.md3 is not a player folder")
            return Player(path, parts)  # type: ignore[arg-type]
    loaded = [load(a) for a in anims]
    for a in loaded:
        if not isinstance(a, Model) or a.format != "md5anim":
            raise Error(f"{a.name}: is not an md5anim")
    return Model(native, loaded)  # type: ignore[arg-type]


def check(source: Source, engine: Optional[str] = None, name: Optional[str] = None) -> List[Finding]:
    """The findings of a model file (path or bytes) for ``engine`` (all engines that
    load the format when ``None``), as ``idmodel check --json`` reports them."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _native.check_bytes(name or "<bytes>", bytes(source), engine)
    path = _path(source)
    return _native.check_bytes(path, _native.read_path(path), engine)


def convert(source: PathLike, output: PathLike, *, force: bool = False, **options: Any) -> Report:
    """Converts ``source`` to ``output`` (format from its extension: .glb .gltf .obj
    .mdl .md2 .md3 .md5mesh) as ``idmodel convert`` does, and writes the files the way
    it does: never over an input; ``force`` replaces existing side files.

    Options are the command's flags: ``engine``, ``fit``, ``unchecked``, ``anims``,
    ``game``, ``fps``, ``frame``, ``clip``, ``skin``, ``quantize``, ``meshopt``,
    ``no_textures``, ``keep_axes``, ``keep_normals``, ``lods``, ``no_split``,
    ``shader_prefix``, ``skin_name``, ``groups``, ``palette``.
    """
    return _native.convert(_path(source), _path(output), _options(options), force)


def to_glb(source: Source, name: Optional[str] = None, **options: Any) -> bytes:
    """The GLB of a model (path, or bytes named ``name``), the bytes the command writes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        n = os.path.basename(name or "model")
        outs, _report = _native.convert_bytes([(n, bytes(source))], n, "model.glb", _options(options))
    else:
        outs, _report = _native.convert_unwritten(_path(source), "model.glb", _options(options))
    return bytes(outs[0][1])


def write(
    output: PathLike,
    meshes: Sequence[Dict[str, Any]],
    frame_names: Optional[Sequence[str]] = None,
    *,
    force: bool = False,
    **options: Any,
) -> Report:
    """Writes a model from arrays, in the format ``output``'s extension names.

    Each mesh is a dict: ``name``, ``positions`` ``(frames, vertices, 3)``, ``triangles``
    ``(triangles, 3)``, optional ``normals`` (the positions' shape) and ``uvs``
    ``(vertices, 2)`` (0, 0 the image's top left). Axes are the id formats' (Z up). The
    arrays go through the conversion a GLB takes, so ``engine`` checks the file the
    engine would load (refused: ``idmodel.Error``), ``fit`` splits or decimates to fit.
    """
    ms = []
    for m in meshes:
        d = {
            "name": str(m.get("name", "")),
            "positions": np.ascontiguousarray(m["positions"], dtype=np.float32),
            "triangles": np.ascontiguousarray(m["triangles"], dtype=np.uint32),
        }
        if d["positions"].ndim == 2:
            d["positions"] = d["positions"][None]
        if m.get("normals") is not None:
            n = np.ascontiguousarray(m["normals"], dtype=np.float32)
            d["normals"] = n[None] if n.ndim == 2 else n
        if m.get("uvs") is not None:
            d["uvs"] = np.ascontiguousarray(m["uvs"], dtype=np.float32)
        ms.append(d)
    return _native.write(_path(output), ms, list(frame_names or []), _options(options), force)


def _writer(ext: str):
    def w(output: PathLike, meshes: Sequence[Dict[str, Any]], frame_names: Optional[Sequence[str]] = None, **options: Any) -> Report:
        if not _path(output).lower().endswith(ext):
            raise ValueError(f"{_path(output)}: the output of write_{ext[1:]} ends in {ext}")
        return write(output, meshes, frame_names, **options)

    w.__name__ = f"write_{ext[1:]}"
    w.__doc__ = f"``write`` for a {ext} file (the output must end in {ext})."
    return w


write_mdl = _writer(".mdl")
write_md2 = _writer(".md2")
write_md3 = _writer(".md3")


def limits(engine: str) -> Dict[str, Optional[int]]:
    """What ``engine`` loads and draws: ``vertices`` and ``triangles`` (per surface for
    MD3, per model for MDL and MD2), ``frames``, ``skins``, ``skin_height``; ``None``
    where it sets no limit."""
    return _native.limits(engine)


def engines(format: str) -> List[str]:
    """The engines that load ``format`` (``"mdl"``, ``"md2"``, ``"md3"``, ``"md5mesh"`` …)."""
    return _native.engines(format)


# Attributes every Error has, also one raised from Python code.
Error.kind = "failed"
Error.offset = None
Error.line = None
Error.column = None
