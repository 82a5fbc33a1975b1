"""Dump one SGLang release's server CLI from its own argument parser, as JSON.

Run by flags.py inside .venv-sglang (never by hand needed):
  python sglang_dump.py SRC_DIR OUT.json [TRITON_STUB [OVERLAY_DIR]]
SRC_DIR holds the release's unpacked `sglang/` package and is put first on sys.path (then
OVERLAY_DIR, another transformers for releases that need one); nothing is installed. torchvision is stubbed; triton, when not installed, is SGLang's own stub
(sglang/_platform_stubs.py or _triton_stub.py, or TRITON_STUB: 0.5.23's _platform_stubs.py for
releases whose own stub is missing or too old for torch 2.13). No GPU is faked: building the
parser needs none. The actions are read from ServerArgs.add_cli_args(argparse.ArgumentParser()).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import typing

HERE = os.path.dirname(os.path.abspath(__file__))


def type_text(t) -> str:
    if isinstance(t, str):
        return t
    if isinstance(t, type) and not getattr(t, "__args__", None):
        return t.__name__
    s = repr(t)
    return s.replace("typing.", "").replace("<class '", "").replace("'>", "")


def jsonable(v):
    try:
        json.dumps(v)
        return v
    except TypeError:
        return repr(v)


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    stub = sys.argv[3] if len(sys.argv) > 3 else ""
    overlay = sys.argv[4] if len(sys.argv) > 4 else ""
    sys.path.insert(0, src)
    if overlay:
        sys.path.insert(1, overlay)
    sys.path.append(HERE)
    os.environ.setdefault("SGLANG_DISABLE_OUTLINES_DISK_CACHE", "1")
    from stubs import install_stub_modules, install_sglang_triton_stub
    install_stub_modules(["torchvision"], versions={"torchvision": "0.28.0"})
    install_stub_modules(["decord"])  # a video reader 0.4.5 imports at module level
    import importlib.util
    if importlib.util.find_spec("triton") is None:
        pkg = os.path.join(src, "sglang")
        own = os.path.join(pkg, "_platform_stubs.py")
        if stub and not os.path.exists(own):
            os.environ["SG_ORACLE_TRITON_STUB"] = stub
        install_sglang_triton_stub(pkg)
    from sglang.srt.server_args import ServerArgs
    import sglang
    if not os.path.abspath(sglang.__file__).startswith(os.path.abspath(src)):
        raise SystemExit(f"imported {sglang.__file__}, not the release under {src}")
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    ann: dict[str, str] = {}
    for klass in reversed(ServerArgs.__mro__):
        for k, v in getattr(klass, "__annotations__", {}).items():
            ann[k] = type_text(v)
    std = set(vars(argparse.Action(["--x"], "x")))
    rows = []
    for a in parser._actions:
        if isinstance(a, argparse._HelpAction) or not a.option_strings:
            continue
        t = a.type
        extra = {k: v for k, v in vars(a).items() if k not in std and isinstance(v, (str, list, tuple))}
        rows.append(dict(
            option_strings=list(a.option_strings), dest=a.dest,
            default="argparse.SUPPRESS" if a.default == argparse.SUPPRESS else repr(a.default),
            type=None if t is None else getattr(t, "__name__", repr(t)),
            choices=None if a.choices is None else [str(c) for c in a.choices],
            choices_is_set=isinstance(a.choices, (set, frozenset)),
            nargs=a.nargs, const=jsonable(a.const), action=type(a).__name__,
            mro=[k.__name__ for k in type(a).__mro__], help=(a.help or "")[:400],
            annotation=ann.get(a.dest), extra=jsonable(extra)))
    version = getattr(sys.modules.get("sglang.version"), "__version__", None)
    with open(out, "w") as f:
        json.dump(dict(method="import", version=version, actions=rows), f)


if __name__ == "__main__":
    main()
