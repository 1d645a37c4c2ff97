#!/usr/bin/env python3
"""Loading every frame of MDL and MD2 models into numpy: idmodel's Python package against
vgio (the pure-Python reader on PyPI), both in one run, medians of alternating runs.

    python benches/compare/python_vs_vgio.py [FILES...]   (default: the corpus's MDL and MD2)

Both sides open the file and build every frame's positions and normals as float32 numpy
arrays of shape (frames, vertices, 3); vgio's frames are scaled and offset as the header
says, normals looked up in its table, which is the least work vgio allows. Prints one line
per file and the geometric mean; exits 1 when any ratio is under the target (20x).
"""

import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import idmodel

TARGET = 20.0
RUNS = 7


def vgio_frames(path: Path):
    if path.suffix.lower() == ".mdl":
        from vgio import quake
        from vgio.quake import mdl

        with mdl.Mdl.open(str(path)) as m:
            scale, origin = np.asarray(m.scale, np.float32), np.asarray(m.origin, np.float32)
            table = np.asarray(quake.anorms, np.float32)
            frames = []
            for f in m.frames:
                subs = [f] if f.type == mdl.SINGLE else f.frames
                frames.extend(subs)
            pos = np.array([[(v.x, v.y, v.z) for v in f.vertexes] for f in frames], np.float32)
            idx = np.array([[v.light_normal_index for v in f.vertexes] for f in frames])
            return pos * scale + origin, table[np.minimum(idx, len(table) - 1)]
    from vgio import quake2
    from vgio.quake2 import md2

    with md2.Md2.open(str(path)) as m:
        table = np.asarray(quake2.anorms, np.float32)
        pos, nrm = [], []
        for f in m.frames:
            raw = np.array([(v.x, v.y, v.z) for v in f.vertexes], np.float32)
            pos.append(raw * np.asarray(f.scale, np.float32) + np.asarray(f.translate, np.float32))
            idx = np.array([v.light_normal_index for v in f.vertexes])
            nrm.append(table[np.minimum(idx, len(table) - 1)])
        return np.stack(pos), np.stack(nrm)


def idmodel_frames(path: Path):
    mesh = idmodel.load(path).meshes[0]
    return mesh.positions, mesh.normals


def timed(fn, path):
    t = time.perf_counter()
    out = fn(path)
    return time.perf_counter() - t, out


def main() -> int:
    files = [Path(a) for a in sys.argv[1:]]
    if not files:
        corpus = os.environ.get("IDMODEL_CORPUS")
        if not corpus:
            print("skipped: set IDMODEL_CORPUS or name the files")
            return 0
        files = sorted(Path(corpus, "mdl").glob("*.mdl")) + sorted(Path(corpus, "md2").glob("*.md2"))
    ratios = []
    totals = [0.0, 0.0]
    print(f"{'file':32} {'frames':>6} {'verts':>6} {'vgio ms':>9} {'idmodel ms':>11} {'ratio':>7}")
    for path in files:
        try:
            _, (vp, _) = timed(vgio_frames, path)
        except Exception as e:  # vgio refuses some files idmodel reads
            print(f"{path.name:32} vgio cannot read it ({type(e).__name__}); left out")
            continue
        ip, _ = idmodel_frames(path)
        if vp.shape != ip.shape or np.abs(vp - ip).max() > 1e-3:
            print(f"{path.name:32} the two readers disagree ({vp.shape} vs {ip.shape}); left out")
            continue
        v, i = [], []
        for _ in range(RUNS):
            v.append(timed(vgio_frames, path)[0])
            i.append(timed(idmodel_frames, path)[0])
        vm, im = statistics.median(v), statistics.median(i)
        ratios.append(vm / im)
        totals[0] += vm
        totals[1] += im
        print(f"{path.name:32} {ip.shape[0]:6} {ip.shape[1]:6} {vm*1e3:9.2f} {im*1e3:11.3f} {vm/im:7.1f}")
    if not ratios:
        print("no file both readers read")
        return 1
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    worst = min(ratios)
    ok = worst >= TARGET
    print(f"all {len(ratios)} files in one go: {totals[0] / totals[1]:.1f}x")
    print(f"files {len(ratios)}, geometric mean {geo:.1f}x, lowest {worst:.1f}x; target >= {TARGET:.0f}x on each: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
