#!/usr/bin/env python3
"""Packages the Blender add-on with the `idmodel` wheel:

    python3 blender/build.py [--wheel idmodel-*.whl] [--out dist/blender]

writes two zips into --out (default: target/blender):

- `idmodel-VERSION-extension.zip`: the Blender 4.2+ extension (Edit ▸ Preferences ▸
  Get Extensions ▸ Install from Disk): the add-on's modules and `blender_manifest.toml`
  at the root, the wheel under `wheels/` (Blender installs it into its Python);
- `idmodel_blender-VERSION-addon.zip`: the plain add-on for Blender 3.4+ (Preferences ▸
  Add-ons ▸ Install): `idmodel_blender/` with the wheel unpacked into
  `idmodel_blender/vendor/`, which the add-on puts on `sys.path`. A wheel is a zip and
  this one (abi3, no scripts or data) installs by unpacking, so no pip is needed.

The wheel is --wheel, else the newest `idmodel-*.whl` in target/wheels/ or
/tmp/idmodel-wheel/. Its platform tag must match the Blender that installs it.
"""

import argparse
import glob
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PACKAGE = os.path.join(HERE, "idmodel_blender")
MODULES = ("__init__.py", "common.py", "import_op.py", "export_op.py", "limits_panel.py")

# Wheel platform tags → the extension manifest's platform names.
PLATFORMS = (
    (r"manylinux.*_x86_64|linux_x86_64", "linux-x64"),
    (r"manylinux.*_aarch64|linux_aarch64", "linux-arm64"),
    (r"macosx_.*_(x86_64|universal2)", "macos-x64"),
    (r"macosx_.*_(arm64|universal2)", "macos-arm64"),
    (r"win_amd64", "windows-x64"),
    (r"win_arm64", "windows-arm64"),
)


def find_wheel(given):
    if given:
        return os.path.abspath(given)
    found = []
    for pattern in (
        os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target")), "wheels", "idmodel-*.whl"),
        "/tmp/idmodel-wheel/idmodel-*.whl",
    ):
        found += glob.glob(pattern)
    if not found:
        sys.exit("build.py: no idmodel wheel: build one (maturin build --release -m python/Cargo.toml) or pass --wheel")
    return max(found, key=os.path.getmtime)


def wheel_facts(path):
    """(version, platforms) from a wheel's file name."""
    parts = os.path.basename(path)[: -len(".whl")].split("-")
    if len(parts) < 5 or parts[0] != "idmodel":
        sys.exit(f"build.py: {path}: not an idmodel wheel file name")
    version, platform = parts[1], parts[-1]
    platforms = sorted({name for pattern, name in PLATFORMS for tag in platform.split(".")
                        if re.fullmatch(pattern, tag)})
    if not platforms:
        sys.exit(f"build.py: {path}: unknown platform tag {platform}")
    return version, platforms


def manifest(version, wheel_name, platforms):
    """blender_manifest.toml with the version, wheel and platforms of this build."""
    with open(os.path.join(PACKAGE, "blender_manifest.toml"), encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', text)
    text = re.sub(r'(?m)^wheels = \[.*\]$', f'wheels = ["./wheels/{wheel_name}"]', text)
    text = re.sub(r'(?m)^platforms = \[.*\]$',
                  "platforms = [" + ", ".join(f'"{p}"' for p in platforms) + "]", text)
    return text


def write_zip(path, entries):
    """A zip of (name in the zip, bytes) entries, deflated, with fixed timestamps."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", help="the idmodel wheel to bundle")
    ap.add_argument("--out", default=os.path.join(REPO, "target", "blender"), help="output folder")
    args = ap.parse_args()
    wheel = find_wheel(args.wheel)
    version, platforms = wheel_facts(wheel)
    wheel_name = os.path.basename(wheel)
    os.makedirs(args.out, exist_ok=True)
    modules = [(m, read(os.path.join(PACKAGE, m))) for m in MODULES]

    extension = os.path.join(args.out, f"idmodel-{version}-extension.zip")
    write_zip(extension, modules + [
        ("blender_manifest.toml", manifest(version, wheel_name, platforms).encode("utf-8")),
        (f"wheels/{wheel_name}", read(wheel)),
    ])

    addon = os.path.join(args.out, f"idmodel_blender-{version}-addon.zip")
    with zipfile.ZipFile(wheel) as w:
        vendored = [(f"idmodel_blender/vendor/{n}", w.read(n)) for n in w.namelist() if not n.endswith("/")]
    write_zip(addon, [(f"idmodel_blender/{m}", data) for m, data in modules] + vendored)

    for p in (extension, addon):
        print(f"wrote {p} ({os.path.getsize(p) // 1024} KB)")


if __name__ == "__main__":
    main()
