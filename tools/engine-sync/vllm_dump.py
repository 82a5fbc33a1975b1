"""Dump one vLLM release's `vllm serve` CLI from its own argument parser, as JSON.

Run by flags.py inside .venv-vllm: python vllm_dump.py SRC_DIR OUT.json [UNUSED [OVERLAY_DIR]]
SRC_DIR holds the release's unpacked `vllm/` package, first on sys.path; nothing is installed.
vLLM's CUDA-only native modules (vllm._C, ...) are inert stubs (as in
the research oracle scripts); no GPU platform is faked, so defaults
that depend on the platform are the unspecified platform's. The parser is the serve
subcommand's: make_arg_parser(FlexibleArgumentParser()) from wherever the release keeps it.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

STUB_PREFIXES = ("vllm._C", "vllm._moe_C", "vllm._vllm_fa2_C", "vllm._vllm_fa3_C", "vllm._flashmla",
                 "vllm.cumem_allocator", "vllm._C_stable_libtorch", "vllm.vllm_flash_attn",
                 "vllm._rocm_C", "vllm._custom_ops_C")


PARSER_MODULES = ["vllm.entrypoints.common.cli_args", "vllm.entrypoints.launchers.cli_args",
                  "vllm.entrypoints.openai.cli_args"]


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    overlay = sys.argv[4] if len(sys.argv) > 4 else ""
    sys.path.insert(0, src)
    if overlay:
        sys.path.insert(1, overlay)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(here)
    from stubs import install_native_stubs, install_stub_modules
    install_native_stubs(lambda n: n.startswith(tuple(p + "." for p in STUB_PREFIXES))
                         or n in STUB_PREFIXES)
    install_stub_modules(["torchvision"], versions={"torchvision": "0.28.0"})
    # vLLM reads its own version from the dist-info the unpacked wheel carries
    import importlib.metadata as md
    mk = None
    errors = []
    for m in PARSER_MODULES:
        try:
            mk = importlib.import_module(m).make_arg_parser
            break
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith(m.rsplit(".", 1)[0]):
                errors.append(str(e))
                continue
            raise
        except AttributeError as e:
            errors.append(str(e))
    if mk is None:
        raise SystemExit("no make_arg_parser: " + "; ".join(errors))
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    import vllm
    if not os.path.abspath(vllm.__file__).startswith(os.path.abspath(src)):
        raise SystemExit(f"imported {vllm.__file__}, not the release under {src}")
    parser = mk(FlexibleArgumentParser())
    std = set(vars(argparse.Action(["--x"], "x")))
    rows = []

    def walk(p):
        for a in p._actions:
            if isinstance(a, argparse._HelpAction) or not a.option_strings:
                continue
            t = a.type
            extra = {k: v for k, v in vars(a).items() if k not in std and isinstance(v, str)}
            rows.append(dict(
                option_strings=list(a.option_strings), dest=a.dest,
                default="argparse.SUPPRESS" if a.default == argparse.SUPPRESS else repr(a.default),
                type=None if t is None else getattr(t, "__name__", repr(t)),
                choices=None if a.choices is None else [str(c) for c in a.choices],
                choices_is_set=isinstance(a.choices, (set, frozenset)),
                nargs=a.nargs, const=None, action=type(a).__name__,
                mro=[k.__name__ for k in type(a).__mro__], help=(a.help or "")[:400],
                deprecated=bool(getattr(a, "deprecated", False)),
                annotation=None, extra=extra))
    walk(parser)
    with open(out, "w") as f:
        json.dump(dict(method="import", actions=rows), f)


if __name__ == "__main__":
    main()
