#!/usr/bin/env python3
"""Checks the vLLM KV oracle (vllm_oracle_worker.py) against real vLLM startup logs.

usage: vllm_oracle_corpus.py [CORPUS_DIR]   (default $SERVESCOPE_CORPUS)

For every logged vLLM run of CORPUS/vllm-llm-d-sweep-*.jsonl and CORPUS/cases.jsonl whose release the
oracle can run (a wheel on PyPI), whose model is in data/models/, with pp 1, H100, no --dtype/--quantization
override, and whose log has `Available KV cache memory: A GiB`, `GPU KV cache size: N tokens` and
`Maximum concurrency for L tokens per request: Xx`: two kv cases with available_bytes = (A - 0.005) GiB and
(A + 0.005) GiB (A is printed rounded to 2 decimals), run in the release's own code. The logged N and X must
lie between the two answers. Prints one line per run and the count; exit 1 if any run falls outside.
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import oracle  # noqa: E402
import vllm_oracle  # noqa: E402


def runs(corpus: str):
    names = [n for n in os.listdir(corpus) if n.startswith("vllm-") and n.endswith(".jsonl")] + ["cases.jsonl"]
    models = {m["id"] for m in oracle.load_models()}
    for n in names:
        for line in open(os.path.join(corpus, n)):
            d = json.loads(line)
            if d.get("engine") != "vllm" or d.get("model") not in models or (d.get("pp") or 1) != 1:
                continue
            rel = (d.get("engine_version") or "").split(" ")[0]
            log = d.get("raw_log") or ""
            if not log and d.get("raw_log_file"):
                p = os.path.join(corpus, d["raw_log_file"])
                log = open(p, errors="replace").read() if os.path.exists(p) else ""
            sa = d.get("server_args") or ""
            if "H100" not in (d.get("gpu") or "") or "'dtype'" in sa or "'quantization'" in sa:
                continue
            a = re.findall(r"Available KV cache memory: ([\d.]+) GiB", log)
            g = re.findall(r"GPU KV cache size: ([\d,]+) tokens", log)
            c = re.findall(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x", log)
            if not (a and g and c and rel):
                continue
            yield rel, d, float(a[0]), int(g[0].replace(",", "")), float(c[0][1]), \
                int(c[0][0].replace(",", ""))


def main() -> None:
    corpus = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SERVESCOPE_CORPUS")
    if not corpus:
        sys.exit("vllm_oracle_corpus.py: give the corpus folder or set SERVESCOPE_CORPUS=DIR")
    g = next(x for x in vllm_oracle.load_gpus() if x["key"] == "h100-sxm")
    by_rel: dict[str, list] = {}
    for rel, d, avail, tokens, conc, mml in runs(corpus):
        kvd = "fp8" if "'kv_cache_dtype': 'fp8'" in (d.get("server_args") or "") else "auto"
        for bound, gib in (("lo", avail - 0.005), ("hi", avail + 0.005)):
            lst = by_rel.setdefault(rel, [])
            lst.append({"case": len(lst), "kind": "kv", "model": d["model"], "gpu": g["key"],
                        "gpu_name": g["name"], "gpu_memory_mib": g["mem"], "capability": g["cap"],
                        "tp": d.get("tp") or 1, "block_size": None, "kv_cache_dtype": kvd,
                        "max_model_len": mml, "enable_prefix_caching": "'enable_prefix_caching': False"
                        not in (d.get("server_args") or ""), "available_bytes": int(gib * 2**30),
                        "argv": [], "run": d["id"], "bound": bound, "want": [tokens, conc]})
    bad = total = 0
    for rel, cases in by_rel.items():
        name, odir, _ = vllm_oracle.choose_package_set(rel, None)
        res, _ = vllm_oracle.run_workers(rel, odir, cases, 2)
        pairs: dict[str, dict] = {}
        for r in res:
            pairs.setdefault(r["run"], {})[r["bound"]] = r
        for run, p in pairs.items():
            total += 1
            lo, hi = p["lo"], p["hi"]
            tokens, conc = lo["want"]
            if "error" in lo or "error" in hi:
                bad += 1
                print(f"ERROR {rel} {run}: {lo.get('error') or hi.get('error')}")
                continue
            a, b = lo["result"], hi["result"]
            inside = (a["kv_cache_size_tokens"] <= tokens <= b["kv_cache_size_tokens"]
                      and round(a["max_concurrency"], 2) <= conc <= round(b["max_concurrency"], 2))
            bad += not inside
            print(f"{'ok ' if inside else 'OUT'} {rel} {run}: log {tokens:,} tokens {conc:.2f}x; oracle "
                  f"{a['kv_cache_size_tokens']:,}..{b['kv_cache_size_tokens']:,} tokens "
                  f"{a['max_concurrency']:.2f}..{b['max_concurrency']:.2f}x ({a.get('attention_backend')})")
    print(f"{total - bad}/{total} logged runs inside the oracle's interval")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
