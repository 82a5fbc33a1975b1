#!/usr/bin/env python3
"""Which releases of an engine carry a piece of code: grep one or a few files of every release's
wheel without downloading it.

usage: wheel_grep.py sglang|vllm REGEX PATH [PATH ...] [--from A] [--to B] [--context N]
       (make wheel-grep ENGINE=vllm RE='is_integrated_gpu' FILES='utils/mem_utils.py utils.py')

PATHs are fnmatch patterns relative to the package (`utils/mem_utils.py`, `platforms/*.py`). Each
release's wheel is read with HTTP range requests (remotezip): its central directory, then only the
matching members, a few hundred kB of a 400 MB vLLM wheel. Prints, per release, either `-` (no
member matched the regex), `no file` (no member matched a PATH) or the matching lines as
`member:line: text`. Dating an engine rule is then reading down the column for the first release
that carries it; the tables in data/ that come from such a run name this command.
"""
from __future__ import annotations

import argparse
import fnmatch
import functools
import json
import re
import sys
import urllib.request

from remotezip import RemoteZip

import common


@functools.cache
def index_files(engine: str) -> list[dict]:
    """Every file PyPI's simple JSON index lists for the engine (read once per run)."""
    req = urllib.request.Request(f"https://pypi.org/simple/{engine}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)["files"]


def wheel_url(engine: str, version: str) -> str:
    """The x86_64 (or pure-Python) wheel of the release."""
    pref = f"{engine}-{version}-"
    names = [f for f in index_files(engine)
             if f["filename"].startswith(pref) and f["filename"].endswith(".whl")
             and ("x86_64" in f["filename"] or "none-any" in f["filename"])
             and not f.get("yanked")]
    if not names:
        raise RuntimeError(f"no wheel of {engine}=={version} on PyPI")
    return sorted(names, key=lambda f: f["filename"])[0]["url"]


def grep_release(engine: str, version: str, pattern: re.Pattern, paths: list[str],
                 context: int) -> list[str] | None:
    """Matching lines of the release's members; None when no member matches a PATH."""
    with RemoteZip(wheel_url(engine, version)) as z:
        members = [m for m in z.namelist()
                   if any(fnmatch.fnmatch(m, f"{engine}/{p}") for p in paths)]
        if not members:
            return None
        out = []
        for m in sorted(members):
            lines = z.read(m).decode(errors="replace").splitlines()
            for i, line in enumerate(lines):
                if pattern.search(line):
                    for j in range(max(0, i - context), min(len(lines), i + context + 1)):
                        out.append(f"{m}:{j + 1}:{'>' if j == i else ' '} {lines[j].rstrip()}")
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", choices=sorted(common.RANGES))
    ap.add_argument("regex")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--from", dest="lo")
    ap.add_argument("--to", dest="hi")
    ap.add_argument("--context", type=int, default=0)
    a = ap.parse_args()
    pattern = re.compile(a.regex)
    for version in common.releases(a.engine, a.lo, a.hi):
        try:
            found = grep_release(a.engine, version, pattern, a.paths, a.context)
        except Exception as e:  # one unreadable wheel is reported, the others still read
            print(f"{version}: error: {e}", flush=True)
            continue
        if found is None:
            print(f"{version}: no file", flush=True)
        elif not found:
            print(f"{version}: -", flush=True)
        else:
            print(f"{version}:", flush=True)
            for line in found:
                print(f"  {line}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
