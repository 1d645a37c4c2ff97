#!/usr/bin/env python3
"""Compares id models with the same models after a trip through Blender's glTF importer
and exporter with their defaults (ci/blender.sh makes the files): the same frames, skins,
tags and bounds (within float error: a millionth of the model's size).

    ci/blender_compare.py BIN ORIGINAL BACK [ORIGINAL BACK ...]

A model in KNOWN must still differ (the test then says so); every other must match.
"""

import json
import subprocess
import sys

# What a trip with Blender's defaults cannot give back today, and why (none at present).
KNOWN = {}


def info(binary, path):
    r = subprocess.run([binary, "info", "--json", path], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"FAIL {path}: info: {r.stderr.strip()}")
    return json.loads(r.stdout)


def differences(a, b):
    out = []
    for key in ("frames", "skins", "tags", "tag_names", "skin_names"):
        if a.get(key) != b.get(key):
            out.append(f"{key} {a.get(key)} -> {b.get(key)}")
    ab, bb = a.get("bounds"), b.get("bounds")
    if ab and bb:
        size = max(1.0, *(abs(x) for k in ("min", "max") for x in ab[k]))
        worst = max(abs(x - y) for k in ("min", "max") for x, y in zip(ab[k], bb[k]))
        if worst > size * 1e-6:
            out.append(f"bounds moved by {worst:.3g} (size {size:.3g})")
    elif bool(ab) != bool(bb):
        out.append("bounds lost")
    return out


def main():
    binary, files = sys.argv[1], sys.argv[2:]
    bad = same = 0
    for original, back in zip(files[0::2], files[1::2]):
        name = original.rsplit("/", 1)[-1]
        diff = differences(info(binary, original), info(binary, back))
        if name in KNOWN:
            state = "still differs" if diff else "now matches: take it out of KNOWN"
            print(f"known {name} ({KNOWN[name]}): {state}: {'; '.join(diff)}")
            if not diff:
                bad += 1
        elif diff:
            bad += 1
            print(f"FAIL {name}: {'; '.join(diff)}")
        else:
            same += 1
    print(f"blender round trip: {same} of {len(files) // 2} models back with the same frames, skins, tags and bounds")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
