"""The Python API's cost per call against the command line's, in the same run (issue 33):
servescope.plan(...) against running `servescope plan --json` directly, each N times in turn.

    python bench/python_api.py [N]   (with the wheel installed, or SERVESCOPE_BINARY and
                                      PYTHONPATH=python)"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import servescope

ARGS = ["--gpu", "h100-sxm"]
COMMAND = ["vllm", "serve", "Qwen/Qwen3-8B"]


def cli_once(binary: str) -> float:
    t = time.perf_counter()
    out = subprocess.run([binary, "plan", *ARGS, "--json", "--", *COMMAND], capture_output=True)
    assert out.returncode == 0 and out.stdout
    return time.perf_counter() - t


def api_once() -> float:
    t = time.perf_counter()
    r = servescope.plan(COMMAND, gpu="h100-sxm")
    assert r.outputs["max_num_seqs"] > 0
    return time.perf_counter() - t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    binary = servescope.find_binary()
    cli, api = [], []
    for _ in range(n):  # interleaved, so both see the same machine
        cli.append(cli_once(binary))
        api.append(api_once())
    c, a = statistics.median(cli), statistics.median(api)
    print(f"servescope plan, {n} calls each, interleaved ({binary})")
    print(f"  command line  median {c * 1000:7.2f} ms  (min {min(cli) * 1000:.2f})")
    print(f"  Python API    median {a * 1000:7.2f} ms  (min {min(api) * 1000:.2f})")
    print(f"  API / CLI     {a / c:.2f}x")


if __name__ == "__main__":
    main()
