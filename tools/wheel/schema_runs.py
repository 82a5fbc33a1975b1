"""The --json outputs schema/invocations.json names, from a servescope binary: read by
make_schemas.py (which writes the schemas from them) and python/tests/test_schemas.py (which
validates them). A bench run gets a twin of its own on loopback, started and stopped here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def invocations() -> dict[str, list[list[str]]]:
    data = json.loads((ROOT / "schema" / "invocations.json").read_text())
    return {k: v for k, v in data.items() if not k.startswith("_")}


def maps() -> dict[str, list[str]]:
    """Objects whose keys are data, not fields (schema/invocations.json "_maps")."""
    out: dict[str, list[str]] = {}
    for dotted in json.loads((ROOT / "schema" / "invocations.json").read_text()).get("_maps", []):
        command, _, path = dotted.partition(".")
        out.setdefault(command, []).append(path)
    return out


def items() -> dict[str, dict[str, dict]]:
    """Arrays the runs may leave empty, with their items' schema (schema/invocations.json
    "_items"): without it a schema would depend on whether a run happened to fill them."""
    out: dict[str, dict[str, dict]] = {}
    raw = json.loads((ROOT / "schema" / "invocations.json").read_text()).get("_items", {})
    for dotted, schema in raw.items():
        command, _, path = dotted.partition(".")
        out.setdefault(command, {})[path] = schema
    return out


class Twin:
    """`servescope twin` on 127.0.0.1 with an ephemeral port (bounded waits, killed on exit)."""

    def __init__(self, binary: str):
        self.proc = subprocess.Popen(
            [binary, "twin", "--gpu", "h100-sxm", "--speed", "inf", "--no-access-log", "--",
             "vllm", "serve", "Qwen/Qwen3-8B", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=_env())
        self.url = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not self.url:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.search(r"served at (http://127\.0\.0\.1:\d+)", line)
            if m:
                self.url = m.group(1)
        if not self.url:
            self.close()
            raise RuntimeError("the twin did not start")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env["HF_HUB_OFFLINE"] = "1"
    return env


def run(binary: str, argv: list[str], url: str = "") -> tuple[int, object]:
    argv = [a.replace("{url}", url) for a in argv]
    proc = subprocess.run([binary, *argv], capture_output=True, text=True, cwd=ROOT, env=_env(),
                          timeout=300)
    if proc.returncode >= 2:
        raise RuntimeError(f"servescope {' '.join(argv)}: exit {proc.returncode}: {proc.stderr}")
    return proc.returncode, json.loads(proc.stdout)


def run_text(binary: str, argv: list[str]) -> str:
    return subprocess.run([binary, *argv], capture_output=True, text=True, cwd=ROOT, env=_env(),
                          timeout=60).stdout


def outputs(binary: str) -> dict[str, list[object]]:
    """Every invocation's parsed output, by command."""
    out: dict[str, list[object]] = {}
    twin = None
    try:
        for command, runs in invocations().items():
            for argv in runs:
                url = ""
                if any("{url}" in a for a in argv):
                    twin = twin or Twin(binary)
                    url = twin.url
                out.setdefault(command, []).append(run(binary, argv, url)[1])
    finally:
        if twin:
            twin.close()
    return out
