"""Shared fixtures: the corpus (IDMODEL_CORPUS) and the command (IDMODEL_BIN) the
package is compared with."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REQUIRE = os.environ.get("IDMODEL_REQUIRE_CORPUS") == "1"


def _missing(what: str):
    # CI sets IDMODEL_REQUIRE_CORPUS=1: a test that would skip fails there instead.
    if REQUIRE:
        pytest.fail(f"{what} is required (IDMODEL_REQUIRE_CORPUS=1)")
    pytest.skip(f"skipped: {what}")


@pytest.fixture(scope="session")
def corpus() -> Path:
    c = os.environ.get("IDMODEL_CORPUS")
    if not c or not Path(c).is_dir():
        _missing("the corpus (set IDMODEL_CORPUS)")
    return Path(c)


@pytest.fixture(scope="session")
def idmodel_bin() -> Path:
    b = os.environ.get("IDMODEL_BIN")
    candidates = [Path(b)] if b else []
    candidates += [REPO / "target" / "release" / "idmodel", REPO / "target" / "debug" / "idmodel"]
    found = shutil.which("idmodel")
    if found:
        candidates.append(Path(found))
    for c in candidates:
        if c.is_file():
            return c
    _missing("the idmodel command (set IDMODEL_BIN or build it with cargo build -p idmodel-cli)")


def run(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=False, check=False)


def info_json(binary: Path, path: Path) -> dict:
    r = run(binary, "info", "--json", str(path))
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


def check_json(binary: Path, path: Path, engine=None) -> list:
    args = ["check", "--json"]
    if engine:
        args += ["--engine", engine]
    r = run(binary, *args, str(path))
    lines = [json.loads(x) for x in r.stdout.decode().splitlines() if x.strip()]
    return lines


MODEL_EXTS = (".mdl", ".md2", ".md3", ".md5mesh", ".md5anim", ".md5camera")


def corpus_models(corpus: Path):
    """Every model file of the corpus's format folders (not the malformed ones)."""
    out = []
    for sub in ("mdl", "md2", "md3", "md5"):
        d = corpus / sub
        if d.is_dir():
            out += sorted(p for p in d.rglob("*") if p.suffix.lower() in MODEL_EXTS and p.is_file())
    return out
