#!/usr/bin/env python3
"""Facts the generated flag tables must show (run after `make flags`); exits 1 on a miss.

  --mamba-max-states-per-path: absent in sglang 0.5.16, present from 0.5.17 (currency-2026-12.md S3)
  --enable-gdn-replayssm-spec: a deprecated alias of --enable-linear-replayssm-spec on 0.5.18 (S8)
"""
from __future__ import annotations

import os
import sys

from packaging.version import Version

import common


def table(engine: str, version: str) -> dict[str, list[str]]:
    path = os.path.join(common.DATA, engine, f"flags-{version}.tsv")
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("flag\t"):
                continue
            cols = line.rstrip("\n").split("\t")
            rows[cols[0]] = cols
            for a in filter(None, cols[1].split("|")):
                rows.setdefault(a, cols)
    return rows


def main() -> int:
    bad = 0
    versions = [v for v in common.releases("sglang")
                if os.path.exists(os.path.join(common.DATA, "sglang", f"flags-{v}.tsv"))]
    flag = "--mamba-max-states-per-path"
    have = [v for v in versions if flag in table("sglang", v)]
    first = min(have, key=Version) if have else None
    ok = first == "0.5.17" and all(Version(v) >= Version("0.5.17") for v in have) and \
        all(v in have for v in versions if Version(v) >= Version("0.5.17"))
    print(f"{'ok' if ok else 'FAIL'}: {flag} first in sglang {first}; in {len(have)} of {len(versions)} tables")
    bad += not ok
    t = table("sglang", "0.5.18")
    row = t.get("--enable-gdn-replayssm-spec")
    ok = row is not None and "deprecated-alias-of:--enable-linear-replayssm-spec" in row[6].split()
    print(f"{'ok' if ok else 'FAIL'}: sglang 0.5.18 --enable-gdn-replayssm-spec note: {row[6] if row else 'absent'}")
    bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
