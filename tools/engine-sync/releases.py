#!/usr/bin/env python3
"""Record release -> PyPI upload date for an engine, from PyPI's JSON API.

usage: releases.py sglang|vllm [--lo 0.4.0] [--hi X]
Writes data/ENGINE/pypi-releases.csv. The date of a release is the earliest upload time of its
files on PyPI (UTC); `files` counts them, `yanked` says whether every file is yanked.
(data/ENGINE/releases.csv, the hand-researched release -> main-branch date table, is not touched.)
"""
from __future__ import annotations

import argparse
import os

from packaging.version import Version

import common


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=sorted(common.RANGES))
    ap.add_argument("--lo")
    ap.add_argument("--hi")
    a = ap.parse_args()
    doc = common.pypi_json(a.engine)
    lo = a.lo or common.RANGES[a.engine][0]
    rows = []
    for v, files in doc["releases"].items():
        pv = Version(v)
        if not files or pv < Version(lo) or (a.hi and pv > Version(a.hi)):
            continue
        if pv.is_devrelease:
            continue
        first = min(f["upload_time_iso_8601"] for f in files)
        kind = "pre" if pv.is_prerelease else ("post" if pv.is_postrelease else "final")
        yanked = all(f.get("yanked") for f in files)
        rows.append((pv, v, first[:10], first, kind, len(files), "yes" if yanked else "no"))
    rows.sort()
    hi = a.hi or rows[-1][1]
    out = os.path.join(common.DATA, a.engine, "pypi-releases.csv")
    cmd = f"tools/engine-sync/releases.py {a.engine}" + (f" --lo {a.lo}" if a.lo else "") + \
        (f" --hi {a.hi}" if a.hi else "")
    with open(out, "w") as f:
        f.write(f"# {a.engine} releases {lo} … {hi} on PyPI and the date each was first uploaded (UTC), made by\n"
                f"# `{cmd}` from https://pypi.org/pypi/{a.engine}/json (earliest upload_time of the\n"
                f"# release's files). kind: final, post or pre (rc); yanked: every file yanked. The main-branch date a\n"
                f"# release was cut from is in releases.csv beside this file.\n")
        f.write("release,pypi_date,first_upload_utc,kind,files,yanked\n")
        for _, v, d, t, k, n, y in rows:
            f.write(f"{v},{d},{t},{k},{n},{y}\n")
    print(f"{out}: {len(rows)} releases")


if __name__ == "__main__":
    main()
