"""Shared helpers of the engine-sync tools: release lists from PyPI's JSON API, wheel cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

from packaging.version import Version

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "data")
CACHE = os.environ.get("ENGINE_SYNC_CACHE", os.path.join(HERE, ".cache"))

# The release range each engine's tables cover (inclusive); the newest end moves with PyPI.
RANGES = {"sglang": ("0.4.0", None), "vllm": ("0.6.0", None)}


def pypi_json(engine: str) -> dict:
    """PyPI's JSON API document for `engine`, cached for a day under .cache/."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"pypi-{engine}.json")
    import time
    if not os.path.exists(path) or time.time() - os.path.getmtime(path) > 86400:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{engine}/json", timeout=120) as r:
            body = r.read()
        with open(path + ".tmp", "wb") as f:
            f.write(body)
        os.replace(path + ".tmp", path)
    with open(path) as f:
        return json.load(f)


def releases(engine: str, lo: str | None = None, hi: str | None = None) -> list[str]:
    """Final and post releases of `engine` on PyPI in [lo, hi] (no rc/dev), oldest first,
    skipping releases whose every file is yanked."""
    doc = pypi_json(engine)
    lo = lo or RANGES[engine][0]
    out = []
    for v, files in doc["releases"].items():
        pv = Version(v)
        if pv.is_prerelease or pv.is_devrelease or not files:
            continue
        if pv < Version(lo) or (hi and pv > Version(hi)):
            continue
        out.append(v)
    return sorted(out, key=Version)


def wheel_path(engine: str, version: str) -> str:
    """The release's wheel for this Python (cp311 x86_64 or py3-none-any), downloaded once with
    `pip download --no-deps` into .cache/wheels/ENGINE/."""
    d = os.path.join(CACHE, "wheels", engine)
    os.makedirs(d, exist_ok=True)
    pref = f"{engine}-{version}-"
    have = [f for f in os.listdir(d) if f.startswith(pref) and f.endswith(".whl")]
    if not have:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary=:all:", "--disable-pip-version-check", "-d", d,
                        f"{engine}=={version}"], check=True)
        have = [f for f in os.listdir(d) if f.startswith(pref) and f.endswith(".whl")]
    if not have:
        raise RuntimeError(f"no wheel of {engine}=={version} downloaded")
    return os.path.join(d, sorted(have)[0])


def overlay_sets(engine: str, skip_prefixes: tuple = ()) -> list[tuple[str, str]]:
    """(name, folder) of each package set in overlays-ENGINE.txt (setup_venv.sh installs each in
    .venv-ENGINE/overlays/NAME), in file order, leaving out names that start with skip_prefixes."""
    out = []
    for line in open(os.path.join(HERE, f"overlays-{engine}.txt")):
        w = line.split()
        if w and not w[0].startswith(("#",) + tuple(skip_prefixes)):
            out.append((w[0], os.path.join(HERE, f".venv-{engine}", "overlays", w[0])))
    return out


def write_jsonl(path: str, header: dict, rows: list[dict]) -> None:
    """An oracle file: the header line, then one compact line per row; written beside and
    renamed, so a run that dies leaves the previous file whole."""
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(header) + "\n")
        for r in rows:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    os.replace(path + ".tmp", path)
