"""Type stubs of the idmodel package (see __init__.py for the documentation)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

PathLike = Union[str, os.PathLike[str]]
Source = Union[PathLike, bytes, bytearray, memoryview]

__version__: str
FORMATS: Tuple[str, ...]

class Error(Exception):
    kind: str
    offset: Optional[int]
    line: Optional[int]
    column: Optional[int]

class Finding:
    severity: str
    engines: List[str]
    engine: str
    code: str
    message: str
    file: Optional[str]
    offset: Optional[int]
    line: Optional[int]
    column: Optional[int]

class Report:
    files: List[str]
    lines: List[str]
    warnings: List[str]

class Mesh:
    name: str
    shader: str
    vertex_count: int
    triangle_count: int
    frame_count: int
    positions: npt.NDArray[np.float32]
    normals: npt.NDArray[np.float32]
    triangles: npt.NDArray[np.uint32]
    uvs: Optional[npt.NDArray[np.float32]]
    corner_uvs: npt.NDArray[np.float32]
    def frame(self, index: int) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...

class Material:
    name: str
    pixels: Optional[npt.NDArray[np.uint8]]
    mime: Optional[str]
    encoded: Optional[bytes]

class Model:
    anims: List[Model]
    format: str
    name: str
    path: Optional[str]
    data: bytes
    counts: Dict[str, int]
    info: Dict[str, Any]
    meshes: List[Mesh]
    frame_count: int
    frame_names: List[str]
    clips: List[str]
    skins: List[str]
    tag_names: List[str]
    tag_origins: npt.NDArray[np.float32]
    tag_axes: npt.NDArray[np.float32]
    joint_names: List[str]
    joint_parents: npt.NDArray[np.int32]
    poses: npt.NDArray[np.float32]
    frame_rate: Optional[float]
    bounds: npt.NDArray[np.float32]
    def check(self, engine: Optional[str] = None) -> List[Finding]: ...
    def materials(self, **options: Any) -> List[Material]: ...
    def to_glb(self, **options: Any) -> bytes: ...

class Player:
    path: str
    parts: Dict[str, Model]
    format: str
    info: Dict[str, Any]
    clips: List[str]
    skins: List[str]
    def check(self, engine: Optional[str] = None) -> Dict[str, List[Finding]]: ...
    def to_glb(self, **options: Any) -> bytes: ...

def load(source: Source, name: Optional[str] = None, anims: Sequence[Source] = ()) -> Union[Model, Player]: ...
def check(source: Source, engine: Optional[str] = None, name: Optional[str] = None) -> List[Finding]: ...
def convert(source: PathLike, output: PathLike, *, force: bool = False, **options: Any) -> Report: ...
def to_glb(source: Source, name: Optional[str] = None, **options: Any) -> bytes: ...
def write(output: PathLike, meshes: Sequence[Dict[str, Any]], frame_names: Optional[Sequence[str]] = None, *, force: bool = False, **options: Any) -> Report: ...
def write_mdl(output: PathLike, meshes: Sequence[Dict[str, Any]], frame_names: Optional[Sequence[str]] = None, **options: Any) -> Report: ...
def write_md2(output: PathLike, meshes: Sequence[Dict[str, Any]], frame_names: Optional[Sequence[str]] = None, **options: Any) -> Report: ...
def write_md3(output: PathLike, meshes: Sequence[Dict[str, Any]], frame_names: Optional[Sequence[str]] = None, **options: Any) -> Report: ...
def limits(engine: str) -> Dict[str, Optional[int]]: ...
def engines(format: str) -> List[str]: ...
