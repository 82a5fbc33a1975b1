"""Run oracle cases in worker processes (oracle.py for SGLang, vllm_oracle.py for vLLM).

Each worker reads its cases as JSON lines and writes one result line per case, plus a
{"worker": {...}} line with what it measured (import time, packages). A worker that dies on a
case (a crash no try can catch) is restarted after it, and that case is recorded with the
error; a worker that never starts, or three dying in a row, stop the run.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Callable


def run_cases(cases: list[dict], jobs: int, tmp: str, env: dict, cwd: str,
              argv_for: Callable[[str, str], list[str]]) -> tuple[list[dict], dict]:
    """`argv_for(in_path, out_path)` is a worker's command line. Returns (results in case
    order, worker info)."""
    info: dict = {}
    results: dict[int, dict] = {}
    attempt = 0

    def launch(chunk):
        nonlocal attempt
        attempt += 1
        base = os.path.join(tmp, f"a{attempt}")
        with open(base + ".in", "w") as f:
            for c in chunk:
                f.write(json.dumps(c) + "\n")
        p = subprocess.Popen(argv_for(base + ".in", base + ".out"), stdout=subprocess.DEVNULL,
                             stderr=open(base + ".err", "w"), env=env, cwd=cwd)
        return (p, base, chunk)

    running = [launch(cases[j::jobs]) for j in range(jobs) if cases[j::jobs]]
    dead_in_a_row = 0
    while running:
        time.sleep(0.3)
        still = []
        for p, base, chunk in running:
            if p.poll() is None:
                still.append((p, base, chunk))
                continue
            got = 0
            if os.path.exists(base + ".out"):
                with open(base + ".out") as f:
                    for line in f:
                        if not line.endswith("\n"):
                            break
                        d = json.loads(line)
                        if "worker" in d:
                            info.update(d["worker"])
                        else:
                            results[d["case"]] = d
                            got += 1
            if got < len(chunk):
                err = [l for l in open(base + ".err").read().splitlines() if l.strip()]
                last = (err[-1] if err else f"exit {p.returncode}")[:200]
                if "import_s" not in info:
                    raise RuntimeError(f"worker failed to start: {last}")
                dead_in_a_row = dead_in_a_row + 1 if got == 0 else 0
                if dead_in_a_row >= 3:
                    for q, _, _ in still + running:
                        if q.poll() is None:
                            q.kill()
                    raise RuntimeError(f"workers die on every case: {last}")
                bad = chunk[got]
                results[bad["case"]] = dict(bad, error=f"WorkerDied: {last}")
                if chunk[got + 1:]:
                    still.append(launch(chunk[got + 1:]))
        running = still
    return [results[c["case"]] for c in cases], info
