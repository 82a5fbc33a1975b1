#!/usr/bin/env python3
"""Release day as one command: cover a new SGLang or vLLM release from PyPI alone.

usage: engine_release.py sglang|vllm VERSION [--cases N] [--jobs J] [--build DIR]
                         [--no-oracle] [--dry-run]
       (make engine-release ENGINE=vllm VERSION=0.35.0)

Steps, each printed with its time:
  1. the release and its first upload date (releases.py -> data/ENGINE/pypi-releases.csv);
  2. its branch cut in data/ENGINE/releases.csv, if absent: the upload date less the engine's
     usual gap between cut and upload (SGLang 4 days, vLLM 6), marked approximate;
  3. its flag table (flags.py -> data/ENGINE/flags-VERSION.tsv);
  4. its model registry (registry.py -> data/ENGINE/architectures.tsv; for SGLang also its
     hybrid-SWA allowlist, sglang_hybrid_swa.py -> data/sglang/hybrid-swa-architectures.tsv);
  5. the capacity-relevant source against the previous release (engine_diff.py's files, plus
     any module those files newly import), written to .cache/release/ENGINE-VERSION/ to review;
  6. the oracle: the release's own code on CPU over the standard scenario set
     (oracle.py / vllm_oracle.py -> tests/oracle/ENGINE-VERSION.jsonl; for vLLM also the
     speculative drafters, vllm_drafters.py -> tests/oracle/drafters/vllm-VERSION.jsonl);
  7. the agreement of the current rules with it (build/oracle_tests);
  8. what is left for a person: each oracle figure that disagrees, as a row of
     data/ENGINE/unmodelled-changes.csv (appended unless --dry-run), so plans on the release warn
     with exactly that list until its change points are written.
Nothing of the engine is committed: wheels, venvs and the diff stay under .cache/ and .venv-*/.
"""
from __future__ import annotations

import argparse
import ast
import csv
import datetime as dt
import fnmatch
import os
import re
import subprocess
import sys
import time

import common
import engine_diff

HERE = common.HERE
ROOT = common.ROOT
PY = sys.executable
# Days between a release's branch cut and its PyPI upload, as dated for earlier releases
# (data/ENGINE/releases.csv: "PyPI upload less N days (as 0.5.19 / 0.21.0)").
CUT_GAP_DAYS = {"sglang": 4, "vllm": 6}
CUT_GAP_AS = {"sglang": "0.5.19", "vllm": "0.21.0"}
ORACLE = {"sglang": ("oracle.py", "SglangOracle.*"),
          "vllm": ("vllm_oracle.py", "VllmOracle.*:VllmDrafters.*")}
# vLLM: the target and its speculative drafters built by the release's own model code too
# (vllm_drafters.py -> tests/oracle/drafters/vllm-VERSION.jsonl).
DRAFTERS = {"vllm": "vllm_drafters.py"}


class Step:
    def __init__(self, n: int, what: str):
        self.n, self.what, self.t0 = n, what, time.monotonic()
        print(f"\n== {n}. {what}", flush=True)

    def done(self, summary: str) -> None:
        print(f"   {summary}  [{time.monotonic() - self.t0:.0f} s]", flush=True)


def run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    print("   $ " + " ".join(argv), flush=True)
    return subprocess.run(argv, cwd=HERE, **kw)


def upload_date(engine: str, version: str) -> str:
    with open(os.path.join(common.DATA, engine, "pypi-releases.csv")) as f:
        for row in csv.reader(line for line in f if not line.startswith("#")):
            if row and row[0] == version:
                return row[1]
    raise SystemExit(f"engine_release: {engine} {version} is not on PyPI "
                     f"(data/{engine}/pypi-releases.csv); check the version")


def previous_release(engine: str, version: str) -> str:
    from packaging.version import Version
    finals = [r for r in common.releases(engine) if Version(r).post is None
              and Version(r) < Version(version)]
    if not finals:
        raise SystemExit(f"engine_release: no {engine} release before {version}")
    return finals[-1]


def record_cut(engine: str, version: str, uploaded: str, dry_run: bool) -> str:
    path = os.path.join(common.DATA, engine, "releases.csv")
    with open(path) as f:
        text = f.read()
    for row in csv.reader(text.splitlines()):
        if row and row[0] == version:
            return f"already dated: main {row[1]} ({row[2] if len(row) > 2 else ''})"
    cut = (dt.date.fromisoformat(uploaded) - dt.timedelta(days=CUT_GAP_DAYS[engine])).isoformat()
    note = (f"approximate: PyPI upload {uploaded} less {CUT_GAP_DAYS[engine]} days "
            f"(as {CUT_GAP_AS[engine]})")
    header = next(csv.reader(text.splitlines()))
    row = [version, cut, note] + [""] * (len(header) - 3)
    if engine == "sglang":  # release,date,confidence,cherry_picks,notes
        row = [version, cut, note, "", f"As {CUT_GAP_AS[engine]}."]
    if not dry_run:
        with open(path, "a", newline="") as f:
            csv.writer(f, lineterminator="\n").writerow(row)
    return f"{'would add' if dry_run else 'added'}: main {cut} ({note})"


def imported_modules(engine: str, version: str, files: list[str]) -> set[str]:
    """The engine's own modules the given members import, as member paths."""
    z, names = engine_diff.members(engine, version)
    out = set()
    for p in files:
        if p not in names:
            continue
        try:
            tree = ast.parse(z.read(names[p]).decode("utf-8", "replace"))
        except SyntaxError:
            continue
        for n in ast.walk(tree):
            mods = []
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                mods = [n.module]
            elif isinstance(n, ast.Import):
                mods = [a.name for a in n.names]
            for m in mods:
                if m.startswith(engine + "."):
                    rel = m[len(engine) + 1:].replace(".", "/")
                    for cand in (rel + ".py", rel + "/__init__.py"):
                        if cand in names:
                            out.add(cand)
    return out


def review_diff(engine: str, prev: str, version: str, out_dir: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    stat = run([PY, "engine_diff.py", engine, prev, version, "--stat"], capture_output=True,
               text=True, check=True).stdout
    full = run([PY, "engine_diff.py", engine, prev, version], capture_output=True, text=True,
               check=True).stdout
    logs = run([PY, "engine_diff.py", engine, prev, version, "--logs"], capture_output=True,
               text=True, check=True).stdout
    pats = engine_diff.PATTERNS[engine]
    _, mb = engine_diff.members(engine, version)
    _, ma = engine_diff.members(engine, prev)
    mirrored_b = sorted(p for p in mb if any(fnmatch.fnmatch(p, pat) for pat in pats))
    mirrored_a = sorted(p for p in ma if any(fnmatch.fnmatch(p, pat) for pat in pats))
    new_imports = sorted(imported_modules(engine, version, mirrored_b)
                         - imported_modules(engine, prev, mirrored_a) - set(mirrored_b))
    extra = ""
    if new_imports:
        extra = run([PY, "engine_diff.py", engine, prev, version, *new_imports],
                    capture_output=True, text=True, check=True).stdout
    for name, body in (("stat.txt", stat), ("capacity.diff", full), ("log-lines.diff", logs),
                       ("new-imports.diff", extra)):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(body)
    with open(os.path.join(out_dir, "new-imports.txt"), "w") as f:
        f.write("".join(m + "\n" for m in new_imports))
    changed = [line for line in stat.splitlines() if line.strip()]
    print("".join(f"     {line}\n" for line in changed[:40]), end="")
    return (f"{len(changed)} changed file line(s) in the mirrored set; {len(new_imports)} module(s) "
            f"newly imported by it{': ' + ', '.join(new_imports) if new_imports else ''}; "
            f"review {os.path.relpath(out_dir, ROOT)}/")


AGREE = re.compile(r"^(sglang|vllm)(?: drafters)? (\S+): (\d+) / (\d+) figures agree")
FIGURE = re.compile(r"^\s+(\S+)\s+(\d+) /\s+(\d+)\s+([\d.]+)%(?:\s+\((\d+) named gaps\))?")


def agreement(engine: str, version: str, build: str) -> tuple[str, list[tuple[str, int, int]]]:
    subprocess.run(["cmake", "--build", build, "--target", "oracle_tests", "-j2"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    out = subprocess.run([os.path.join(build, "oracle_tests"),
                          f"--gtest_filter={ORACLE[engine][1]}"], cwd=ROOT, env=env,
                         capture_output=True, text=True).stdout
    # Each test prints a block per release: "ENGINE VERSION: a / b figures agree (p%), g named
    # gaps", then one line per figure. A figure is left for a person when cases disagree that no
    # named gap (tests/oracle/known-gaps.tsv, written by a person) explains.
    headlines, short, inside = [], [], False
    for line in out.splitlines():
        m = AGREE.match(line)
        if m:
            inside = m.group(1) == engine and m.group(2) == version
            if inside:
                headlines.append(line.strip())
            continue
        f = FIGURE.match(line)
        if inside and f:
            agree, total, gaps = int(f.group(2)), int(f.group(3)), int(f.group(5) or 0)
            if agree + gaps < total:
                short.append((f.group(1), agree + gaps, total))
        elif inside and line.strip() and not line.startswith(" "):
            inside = False
    headline = "; ".join(headlines)
    return headline or f"{engine} {version}: no agreement line (see {build}/oracle_tests)", short


def record_left(engine: str, version: str, short: list[tuple[str, int, int]],
                dry_run: bool) -> list[list[str]]:
    path = os.path.join(common.DATA, engine, "unmodelled-changes.csv")
    with open(path) as f:
        have = {(r[0], r[1]) for r in csv.reader(f) if len(r) >= 2}
    rows = []
    for figure, agree, total in short:
        change = (f"{figure}: {total - agree} of {total} oracle cases differ from the release's "
                  f"own code")
        if (version, change) not in have:
            rows.append([version, change, f"tests/oracle/{engine}-{version}.jsonl"])
    if rows and not dry_run:
        with open(path, "a", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=sorted(ORACLE))
    ap.add_argument("version")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--dry-run", action="store_true",
                    help="write no row to releases.csv or unmodelled-changes.csv")
    o = ap.parse_args()
    e, v = o.engine, o.version
    t0 = time.monotonic()
    print(f"engine-release {e} {v} (cache {common.CACHE})")

    s = Step(1, "the release on PyPI")
    run([PY, "releases.py", e], check=True)
    uploaded = upload_date(e, v)
    prev = previous_release(e, v)
    s.done(f"{e} {v} first uploaded {uploaded}; the previous release is {prev}")

    s = Step(2, "its branch cut")
    s.done(record_cut(e, v, uploaded, o.dry_run))

    s = Step(3, "its flag table")
    if e == "sglang":
        run([os.path.join(HERE, "setup_venv.sh"), e], check=True)
    run([PY, "flags.py", e, v], check=True)
    s.done(f"data/{e}/flags-{v}.tsv")

    s = Step(4, "its model registry")
    wheels_py = os.path.join(HERE, ".venv-wheels", "bin", "python")
    run([wheels_py if os.path.exists(wheels_py) else PY, "registry.py", e, "--add", v], check=True)
    if e == "sglang":  # every release from 0.5.8 again: cached per release, so only v is read
        run([wheels_py if os.path.exists(wheels_py) else PY, "sglang_hybrid_swa.py"], check=True)
    s.done(f"data/{e}/architectures.tsv")

    s = Step(5, f"the capacity-relevant source, {prev} → {v}")
    s.done(review_diff(e, prev, v, os.path.join(common.CACHE, "release", f"{e}-{v}")))

    left: list[list[str]] = []
    if not o.no_oracle:
        s = Step(6, "the oracle: the release's own code on this CPU")
        run([os.path.join(HERE, "setup_venv.sh"), e], check=True)
        run([PY, ORACLE[e][0], v, "--cases", str(o.cases), "--jobs", str(o.jobs)], check=True)
        made = [f"tests/oracle/{e}-{v}.jsonl"]
        if e in DRAFTERS:
            run([PY, DRAFTERS[e], v, "--jobs", str(o.jobs)], check=True)
            made.append(f"tests/oracle/drafters/{e}-{v}.jsonl")
        s.done(", ".join(made))

        s = Step(7, "the current rules against it")
        headline, short = agreement(e, v, o.build)
        for figure, agree, total in short:
            print(f"     {figure}: {agree} / {total}")
        s.done(headline)

        s = Step(8, "left for a person")
        left = record_left(e, v, short, o.dry_run)
        for row in left:
            print(f"     {','.join(row)}")
        s.done(f"{len(left)} change(s) no change point covers"
               + ("" if not left else f" ({'not written: --dry-run' if o.dry_run else f'appended to data/{e}/unmodelled-changes.csv'})"))
    print(f"\nengine-release {e} {v}: done in {time.monotonic() - t0:.0f} s; "
          f"{'nothing left to model' if not left else f'{len(left)} change(s) left to model'}. "
          f"`git status` shows the data it wrote.")


if __name__ == "__main__":
    main()
