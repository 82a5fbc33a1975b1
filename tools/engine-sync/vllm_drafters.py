#!/usr/bin/env python3
"""vLLM drafters oracle: the KV cache a release plans for a target model and its speculative
drafter together, from the release's own model and drafter code, on this CPU-only machine.

usage: vllm_drafters.py [VERSION] [--per-pair N] [--seed S] [--jobs J] [--out PATH]
Default: 0.34.0, 3 cases per (drafter, target, tp), seed 20261207, into
tests/oracle/drafters/vllm-VERSION.jsonl.

The drafters are drafter_configs.json (EAGLE and EAGLE-3 heads, draft models, DFlash drafters with
full, forced sliding and mixed layers, MTP layers of the target's own checkpoint); the targets are
catalog models (data/models). Per case, in a worker of .venv-vllm (vllm_drafters_worker.py, the
layouts tool's meta-device builds on the oracle's faked CUDA platform): the engine config with the
speculative config, the target built by initialize_model, the drafter built by the release's own
speculator loader, get_kv_cache_spec (target and drafter layers), and EngineCore's KV planning on
`available_bytes` per worker (vllm_oracle_worker.plan_kv). tests/oracle/vllm_drafters_test.cc
plans the same commands with servescope.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import common  # noqa: E402
import oracle  # noqa: E402  write_models
import vllm_layouts  # noqa: E402  worker_env, the release tree and package set
import vllm_oracle  # noqa: E402  load_gpus
import worker_pool  # noqa: E402

DEFAULT_SEED = 20261207
GPUS = ["h100-sxm", "h200", "b200"]
# The speculative config's "model" in a case's argv: the C++ test writes the drafter's config to
# a folder and puts its path here.
DRAFTER_PLACEHOLDER = "{drafter}"


def drafters() -> list[dict]:
    with open(os.path.join(HERE, "drafter_configs.json")) as f:
        return json.load(f)["drafters"]


def generate(per_pair: int, seed: int, version: str) -> list[dict]:
    rng = random.Random(f"{seed}:{version}:drafters")
    gpus = {g["key"]: g for g in vllm_oracle.load_gpus()}
    models = {m["id"]: m for m in oracle.load_models()}
    cases = []
    for d in drafters():
        for target in d["targets"]:
            maxpos = models[target]["maxpos"]
            for tp in d["tps"]:
                for _ in range(per_pair):
                    g = gpus[rng.choice(GPUS)]
                    mml = rng.choice([c for c in (2048, 4096, 8192, 16384, 32768) if c <= maxpos])
                    bs = rng.choice([None, None, 16, 32])
                    kvd = "fp8" if rng.random() < 0.2 else "auto"
                    epc = rng.random() < 0.6
                    avail = int(rng.uniform(2, 30) * (1 << 30))
                    spec = {"method": d["method"], "num_speculative_tokens": d["tokens"]}
                    if d["config"] is not None:
                        spec["model"] = DRAFTER_PLACEHOLDER
                    argv = ["vllm", "serve", target, "--speculative-config",
                            json.dumps(spec, separators=(",", ":"))]
                    if tp > 1:
                        argv += ["--tensor-parallel-size", str(tp)]
                    if bs:
                        argv += ["--block-size", str(bs)]
                    if kvd != "auto":
                        argv += ["--kv-cache-dtype", kvd]
                    argv += ["--max-model-len", str(mml),
                             "--enable-prefix-caching" if epc else "--no-enable-prefix-caching"]
                    cases.append({
                        "case": len(cases), "drafter": d["name"], "model": target, "gpu": g["key"],
                        "gpu_name": g["name"], "gpu_memory_mib": g["mem"], "capability": g["cap"],
                        "tp": tp, "block_size": bs, "kv_cache_dtype": kvd, "max_model_len": mml,
                        "enable_prefix_caching": epc, "available_bytes": avail,
                        "speculative_config": {k: v for k, v in spec.items() if k != "model"},
                        "target_dir": target,
                        "drafter_dir": f"drafters/{d['name']}" if d["config"] is not None else None,
                        "drafter_config": d["config"], "argv": argv})
    return cases


def run(version: str, cases: list[dict], jobs: int) -> tuple[list[dict], dict]:
    tmp = tempfile.mkdtemp(prefix=f"vllm-drafters-{version}-")
    try:
        cwd = os.path.join(tmp, "models")
        oracle.write_models(cwd)
        for d in drafters():
            if d["config"] is not None:
                os.makedirs(os.path.join(cwd, "drafters", d["name"]))
                with open(os.path.join(cwd, "drafters", d["name"], "config.json"), "w") as f:
                    json.dump(d["config"], f, indent=1)
        argv = vllm_layouts.worker_argv(version)
        argv[1] = os.path.join(HERE, "vllm_drafters_worker.py")
        env = dict(vllm_layouts.worker_env(tmp),
                   ORACLE_CUDA_RUNTIME=str(vllm_oracle.wheel_cuda_major(version)))
        return worker_pool.run_cases(cases, jobs, tmp, env, cwd, lambda inp, out: argv + [inp, out])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version", nargs="?", default="0.34.0")
    ap.add_argument("--per-pair", type=int, default=3)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out")
    a = ap.parse_args()
    v = a.version
    out = a.out or os.path.join(ROOT, "tests", "oracle", "drafters", f"vllm-{v}.jsonl")
    t0 = time.time()
    cases = generate(a.per_pair, a.seed, v)
    print(f"vllm {v}: {len(cases)} drafter cases, {a.jobs} worker(s)", file=sys.stderr)
    results, info = run(v, cases, a.jobs)
    rows = []
    for c, r in zip(cases, results):
        row = {k: c[k] for k in ("case", "drafter", "model", "gpu", "tp", "available_bytes", "argv",
                                 "drafter_config")}
        row.update({k: r[k] for k in ("result", "error") if k in r})
        rows.append(row)
    errors = sum(1 for r in rows if "error" in r)
    header = {"generated_by": f"python3 tools/engine-sync/vllm_drafters.py {v} --per-pair {a.per_pair} "
                              f"--seed {a.seed} --jobs {a.jobs}",
              "release": v, "date": datetime.date.today().isoformat(), "cases": len(rows),
              "errors": errors, "seconds": round(time.time() - t0, 1), "worker": info,
              "kernel_set": vllm_oracle.kernel_set(v)[0],
              "drafter_placeholder": DRAFTER_PLACEHOLDER,
              "method": __doc__.split("\n\n", 2)[2].strip()}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    common.write_jsonl(out, header, rows)
    print(f"vllm {v}: {len(rows) - errors}/{len(rows)} planned, {time.time() - t0:.0f} s -> "
          f"{os.path.relpath(out, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
