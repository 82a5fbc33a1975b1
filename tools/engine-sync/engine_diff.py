#!/usr/bin/env python3
"""Unified diff between two releases' wheels of the engine files servescope's rules mirror.

usage: engine_diff.py sglang|vllm A B [--logs] [--full] [--stat] [PATTERN ...]
       (make engine-diff [ENGINE=sglang] A=0.5.18 B=0.5.23)
The wheels come from `pip download --no-deps` (cached under .cache/wheels/). Files are matched
by the engine's patterns below (or the PATTERNs given, fnmatch, relative to the package). A file
present in one release only is named, not printed (--full prints it). --logs diffs only the
messages of logger.*/print calls in those files (the lines the log grammar reads): each message
only in A (-) or only in B (+), as `level: text    [path]`; --stat lists the changed files with +/- line counts.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import fnmatch
import sys
import zipfile

import common

PATTERNS = {
    "sglang": [
        "srt/server_args.py", "srt/server_args_config_parser.py", "srt/runtime_context.py",
        "srt/arg_groups/*.py", "srt/arg_groups/model_overrides/*.py",
        "srt/mem_cache/kv_cache_configurator.py", "srt/model_executor/pool_configurator.py",
        "srt/model_executor/model_runner.py", "srt/model_executor/model_runner_kv_cache_mixin.py",
        "srt/model_executor/model_runner_components/*.py",
        "srt/model_executor/cuda_graph_runner.py", "srt/model_executor/piecewise_cuda_graph_runner.py",
        "srt/model_executor/cuda_graph_*.py",
        "srt/mem_cache/memory_pool.py", "srt/mem_cache/mamba_*.py", "srt/mem_cache/allocator/mamba.py",
        "srt/configs/mamba_utils.py", "srt/configs/model_config.py",
        "srt/speculative/spec_info.py", "srt/speculative/spec_utils.py", "srt/speculative/eagle_worker*.py",
        "srt/managers/scheduler.py",
    ],
    "vllm": [
        "config/*.py", "engine/arg_utils.py", "envs.py",
        "entrypoints/openai/cli_args.py", "entrypoints/launchers/cli_args.py",
        "entrypoints/common/cli_args.py", "utils/argparse_utils.py",
        "v1/core/kv_cache_utils.py", "v1/core/kv_cache_planning.py", "v1/core/kv_cache_planning/*.py",
        "v1/worker/gpu_worker.py", "utils/mem_utils.py", "v1/worker/utils.py",
        "v1/engine/core.py", "platforms/cuda.py", "platforms/interface.py",
        # 0.34.0: the extensible KV cache is sized here, and the V2 model runner (the only one
        # from 0.34.0) profiles the CUDA-graph memory here.
        "v1/worker/extensible_kv_cache.py", "v1/worker/gpu/model_runner.py",
        "v1/worker/gpu/cudagraph_utils.py",
    ],
}


def members(engine: str, version: str) -> tuple[zipfile.ZipFile, dict[str, str]]:
    z = zipfile.ZipFile(common.wheel_path(engine, version))
    pre = engine + "/"
    return z, {n[len(pre):]: n for n in z.namelist() if n.startswith(pre) and n.endswith(".py")}


def log_lines(path: str, text: str) -> list[str]:
    """The literal parts of logger.<level>(...) / print(...) messages, one per call."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call) or not n.args:
            continue
        f = n.func
        level = None
        if isinstance(f, ast.Attribute) and f.attr in ("debug", "info", "warning", "warning_once",
                                                        "info_once", "error", "exception", "critical"):
            base = ast.unparse(f.value)
            if "log" in base.lower():
                level = f.attr
        elif isinstance(f, ast.Name) and f.id == "print":
            level = "print"
        if level is None:
            continue
        msg = message_of(n.args[0])
        if msg.strip():
            out.append(f"{path}: {level}: {msg}")
    return sorted(set(out))


def message_of(node) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("\n", "\\n")
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value.replace("\n", "\\n") if isinstance(v, ast.Constant)
                       else "{" + ast.unparse(v.value) + "}" for v in node.values)
    if isinstance(node, ast.BinOp):
        return message_of(node.left) + message_of(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return message_of(node.func.value)
    return ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=sorted(PATTERNS))
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("patterns", nargs="*")
    ap.add_argument("--logs", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--stat", action="store_true")
    o = ap.parse_args()
    pats = o.patterns or PATTERNS[o.engine]
    za, ma = members(o.engine, o.a)
    zb, mb = members(o.engine, o.b)
    pick = lambda m: {p for p in m if any(fnmatch.fnmatch(p, pat) for pat in pats)}  # noqa: E731
    files = sorted(pick(ma) | pick(mb))
    w = sys.stdout.write
    la, lb = f"{o.engine}-{o.a}", f"{o.engine}-{o.b}"
    if o.logs:
        old, new = [], []
        for p in files:
            if p in ma:
                old += log_lines(p, za.read(ma[p]).decode("utf-8", "replace"))
            if p in mb:
                new += log_lines(p, zb.read(mb[p]).decode("utf-8", "replace"))
        # compare (level, text) regardless of which file holds the call; a moved message is not
        # a change of the log a user sees
        def index(lines):
            d = {}
            for s in lines:
                path, level, text = s.split(": ", 2)
                d.setdefault((level, text), path)
            return d
        ia, ib = index(old), index(new)
        w(f"--- {la} (log messages)\n+++ {lb} (log messages)\n")
        for k in sorted(set(ia) | set(ib), key=lambda k: (k[1], k[0])):
            if k in ia and k not in ib:
                w(f"-{k[0]}: {k[1]}    [{ia[k]}]\n")
            elif k in ib and k not in ia:
                w(f"+{k[0]}: {k[1]}    [{ib[k]}]\n")
        return
    for p in files:
        ta = za.read(ma[p]).decode("utf-8", "replace").splitlines(True) if p in ma else None
        tb = zb.read(mb[p]).decode("utf-8", "replace").splitlines(True) if p in mb else None
        if ta == tb:
            continue
        if (ta is None or tb is None) and not o.full:
            which = lb if ta is None else la
            w(f"Only in {which}: {o.engine}/{p} ({len(tb or ta)} lines)\n")
            continue
        d = list(difflib.unified_diff(ta or [], tb or [], f"a/{la}/{o.engine}/{p}",
                                      f"b/{lb}/{o.engine}/{p}"))
        if o.stat:
            plus = sum(1 for l in d if l.startswith("+") and not l.startswith("+++"))
            minus = sum(1 for l in d if l.startswith("-") and not l.startswith("---"))
            w(f"{o.engine}/{p}: +{plus} -{minus}\n")
            continue
        for line in d:
            w(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # | head
        sys.stderr.close()
