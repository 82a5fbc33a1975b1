#!/usr/bin/env python3
"""Generate per-release flag tables of an engine from its PyPI wheels.

usage: flags.py sglang|vllm [VERSION ...] [--method auto|import|ast] [--reuse]
With no VERSION: every final and post release in the engine's range (common.RANGES) on PyPI.

For each release: `pip download --no-deps ENGINE==VERSION` (cached under .cache/wheels/), unpack
the package into a temporary directory, and read the server CLI
  - by import (auto, import): the release's own argument parser, run in the project-local venv
    .venv-ENGINE (setup_venv.sh) with the unpacked tree first on sys.path (sglang_dump.py /
    vllm_dump.py);
  - by ast (auto fallback, ast): the add_argument calls of the release's source (ast_reader.py).
Writes data/ENGINE/flags-VERSION.tsv (sorted by flag) and data/ENGINE/flags-SOURCES.md (release,
method, number of flags, why import failed). Deterministic: the same wheels give the same files.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from packaging.version import Version

import common

ARITY0 = ("StoreTrue", "StoreFalse", "StoreConst", "BooleanOptional", "Count", "AppendConst")
FLAG_RE = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*[a-z0-9])")


# ---------------------------------------------------------------- reading one release
def unpack(wheel: str, dest: str, top: str, only: list[str] | None = None) -> None:
    """Unpack the wheel's `top/` package (or only the listed members, if given) into dest."""
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if not name.startswith(top + "/"):
                continue
            if only is not None and name not in only:
                continue
            z.extract(name, dest)


def overlays(engine: str) -> list[tuple[str, str]]:
    """(name, dir) of the venv's alternative package sets (overlays-ENGINE.txt), in order."""
    path = os.path.join(common.HERE, f"overlays-{engine}.txt")
    out = []
    if os.path.exists(path):
        for line in open(path):
            w = line.split()
            if w and not w[0].startswith("#"):
                out.append((w[0], os.path.join(common.HERE, f".venv-{engine}", "overlays", w[0])))
    return out


_LAST_OK: dict[str, str] = {}
DEFAULT_METHOD = {"sglang": "auto", "vllm": "ast"}
# Post releases older than this are read with ast by default: on every sglang final 0.4.0 … 0.5.9
# the ast table equals the import table (names, aliases, dest, arity, type, default) but for a
# function repr; from 0.5.10 choices come from imported constants and, from 0.5.14, most flags
# from dataclass metadata the ast reader does not follow, so later post releases are imported.
AST_EXACT_BELOW = {"sglang": "0.5.10"}
NO_IMPORT = {"vllm": "import not attempted: the CUDA wheel imports native ops and a per-release dependency "
                     "set (no venv for it yet; see tools/engine-sync/README.md)"}


def read_by_import(engine: str, version: str, wheel: str, log: list[str]):
    """The release's own parser, in the venv; then with each overlay until one imports.
    Returns (actions, overlay name or '')."""
    py = os.path.join(common.HERE, f".venv-{engine}", "bin", "python")
    if not os.path.exists(py):
        raise RuntimeError(f"no venv: run tools/engine-sync/setup_venv.sh {engine}")
    tmp = tempfile.mkdtemp(prefix=f"es-{engine}-{version}-")
    errors = []
    try:
        unpack(wheel, tmp, engine)
        out = os.path.join(tmp, "actions.json")
        tries = [("", "")] + overlays(engine)
        # releases come oldest first: try the package set that imported the previous one first
        tries.sort(key=lambda t: t[0] != _LAST_OK.get(engine, ""))
        for name, odir in tries:
            args = [py, os.path.join(common.HERE, f"{engine}_dump.py"), tmp, out]
            args += [triton_stub() if engine == "sglang" else "", odir]
            env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1",
                       TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore")
            env.pop("PYTHONPATH", None)
            p = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env, cwd=tmp)
            if p.returncode == 0 and os.path.exists(out):
                _LAST_OK[engine] = name
                with open(out) as f:
                    return json.load(f)["actions"], name
            err = [l for l in p.stderr.strip().splitlines() if l.strip()]
            errors.append((name or "venv") + ": " + (err[-1] if err else f"exit {p.returncode}")[:200])
        raise RuntimeError("; ".join(errors))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_STUB = None


def triton_stub() -> str:
    """0.5.23's sglang/_platform_stubs.py, for releases whose own triton stub is missing or too
    old for torch 2.13 (see ../../docs/research/oracle-sglang-verified.md)."""
    global _STUB
    if _STUB is None:
        d = os.path.join(common.CACHE, "stub-0.5.23")
        path = os.path.join(d, "sglang", "_platform_stubs.py")
        if not os.path.exists(path):
            unpack(common.wheel_path("sglang", "0.5.23"), d, "sglang", ["sglang/_platform_stubs.py"])
        _STUB = path
    return _STUB


def read_by_ast(engine: str, version: str, wheel: str, log: list[str]):
    import ast_reader
    if engine == "sglang":
        with zipfile.ZipFile(wheel) as z:
            src = z.read("sglang/srt/server_args.py").decode()
        rows = ast_reader.read_actions(src, "ServerArgs", "add_cli_args")
        fix_custom_arity(src, rows)
        return rows
    import vllm_ast
    return vllm_ast.read(wheel)


def fix_custom_arity(src: str, rows: list[dict]) -> None:
    """A custom Action class defined in the file: take its __init__'s nargs default and its
    base classes (so DeprecatedAction(nargs=0) reads as a flag without a value)."""
    import ast
    tree = ast.parse(src)
    classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
    for r in rows:
        c = classes.get(r["action"])
        if c is None:
            continue
        r["mro"] = [r["action"]] + [ast.unparse(b).split(".")[-1] for b in c.bases]
        init = next((f for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
        if init is None or r["nargs"] is not None:
            continue
        names = [a.arg for a in init.args.args]
        defaults = dict(zip(names[len(names) - len(init.args.defaults):], init.args.defaults))
        for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults):
            if d is not None:
                defaults[a.arg] = d
        if "nargs" in defaults:
            r["nargs"] = ast_reader_literal(defaults["nargs"])


def ast_reader_literal(node):
    import ast_reader
    return ast_reader.literal(node)


# ---------------------------------------------------------------- the table
def arity(r: dict) -> str:
    mro = " ".join(r.get("mro") or [r["action"]])
    n = r["nargs"]
    if n is None:
        return "0" if any(k in mro for k in ARITY0) else "1"
    if n in ("+", "*", "?"):
        return n
    if n == "...":
        return "*"
    if isinstance(n, int):
        return "0" if n == 0 else ("1" if n == 1 else "+")
    return "1"


VLLM_DEPRECATED = re.compile(r"^\W*deprecated\b|\bis deprecated\b|\bdeprecated (and|in favou?r|since|alias|"
                             r"in v?\d)|\bwill be removed in\b|\bdeprecated[.:;]")


def is_deprecated(r: dict, engine: str = "sglang") -> bool:
    """The parser's mark (a Deprecated* action class, argparse's deprecated=True), or the help
    text: SGLang's "[Deprecated] ..." within its first 40 characters; vLLM's help and field
    docs say "deprecated" of other things too, so only a deprecation sentence counts there."""
    mro = " ".join(r.get("mro") or [r["action"]])
    if "Deprecated" in mro or r.get("deprecated"):
        return True
    h = (r.get("help") or "").strip().lower()
    if engine == "vllm":
        return bool(VLLM_DEPRECATED.search(h))
    return (h.startswith("deprecated") or h.startswith("[deprecated")
            or h.startswith("(deprecated") or "deprecated" in h[:40])


def annotation_text(s: str) -> str:
    """`A[bool, "help", NS(...)]` / `Annotated[int, ...]` (0.5.17+ field metadata) -> `bool`."""
    import ast
    if not s or not re.match(r"(typing\.)?(A|Annotated)\[", s):
        return s
    try:
        node = ast.parse(s, mode="eval").body
    except SyntaxError:
        return s
    if isinstance(node, ast.Subscript):
        sl = node.slice
        first = sl.elts[0] if isinstance(sl, ast.Tuple) else sl
        return annotation_text(ast.unparse(first))
    return s


def clean(s: str) -> str:
    s = re.sub(r"<(function|class|built-in function) ([\w.]+)( at 0x[0-9a-f]+)?>", r"\2", str(s))
    s = re.sub(r" (object )?at 0x[0-9a-f]+", "", s)  # reprs with addresses are not deterministic
    return re.sub(r"\s+", " ", s).replace("\t", " ").strip()


def deprecation_notes(e: dict, live: dict, by_dest: dict) -> list[str]:
    """deprecated-alias-of:--new when the parser marks the spelling as an alias of a live flag
    (SGLang's DeprecatedAliasStoreAction(new_flag=...), or a deprecated spelling storing the same
    dest with the same arity as a live flag); otherwise deprecated, plus use:--new[=value] when
    the action's new_flag or its help names the replacement."""
    r = e["r"]
    mro = " ".join(r.get("mro") or [r["action"]])
    new_flag = (r.get("extra") or {}).get("new_flag")
    help_text = r.get("help") or ""
    if isinstance(new_flag, str) and new_flag.strip().startswith("--"):
        words = new_flag.split()
        flag, value = words[0], " ".join(words[1:])
        tgt = live.get(flag)
        if tgt is not None and not value and ("Alias" in mro or (
                tgt["r"]["dest"] == r["dest"] and tgt["ar"] == e["ar"])):
            return [f"deprecated-alias-of:{tgt['name']}"]
        return ["deprecated", f"use:{flag}" + (f"={value}" if value else "")]
    same = by_dest.get(r["dest"])
    if same is not None and same["ar"] == e["ar"]:
        return [f"deprecated-alias-of:{same['name']}"]
    named = [m for m in FLAG_RE.findall(help_text) if m in live and m != e["name"]]
    if named and "alias" in help_text.lower() and live[named[0]]["ar"] == e["ar"]:
        return [f"deprecated-alias-of:{live[named[0]]['name']}"]
    return ["deprecated"] + ([f"use:{named[0]}"] if named else [])


def build_rows(actions: list[dict], engine: str) -> list[list[str]]:
    entries = []
    for r in actions:
        opts = list(r["option_strings"])
        boolopt = "BooleanOptional" in " ".join(r.get("mro") or [r["action"]])
        neg = [o for o in opts if boolopt and o.startswith("--no-")]
        pos = [o for o in opts if o not in neg]
        longs = [o for o in pos if o.startswith("--")]
        name = longs[0] if longs else pos[0]
        aliases = [o for o in pos if o != name]
        entries.append(dict(r=r, name=name, aliases=aliases, neg=neg, boolopt=boolopt,
                            dep=is_deprecated(r, engine), ar=arity(r)))
    live = {}
    for e in entries:
        if not e["dep"]:
            for o in [e["name"]] + e["aliases"]:
                live[o] = e
    by_dest = {}
    for e in entries:
        if not e["dep"]:
            by_dest.setdefault(e["r"]["dest"], e)
    rows = []
    for e in entries:
        r = e["r"]
        ann = annotation_text(r.get("annotation") or "")
        # the type of the value typed on the command line: none for a flag without a value; a
        # deprecated spelling's own argparse type (its dest may be another flag's field)
        if e["ar"] == "0":
            typ = "bool"
        elif e["dep"]:
            typ = r.get("type") or ann or "str"
        else:
            typ = ann or r.get("type") or "str"
        notes = []
        if e["dep"]:
            notes += deprecation_notes(e, live, by_dest)
        if e["boolopt"]:
            notes.append("boolopt")
        if r.get("choices"):
            ch = [clean(c).replace("|", "/") for c in r["choices"]]
            if r.get("choices_is_set"):
                ch = sorted(ch)
            notes.append("choices:" + "|".join(ch))
        default = clean(r["default"])
        rows.append([e["name"], "|".join(e["aliases"]), r["dest"], e["ar"], clean(typ), default,
                     " ".join(notes)])
        for n in e["neg"]:
            rows.append([n, "", r["dest"], "0", clean(typ), default, "negation"])
    # one row per flag name: a later registration of the same option string wins in argparse
    # only with conflict_handler='resolve'; keep the first, as the parser would refuse the second
    seen, out = set(), []
    for row in rows:
        if row[0] in seen:
            continue
        seen.add(row[0])
        out.append(row)
    return sorted(out, key=lambda row: row[0])


HEADER = {
    "sglang": "# SGLang {v} launch_server flags, generated by `{cmd}` from the PyPI wheel {wheel} ({how}): "
              "flag, aliases (|-separated), dest field, arity (0 = store_true/store_const/BooleanOptionalAction, "
              "1, + = one or more, * = zero or more, ? = optional value), type (the ServerArgs annotation), "
              "default, note (space-separated: deprecated; deprecated-alias-of:--flag; use:--flag = the "
              "replacement the help text names; boolopt: argparse also accepts --no-FLAG; negation: that "
              "--no- form; choices:a|b).",
    "vllm": "# vLLM {v} `vllm serve` flags, generated by `{cmd}` from the PyPI wheel {wheel} ({how}): "
            "flag, aliases (|-separated), dest field, arity (0 = store_true/BooleanOptionalAction, 1, "
            "+ = one or more, * = zero or more, ? = optional value), type annotation, default, note "
            "(space-separated: boolopt: argparse also accepts --no-FLAG; negation: that --no- form; "
            "deprecated; deprecated-alias-of:--flag; use:--flag = the replacement the help text names; "
            "choices:a|b).",
}
HOW = {"import": "read from the release's own argument parser",
       "ast": "read statically with Python's ast from the release's source"}


def write_table(engine: str, version: str, wheel: str, method: str, rows: list[list[str]]) -> str:
    path = os.path.join(common.DATA, engine, f"flags-{version}.tsv")
    head = HEADER[engine].format(v=version, cmd=f"tools/engine-sync/flags.py {engine} {version}",
                                 wheel=os.path.basename(wheel), how=HOW[method])
    with open(path, "w") as f:
        f.write(head + "\n")
        f.write("flag\taliases\tfield\tarity\ttype\tdefault\tnote\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    return path


def write_sources(engine: str, results: dict) -> None:
    path = os.path.join(common.DATA, engine, "flags-SOURCES.md")
    old = {}
    if os.path.exists(path):  # keep the rows of releases not regenerated this time
        for line in open(path):
            m = re.match(r"\| (\d[^ |]*) \| (\w+) \| (\d+) \| (.*) \|$", line.rstrip("\n"))
            if m:
                old[m.group(1)] = (m.group(2), int(m.group(3)), m.group(4))
    old.update(results)
    what = {"sglang": "`sglang.srt.server_args.ServerArgs.add_cli_args` on an `argparse.ArgumentParser`",
            "vllm": "the `vllm serve` parser (`make_arg_parser` on a `FlexibleArgumentParser`)"}[engine]
    with open(path, "w") as f:
        f.write(f"# data/{engine}/flags-VERSION.tsv — how each release's table was read\n\n")
        f.write(f"Generated by `make flags` (`tools/engine-sync/flags.py {engine}`). Each table comes from "
                f"the release's PyPI wheel (`pip download --no-deps {engine}==VERSION`); nothing of the engine is "
                f"committed.\n\n")
        f.write(f"- **import**: the release's own parser, {what}, run on CPU in the project-local venv "
                f"(tools/engine-sync/setup_venv.sh {engine}: torch 2.13.0 CPU and pinned pure-Python deps) with the "
                f"wheel's package unpacked first on `sys.path`; heavy native modules stubbed (see "
                f"tools/engine-sync/{engine}_dump.py).\n")
        f.write("- **ast**: the `add_argument` calls read from the wheel's source with Python's `ast` module "
                "(the reason is in the last column). Literal values are exact; a default given as an "
                "expression is its source text; choices named by an imported constant are not followed.\n")
        if engine == "sglang":
            f.write("  Post releases before 0.5.10 are read this way by default: on every final 0.4.0 … 0.5.9 the "
                    "ast table equals the import table in every column but the type of one flag whose argparse "
                    "type is a function (checked when these tables were made). From 0.5.14 most flags are "
                    "declared through dataclass metadata the ast reader does not follow, so every later "
                    "release is imported.\n")
        else:
            f.write("  vLLM's kwargs come from `get_kwargs(Config)` (`_compute_kwargs`'s rules, as far as the "
                    "release has them: see tools/engine-sync/vllm_ast.py); dest is argparse's, from the "
                    "option string. Checked against the hand-made flags-2026-05-27.tsv (main after 0.21.0): "
                    "every 0.21.0 flag is there with the same arity but `--hf-token`, which 0.21.0's own "
                    "`_compute_kwargs` makes an optional value (`?`: `bool | str | None`).\n")
        f.write("\n")
        f.write("`flags` counts table rows (canonical flags, plus `--no-` negation rows; aliases are in the "
                "aliases column).\n\n")
        f.write("| release | method | flags | note |\n|---|---|---|---|\n")
        for v in sorted(old, key=Version):
            m, n, why = old[v]
            f.write(f"| {v} | {m} | {n} | {why} |\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=sorted(common.RANGES))
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--method", choices=["auto", "import", "ast"],
                    help="auto: import, else ast (default for sglang); vllm defaults to ast")
    ap.add_argument("--hi", help="newest release to read (default: newest on PyPI)")
    ap.add_argument("--posts", choices=["ast", "auto"], default="ast",
                    help="how to read post releases (x.y.z.postN) with --method auto: ast (default, "
                         "fast) or like the finals")
    ap.add_argument("--reuse", action="store_true",
                    help="rebuild the tables from the action records cached by the last run")
    a = ap.parse_args()
    sys.path.insert(0, common.HERE)
    a.method = a.method or DEFAULT_METHOD[a.engine]
    versions = a.versions or common.releases(a.engine, hi=a.hi)
    results = {}
    cache_dir = os.path.join(common.CACHE, "actions", a.engine)
    os.makedirs(cache_dir, exist_ok=True)
    for v in versions:
        wheel = common.wheel_path(a.engine, v)
        log: list[str] = []
        why = ""
        actions, method = None, None
        cached = os.path.join(cache_dir, f"{v}.json")
        method_v = a.method
        if a.method == "auto" and a.posts == "ast" and Version(v).is_postrelease and \
                Version(v) < Version(AST_EXACT_BELOW.get(a.engine, "0")):
            method_v = "ast"
            why = "post release: read with ast (`--posts auto` imports it, ~30 s each)"
        if a.reuse and os.path.exists(cached):  # rebuild the table from the last reading
            with open(cached) as f:
                c = json.load(f)
            fits = c["method"] == "ast" if method_v == "ast" else (
                c["method"] == "import" or (method_v == "auto" and c["why"].startswith("import failed")))
            if c["wheel"] == os.path.basename(wheel) and fits:
                actions, method, why = c["actions"], c["method"], c["why"]
        if actions is None and method_v in ("auto", "import"):
            try:
                actions, overlay = read_by_import(a.engine, v, wheel, log)
                method = "import"
                if overlay:
                    why = f"with {overlay} (overlays-{a.engine}.txt)"
            except Exception as e:  # noqa: BLE001 - record and fall back
                why = f"import failed: {clean(e)}".replace("|", "/")
                if a.method == "import":
                    raise
        if actions is None:
            actions, method = read_by_ast(a.engine, v, wheel, log), "ast"
            if a.method == "ast" and not why:
                why = NO_IMPORT.get(a.engine, "import not attempted (--method ast)")
        with open(cached, "w") as f:
            json.dump(dict(wheel=os.path.basename(wheel), method=method, why=why, actions=actions), f)
        rows = build_rows(actions, a.engine)
        write_table(a.engine, v, wheel, method, rows)
        results[v] = (method, len(rows), why)
        print(f"{a.engine} {v}: {method}, {len(rows)} flags {why}", flush=True)
    write_sources(a.engine, results)


if __name__ == "__main__":
    main()
