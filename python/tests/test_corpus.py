"""The package against the command on every corpus model: counts, arrays and findings
agree with `idmodel info --json` and `check --json`."""

import numpy as np
import pytest

import idmodel

from conftest import check_json, corpus_models, info_json


def test_corpus_is_not_empty(corpus):
    models = corpus_models(corpus)
    assert len(models) >= 40, f"only {len(models)} corpus models found under {corpus}"
    formats = {idmodel.load(p).format for p in models}
    assert {"mdl", "md2", "md3", "md5mesh", "md5anim"} <= formats


def test_counts_and_arrays_agree_with_info(corpus, idmodel_bin):
    checked = 0
    for path in corpus_models(corpus):
        m = idmodel.load(path)
        info = info_json(idmodel_bin, path)
        assert info["format"] == m.format, path
        c = m.counts
        for key in ("frames", "vertices", "triangles"):
            if key in info:
                assert c[key] == info[key], (path, key, c[key], info[key])
        if m.format in ("mdl", "md2", "md3"):
            assert m.info == info, path
            assert len(m.frame_names) == c["frames"], path
        if m.format in ("md5mesh", "md5anim", "md5camera"):
            continue
        total_v = total_t = 0
        for mesh in m.meshes:
            pos, nrm = mesh.positions, mesh.normals
            assert pos.dtype == np.float32 and pos.flags.c_contiguous
            assert pos.shape == (c["frames"], mesh.vertex_count, 3), path
            assert nrm.shape == pos.shape
            assert np.isfinite(pos).all(), path
            tris = mesh.triangles
            assert tris.dtype == np.uint32 and tris.shape == (mesh.triangle_count, 3)
            if mesh.vertex_count:
                assert int(tris.max(initial=0)) < mesh.vertex_count, path
            assert mesh.corner_uvs.shape == (mesh.triangle_count, 3, 2)
            total_v += mesh.vertex_count
            total_t += mesh.triangle_count
            # frame(i) is the same decode as the all-frames array.
            last = c["frames"] - 1
            p, n = mesh.frame(last)
            assert np.array_equal(p, pos[last]) and np.array_equal(n, nrm[last])
        assert (total_v, total_t) == (c["vertices"], c["triangles"]), path
        if m.format == "md3":
            assert m.tag_names == info.get("tag_names", m.tag_names)
            assert m.tag_origins.shape == (c["frames"] if c["tags"] else 0, c["tags"], 3)
            if c["tags"]:
                # Tag axes are rotations: rows of unit length.
                norms = np.linalg.norm(m.tag_axes, axis=-1)
                assert np.all(np.abs(norms - 1) < 0.02) or m.name.endswith("reactor.md3"), path
        checked += 1
    assert checked >= 30


def test_bounds_agree_with_info(corpus, idmodel_bin):
    for path in corpus_models(corpus):
        m = idmodel.load(path)
        if m.format not in ("mdl", "md2", "md3") or not m.counts["vertices"]:
            continue
        info = info_json(idmodel_bin, path)
        b = info.get("bounds")
        if not b:
            continue
        # info's bounds are frame 0's.
        allpos = np.concatenate([mesh.positions[0] for mesh in m.meshes])
        assert np.allclose(allpos.min(axis=0), b["min"], atol=1e-3), path
        assert np.allclose(allpos.max(axis=0), b["max"], atol=1e-3), path


def _key(f):
    return (f["severity"], f["code"], f["message"], tuple(f["engines"]))


@pytest.mark.parametrize("engine", [None, "specific"])
def test_findings_agree_with_check(corpus, idmodel_bin, engine):
    total = 0
    for path in corpus_models(corpus):
        m = idmodel.load(path)
        e = None
        if engine:
            e = idmodel.engines(m.format)[-1]
        ours = [(f.severity, f.code, f.message, tuple(f.engines)) for f in m.check(engine=e)]
        theirs = [_key(f) for f in check_json(idmodel_bin, path, e) if f["code"] != "unreadable"]
        assert ours == theirs, path
        assert ours == [
            (f.severity, f.code, f.message, tuple(f.engines)) for f in idmodel.check(path, engine=e)
        ]
        total += len(ours)
    assert total > 0, "no corpus model has a finding: the comparison proved nothing"


def test_player_folder(corpus, idmodel_bin):
    folders = [p.parent for p in corpus.rglob("animation.cfg") if (p.parent / "lower.md3").exists()]
    if not folders:
        pytest.skip("skipped: no Quake III player folder in the corpus")
    for folder in folders[:3]:
        player = idmodel.load(folder)
        assert isinstance(player, idmodel.Player)
        info = info_json(idmodel_bin, folder)
        assert player.info == info
        assert set(player.parts) == {"lower", "upper", "head"} & set(player.parts)
        assert player.clips == info["clips"] and player.clips
        for name, part in player.parts.items():
            assert part.counts["frames"] == info[name]["frames"]
        glb = player.to_glb()
        assert glb[:4] == b"glTF"


def test_md5_with_anims(corpus, idmodel_bin):
    mesh_path = corpus / "md5" / "Bob.md5mesh"
    anim_path = corpus / "md5" / "Bob.md5anim"
    if not (mesh_path.exists() and anim_path.exists()):
        pytest.skip("skipped: Bob.md5mesh/Bob.md5anim not in the corpus")
    m = idmodel.load(mesh_path, anims=[anim_path])
    a = m.anims[0]
    assert a.format == "md5anim"
    assert m.joint_names == a.joint_names and len(m.joint_names) == m.counts["joints"]
    assert m.joint_parents[0] == -1
    assert m.poses.shape == (1, m.counts["joints"], 3, 4)
    assert a.poses.shape == (a.counts["frames"], a.counts["joints"], 3, 4)
    assert a.bounds.shape == (a.counts["frames"], 2, 3)
    assert a.frame_rate and a.frame_rate > 0
    for mesh in m.meshes:
        assert mesh.positions.shape == (1, mesh.vertex_count, 3)
        assert mesh.uvs is not None and mesh.uvs.shape == (mesh.vertex_count, 2)
    # The bind pose skinned lies inside the mesh's bounds as info reports them.
    info = info_json(idmodel_bin, mesh_path)
    allpos = np.concatenate([x.positions[0] for x in m.meshes])
    assert np.allclose(allpos.min(axis=0), info["bounds"]["min"], atol=1e-3)
    # The GLB with the anim has an animation; without, none.
    with_anim = m.to_glb()
    assert b'"animations"' in with_anim[:200000]
    assert b'"animations"' not in idmodel.to_glb(mesh_path)[:200000]
