"""Conversions, the way back from arrays, errors and hostile input."""

import hashlib
import os
import random
from pathlib import Path

import numpy as np
import pytest

import idmodel

from conftest import corpus_models, run


def test_limits_and_engines():
    assert idmodel.limits("ioq3")["vertices"] == 999
    assert idmodel.limits("quake2")["vertices"] == 2048
    assert idmodel.limits("glquake")["vertices"] == 1024
    assert idmodel.limits("doom3")["vertices"] is None
    assert idmodel.engines("md3") == ["quake3", "ioq3"]
    assert "quakespasm" in idmodel.engines("mdl")
    with pytest.raises(idmodel.Error, match="unknown engine 'quake9'"):
        idmodel.limits("quake9")


def test_binary_error_has_an_offset(corpus):
    src = next(p for p in corpus_models(corpus) if p.suffix == ".md2")
    data = src.read_bytes()
    with pytest.raises(idmodel.Error) as e:
        idmodel.load(data[:100], name="cut.md2")
    assert str(e.value).startswith("cut.md2: ")
    assert "\n" not in str(e.value)
    assert isinstance(e.value.offset, int)
    assert e.value.kind == "refused"


def test_text_error_has_line_and_column():
    bad = b'MD5Version 10\ncommandline ""\nnumJoints 1\nnumMeshes 0\njoints {\n "a" -1 ( 0 0 0 ) ( 0 0 x )\n}\n'
    with pytest.raises(idmodel.Error) as e:
        idmodel.load(bad, name="bad.md5mesh")
    assert e.value.line == 6, str(e.value)
    assert isinstance(e.value.column, int) and e.value.column > 1
    assert isinstance(e.value.offset, int)


def test_unknown_option_is_refused(tmp_path):
    with pytest.raises(idmodel.Error, match="unknown option 'qantize'"):
        idmodel.convert("x.md3", tmp_path / "x.glb", qantize=True)


def test_hostile_input_raises_never_crashes(corpus):
    """Truncations and byte flips of real files: each load and each array either works or
    raises idmodel.Error. A crash would take the interpreter (and this test) down."""
    rng = random.Random(7)
    files = [p for p in corpus_models(corpus) if p.stat().st_size < 200_000]
    files += sorted((corpus / "malformed").rglob("*.*"))
    raised = loaded = 0
    for path in files[::3]:
        data = path.read_bytes()
        variants = [data[: len(data) * k // 8] for k in range(8)]
        for _ in range(6):
            b = bytearray(data)
            for _ in range(4):
                if b:
                    b[rng.randrange(len(b))] = rng.randrange(256)
            variants.append(bytes(b))
        for v in variants:
            try:
                m = idmodel.load(v, name=path.name)
                for mesh in m.meshes:
                    mesh.positions, mesh.triangles, mesh.corner_uvs
                m.check()
                loaded += 1
            except idmodel.Error as e:
                assert "\n" not in str(e)
                raised += 1
    assert raised > 50 and loaded > 10, (raised, loaded)


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_convert_writes_what_the_command_writes(corpus, idmodel_bin, tmp_path):
    picks = {}
    for p in corpus_models(corpus):
        picks.setdefault(p.suffix.lower(), p)
    picks.pop(".md5anim", None)
    picks.pop(".md5camera", None)
    assert len(picks) == 4
    for ext, src in picks.items():
        ours = tmp_path / f"ours{ext}.glb"
        theirs = tmp_path / f"theirs{ext}.glb"
        report = idmodel.convert(src, ours)
        assert [Path(f) for f in report.files] == [ours]
        r = run(idmodel_bin, "convert", str(src), "-o", str(theirs))
        assert r.returncode == 0, r.stderr
        assert sha(ours) == sha(theirs), src
        assert idmodel.to_glb(src) == ours.read_bytes()
        assert idmodel.load(src).to_glb() == ours.read_bytes()
        # Quantized: also the command's bytes.
        q1, q2 = tmp_path / "q1.glb", tmp_path / "q2.glb"
        idmodel.convert(src, q1, quantize=True, force=True)
        run(idmodel_bin, "convert", str(src), "-o", str(q2), "--quantize")
        assert sha(q1) == sha(q2), src


def test_convert_never_overwrites_its_input(corpus, tmp_path):
    src = next(p for p in corpus_models(corpus) if p.suffix == ".md3")
    copy = tmp_path / "m.md3"
    copy.write_bytes(src.read_bytes())
    before = sha(copy)
    with pytest.raises(idmodel.Error):
        idmodel.convert(copy, copy)
    assert sha(copy) == before


def test_round_trip_through_glb_is_byte_identical(corpus, tmp_path):
    for ext in (".md3", ".md2", ".mdl"):
        src = next(
            p
            for p in corpus_models(corpus)
            if p.suffix == ext and not [f for f in idmodel.check(p) if f.severity == "refused"]
        )
        glb = tmp_path / f"a{ext}.glb"
        back = tmp_path / f"back{ext}"
        idmodel.convert(src, glb)
        idmodel.convert(glb, back)
        assert back.read_bytes() == src.read_bytes(), src


def _arrays(model):
    return [
        {
            "name": mesh.name or "mesh",
            "positions": mesh.positions,
            "normals": mesh.normals,
            "triangles": mesh.triangles,
            "uvs": mesh.uvs,
        }
        for mesh in model.meshes
    ]


def test_write_md3_from_arrays(corpus, tmp_path):
    src = next(
        p
        for p in corpus_models(corpus)
        if p.suffix == ".md3" and idmodel.load(p).counts["frames"] > 1 and idmodel.load(p).counts["vertices"]
    )
    m = idmodel.load(src)
    out = tmp_path / "w.md3"
    report = idmodel.write_md3(out, _arrays(m), m.frame_names, engine="ioq3", fit=True)
    assert Path(report.files[0]) == out
    back = idmodel.load(out)
    assert back.counts["frames"] == m.counts["frames"]
    assert back.counts["triangles"] == m.counts["triangles"]
    assert not [f for f in back.check("ioq3") if f.severity == "refused"]
    # Every position comes back on MD3's 1/64 grid, within half a step.
    a = np.concatenate([x.positions.reshape(-1, 3) for x in m.meshes])
    b = np.concatenate([x.positions.reshape(-1, 3) for x in back.meshes])
    assert a.shape == b.shape
    assert np.abs(np.sort(a, axis=0) - np.sort(b, axis=0)).max() <= 1 / 128 + 1e-6


def test_write_refuses_over_the_limit_and_fits(tmp_path):
    # A grid of 60 x 60 vertices: 3,600, over Quake II's 2,048.
    n = 60
    xs, ys = np.meshgrid(np.arange(n, dtype=np.float32), np.arange(n, dtype=np.float32))
    pos = np.stack([xs.ravel(), ys.ravel(), np.zeros(n * n, np.float32)], axis=1)
    q = np.arange(n * n).reshape(n, n)
    a, b, c, d = q[:-1, :-1].ravel(), q[:-1, 1:].ravel(), q[1:, :-1].ravel(), q[1:, 1:].ravel()
    tris = np.concatenate([np.stack([a, c, b], 1), np.stack([b, c, d], 1)])
    uvs = pos[:, :2] / (n - 1)
    mesh = {"name": "grid", "positions": pos, "triangles": tris, "uvs": uvs}
    out = tmp_path / "grid.md2"
    with pytest.raises(idmodel.Error) as e:
        idmodel.write_md2(out, [mesh], engine="quake2")
    assert "2048" in str(e.value) or "2,048" in str(e.value), str(e.value)
    assert not out.exists()
    idmodel.write_md2(out, [mesh], engine="quake2", fit=True)
    assert out.exists()
    assert not [f for f in idmodel.check(out, "quake2") if f.severity == "refused"]


def test_write_checks_shapes(tmp_path):
    with pytest.raises(idmodel.Error, match="triangle index 5 is past its 3 vertices"):
        idmodel.write(tmp_path / "x.md3", [{"name": "m", "positions": np.zeros((1, 3, 3)), "triangles": [[0, 1, 5]]}])
    with pytest.raises(idmodel.Error, match="positions must be"):
        idmodel.write(tmp_path / "x.md3", [{"name": "m", "positions": np.zeros((3, 2)), "triangles": [[0, 1, 2]]}])
    with pytest.raises(ValueError):
        idmodel.write_md2(tmp_path / "x.md3", [])
    # Nothing is written from a position that is not a number.
    nan = np.zeros((1, 3, 3), np.float32)
    nan[0, 1, 0], nan[0, 2, 1], nan[0, 2, 2] = 8, 8, np.nan
    for ext in ("md2", "mdl", "md3"):
        out = tmp_path / f"nan.{ext}"
        with pytest.raises(idmodel.Error, match="non-finite"):
            idmodel.write(out, [{"name": "m", "positions": nan, "triangles": [[0, 1, 2]]}])
        assert not out.exists()


def test_materials_have_pixels(corpus):
    src = next(p for p in corpus_models(corpus) if p.suffix == ".mdl")
    mats = idmodel.load(src).materials()
    assert mats and mats[0].pixels is not None
    h, w, four = mats[0].pixels.shape
    assert four == 4 and h > 0 and w > 0


def test_write_without_normals_gets_smooth_normals(tmp_path):
    # An octahedron without normals: each vertex's written normal follows its position
    # (the smooth normal of the triangles around it), not one direction for all.
    pos = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float32) * 8
    tris = [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
    out = tmp_path / "octa.md2"
    idmodel.write_md2(out, [{"name": "o", "positions": pos, "triangles": tris}], unchecked=True)
    mesh = idmodel.load(out).meshes[0]
    p, n = mesh.frame(0)
    unit = p / np.linalg.norm(p, axis=1, keepdims=True)
    assert np.all(np.abs(np.sum(unit * n, axis=1)) > 0.9), n
    assert len({tuple(np.round(x, 2)) for x in n}) == 6
