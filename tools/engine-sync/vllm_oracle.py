#!/usr/bin/env python3
"""vLLM KV-cache oracle: what a real vLLM release's own KV planning resolves, on this CPU-only machine.

usage: vllm_oracle.py [VERSION ...] [--cases N] [--seed S] [--jobs J] [--overlay NAME|venv] [--out DIR]
Default: every release with a tests/oracle/vllm-RELEASE.jsonl, 2000 cases each, seed 20261202, into tests/oracle/.

For each release: the CUDA wheel (.cache/wheels/vllm/, common.wheel_path) is unpacked once into
.cache/src/vllm-VERSION/ without its compiled extensions (their module names are written to
.native-modules there and stubbed) and put first on sys.path of the project venv .venv-vllm
(setup_venv.sh vllm), after it a package set of overlays-vllm.txt if the release needs one
(0.19.0: transformers 4.57.1; chosen by a probe, venv first). Scenarios are generated here
(seeded, deterministic) from data/models/*.json and data/gpus.csv, and run in worker processes
of the venv (vllm_oracle_worker.py): per case

  1. EngineArgs(model=ORG/NAME, tensor_parallel_size, block_size, kv_cache_dtype, max_model_len,
     enable_prefix_caching).create_engine_config(usage_context=OPENAI_API_SERVER) with the
     platform faked to the case's GPU (cwd holds ORG/NAME/config.json);
  2. the attention backend the release's selector picks (vllm.v1.attention.selector.get_attn_backend)
     and, where the release has it (0.25+), Platform.update_block_size_for_backend (the executor's
     block-size preference and hybrid attention/mamba alignment) with one stand-in layer per
     attention layer in static_forward_context;
  3. per-layer KV specs built from the config (vllm_oracle_worker.layer_plan/build_specs, README.md),
     the same dict for each of the tp workers, available memory = the case's available_bytes per worker;
  4. as EngineCore._initialize_kv_caches: register_all_kvcache_specs, resolve_kv_cache_layout (0.30+),
     get_global_kv_cache_groups (0.33), get_kv_cache_configs, generate_scheduler_kv_cache_config,
     block_size = min over groups, update_kv_cache_capacity / get_kv_cache_capacity (0.19: the
     figures its _report_kv_cache_config logs + get_max_concurrency_for_kv_cache_config).

Output: tests/oracle/vllm-VERSION.jsonl: a header line, then one line per case (see README.md).
"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import oracle  # noqa: E402  the SGLang oracle's model/GPU loaders (data/models, data/gpus.csv)
import worker_pool  # noqa: E402



def default_versions() -> list[str]:
    """Every release the repository holds an oracle of (tests/oracle/vllm-RELEASE.jsonl): a new
    release's file, once recorded, is regenerated with the others; no list to edit."""
    names = glob.glob(os.path.join(ROOT, "tests", "oracle", "vllm-*.jsonl"))
    return sorted((os.path.basename(n)[len("vllm-"):-len(".jsonl")] for n in names),
                  key=lambda v: [int(x) if x.isdigit() else x for x in re.split(r"[.]", v)])

DEFAULT_SEED = 20261202
KV_GPUS = ["h100-sxm", "h200", "b200", "a100-80gb", "l40s", "rtx-pro-6000", "rtx-4090"]
VENV = os.path.join(HERE, ".venv-vllm")
PATCHES = ("stubs: every compiled extension module of the wheel (*.so names, e.g. vllm._C, _moe_C, "
           "_flashmla_C, vllm_flash_attn._vllm_fa3_C, cumem_allocator) is a permissive stub module; "
           "torch.ops namespaces _C/_moe_C/_C_cache_ops/... answer a dummy for missing ops and "
           "torch.library.register_fake ignores them; inert torchvision (0.28.0); the no-triton "
           "placeholder's triton.Config gets attributes; vllm.platforms.current_platform = a "
           "CudaPlatformBase subclass answering the case's GPU (capability, name, total memory "
           "= memory_mib of data/gpus.csv, 8 devices, fully connected) and the wheel's CUDA runtime "
           "(get_cuda_runtime_major: libcudart.so.N of its _C*.so); linear-attention layers get "
           "MambaBase stand-ins declaring the release's GDN prefill checkpoint alignment; "
           "registry._run_in_subprocess "
           "runs in-process; torch.empty/zeros(device='cuda') give meta tensors (module-level workspaces, "
           "cutlass_mla.py); the flashinfer-python the wheel pins (overlays-vllm.txt flashinfer-VER, "
           "pure Python, imported for real) with VLLM_HAS_FLASHINFER_CUBIN=1 (its kernels present, as a "
           "serving install has them); the KV modules' loggers are recorded; before each case every functools cache of the loaded "
           "vllm modules is cleared (selector and support probes are memoized per process); os.environ "
           "restored per case")
SPEC_CONSTRUCTION = (
    "per decoder layer i of model_config.get_num_layers(parallel_config) (pp 1, no MTP/draft layers): "
    "hybrid (model_config.is_hybrid) and layer_types[i]=='linear_attention' -> MambaSpec(shapes/dtypes = "
    "the model class's get_mamba_state_shape_from_config/get_mamba_state_dtype_from_config(vllm_config), "
    "block_size=cache_config.mamba_block_size, page_size_padded=cache_config.mamba_page_size_padded, "
    "mamba_type=GDN, mamba_cache_mode=cache_config.mamba_cache_mode, num_speculative_blocks=0); "
    "model_config.use_mla -> MLAAttentionSpec(block_size, num_kv_heads=1, head_size=get_head_size() "
    "(kv_lora_rank+qk_rope_head_dim), cache_dtype_str=cache_dtype); layer_types[i]=='sliding_attention' "
    "-> SlidingWindowSpec(sliding_window=config.sliding_window); attention_chunk_size and "
    "no_rope_layers[i]!=0 -> ChunkedLocalAttentionSpec(attention_chunk_size); else FullAttentionSpec; "
    "attention specs: block_size=cache_config.block_size after update_block_size_for_backend, "
    "num_kv_heads=model_config.get_num_kv_heads(parallel_config), head_size=head_size_v=get_head_size(), "
    "dtype=kv_cache_dtype_str_to_dtype(cache_dtype, model_config) (fp8 -> uint8 storage), kv_quant_mode "
    "where the release has it; only fields the release's dataclass has are passed")


# ====================================================================== scenarios
def pick_model_gpu_tp(rng: random.Random, models: list[dict], gpus: dict) -> tuple[dict, dict, int]:
    """A model, a GPU of KV_GPUS and a tensor-parallel size whose weight share fits in 85% of it."""
    while True:
        m, g = rng.choice(models), gpus[rng.choice(KV_GPUS)]
        tps = [t for t in (1, 2, 4, 8) if m["weight_gib"] / t < 0.85 * g["mem"] / 1024
               and m["heads"] % t == 0]
        if tps:
            return m, g, rng.choice(tps)


def generate(version: str, n: int, seed: int) -> list[dict]:
    rng = random.Random(f"{seed}:{version}:kv")
    models = oracle.load_models()
    gpus = {g["key"]: g for g in load_gpus()}
    cases = []
    for i in range(n):
        m, g, tp = pick_model_gpu_tp(rng, models, gpus)
        r = rng.random()
        bs = None if r < 0.4 else rng.choice([16, 32, 64])
        kvd = "fp8" if rng.random() < 0.3 else "auto"
        r = rng.random()
        if r < 0.15:
            mml = None
        elif r < 0.20:
            mml = -1
        elif r < 0.30:
            mml = rng.choice([3000, 5000, 10000, 12345, 20000, 100000])
            mml = mml if mml <= m["maxpos"] else m["maxpos"] - 1
        else:
            mml = rng.choice([c for c in (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
                              if c <= m["maxpos"]])
        avail = int(rng.uniform(0.03, 0.6) * (g["mem"] << 20))
        epc = rng.random() < 0.5
        argv = ["vllm", "serve", m["id"]]
        if tp > 1:
            argv += ["--tensor-parallel-size", str(tp)]
        if bs:
            argv += ["--block-size", str(bs)]
        if kvd != "auto" or rng.random() < 0.2:
            argv += ["--kv-cache-dtype", kvd]
        if mml is not None:
            argv += ["--max-model-len", str(mml)]
        argv += ["--enable-prefix-caching" if epc else "--no-enable-prefix-caching"]
        cases.append({"case": i, "kind": "kv", "model": m["id"], "gpu": g["key"], "gpu_name": g["name"],
                      "gpu_memory_mib": g["mem"], "capability": g["cap"], "tp": tp, "block_size": bs,
                      "kv_cache_dtype": kvd, "max_model_len": mml, "enable_prefix_caching": epc,
                      "available_bytes": avail, "argv": argv})
    return cases


def load_flag_table(version: str) -> dict[str, dict]:
    """flag -> row of data/vllm/flags-VERSION.tsv (with 'choices' from the note column)."""
    rows: dict[str, dict] = {}
    path = os.path.join(ROOT, "data", "vllm", f"flags-{version}.tsv")
    if not os.path.exists(path):
        return rows
    lines = [l.rstrip("\n") for l in open(path) if not l.startswith("#")]
    head = lines[0].split("\t")
    for l in lines[1:]:
        r = dict(zip(head, l.split("\t")))
        r["choices"] = next((w[8:].split("|") for w in r.get("note", "").split()
                             if w.startswith("choices:")), None)
        rows[r["flag"]] = r
    return rows


def generate_config(version: str, n: int, seed: int, first: int) -> list[dict]:
    """n `vllm serve` launch commands (flags only where the release's table has them) x GPUs."""
    rng = random.Random(f"{seed}:{version}:config")
    table = load_flag_table(version)
    has = table.__contains__
    models = oracle.load_models()
    gpus = {g["key"]: g for g in load_gpus()}
    cases = []
    for i in range(n):
        m, g, tp = pick_model_gpu_tp(rng, models, gpus)
        f: list[str] = []
        if tp > 1:
            f += ["--tensor-parallel-size", str(tp)]
        if rng.random() < 0.3:
            f += ["--max-model-len", str(rng.choice([c for c in (2048, 4096, 8192, 16384, 32768, 65536, 131072)
                                                     if c <= m["maxpos"]]))]
        if rng.random() < 0.2:
            f += ["--max-num-seqs", str(rng.choice([16, 64, 128, 256, 512, 1024]))]
        if rng.random() < 0.2:
            f += ["--max-num-batched-tokens", str(rng.choice([2048, 4096, 8192, 16384, 32768]))]
        if rng.random() < 0.2:
            f += ["--gpu-memory-utilization", str(rng.choice([0.8, 0.85, 0.9, 0.95]))]
        if rng.random() < 0.15:
            f += ["--block-size", str(rng.choice([16, 32, 64]))]
        if rng.random() < 0.15:
            f += ["--kv-cache-dtype", "fp8"]
        if rng.random() < 0.08:
            f += ["--enforce-eager"]
        elif rng.random() < 0.1 and has("--max-cudagraph-capture-size"):
            f += ["--max-cudagraph-capture-size", str(rng.choice([64, 128, 256, 512, 1024]))]
        elif rng.random() < 0.05 and has("--cudagraph-capture-sizes"):
            f += ["--cudagraph-capture-sizes"] + [str(x) for x in rng.choice([[1, 2, 4, 8], [1, 8, 16, 32, 64]])]
        if rng.random() < 0.2:
            f += [rng.choice(["--enable-prefix-caching", "--no-enable-prefix-caching"])]
        if rng.random() < 0.05 and has("--enable-chunked-prefill"):
            f += ["--no-enable-chunked-prefill"]
        if rng.random() < 0.05 and has("--async-scheduling"):
            f += ["--async-scheduling"]
        for flag, p in (("--performance-mode", 0.05), ("--optimization-level", 0.05)):
            if rng.random() < p and has(flag) and table[flag]["choices"]:
                f += [flag, rng.choice(table[flag]["choices"])]
        if m["hybrid"] and rng.random() < 0.25 and has("--mamba-cache-mode") and table["--mamba-cache-mode"]["choices"]:
            f += ["--mamba-cache-mode", rng.choice(table["--mamba-cache-mode"]["choices"])]
        cases.append({"case": first + i, "kind": "config", "model": m["id"], "gpu": g["key"],
                      "gpu_name": g["name"], "gpu_memory_mib": g["mem"], "capability": g["cap"],
                      "argv": ["vllm", "serve", m["id"]] + f})
    return cases


def load_gpus() -> list[dict]:
    import csv
    with open(os.path.join(ROOT, "data", "gpus.csv")) as f:
        rows = {r["key"]: r for r in csv.DictReader(f)}
    return [dict(key=k, name=rows[k]["smi_name"], mem=int(rows[k]["memory_mib"]),
                 cap=rows[k]["compute_capability"]) for k in KV_GPUS if k in rows]


# ====================================================================== driver
def release_tree(version: str) -> str:
    import common
    d = os.path.join(common.CACHE, "src", f"vllm-{version}")
    if not os.path.exists(os.path.join(d, ".native-modules")):
        shutil.rmtree(d, ignore_errors=True)
        tmp = d + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        native = []
        with zipfile.ZipFile(common.wheel_path("vllm", version)) as z:
            for name in z.namelist():
                if not name.startswith("vllm/"):
                    continue
                if name.endswith(".so"):
                    native.append(name.split(".")[0].replace("/", "."))
                    continue
                z.extract(name, tmp)
        with open(os.path.join(tmp, ".native-modules"), "w") as f:
            f.write("\n".join(sorted(native)) + "\n")
        os.replace(tmp, d)
    return d


def package_sets() -> list[tuple[str, str]]:
    """The package sets the probe chooses among (the venv alone, then each non-kernel overlay)."""
    import common
    return [("venv", "-")] + common.overlay_sets("vllm", (KERNEL_SET,))


KERNEL_SET = "flashinfer-"


def wheel_pin(version: str, package: str) -> str | None:
    """The exact version the release's wheel pins `package` to (Requires-Dist: package==V)."""
    import common
    with zipfile.ZipFile(common.wheel_path("vllm", version)) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    for line in meta.splitlines():
        if line.startswith(f"Requires-Dist: {package}==") and ";" not in line:
            return line.split("==", 1)[1].strip()
    return None


# flashinfer-python pins that PyPI does not have -> the release used in their place (the next one
# PyPI has; overlays-vllm.txt says why). The header's kernel_set / packages name the one imported.
KERNEL_STANDINS = {"0.7.3": "0.7.4"}  # vllm 0.34.0: 0.7.3 was never on PyPI (0.7.2.post1, then 0.7.4)


def kernel_set(version: str) -> tuple[str, str]:
    """The overlay holding the FlashInfer the release pins (or its KERNEL_STANDINS stand-in); a
    serving install has it."""
    pin = wheel_pin(version, "flashinfer-python")
    name = f"{KERNEL_SET}{KERNEL_STANDINS.get(pin, pin)}"
    odir = os.path.join(VENV, "overlays", name)
    if pin is None or not os.path.isdir(odir):
        raise SystemExit(f"vllm {version} pins flashinfer-python=={pin}: add '{name} ...' to "
                         "overlays-vllm.txt and rerun setup_venv.sh vllm")
    return name, odir


def run_workers(version: str, overlay: str, cases: list[dict], jobs: int) -> tuple[list[dict], dict]:
    """Run cases in `jobs` worker processes of the venv; a worker that dies is restarted after the
    case it died on (recorded with an error)."""
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        raise SystemExit("no venv: run tools/engine-sync/setup_venv.sh vllm")
    src = release_tree(version)
    tmp = tempfile.mkdtemp(prefix=f"oracle-vllm-{version}-")
    kname, kdir = kernel_set(version)
    overlay = kdir if overlay in ("", "-") else overlay + os.pathsep + kdir
    # The kernels a serving install has (flashinfer-cubin, or `vllm download-kernels`), declared
    # with the switch vLLM's has_flashinfer_cubin() reads; no nvcc is needed then.
    env = dict(os.environ, VLLM_HAS_FLASHINFER_CUBIN="1", PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONWARNINGS="ignore", VLLM_LOGGING_LEVEL="CRITICAL", VLLM_NO_USAGE_STATS="1",
               VLLM_CACHE_ROOT=os.path.join(tmp, "vllm-cache"),
               ORACLE_CUDA_RUNTIME=str(wheel_cuda_major(version)))
    env.pop("PYTHONPATH", None)
    try:
        oracle.write_models(os.path.join(tmp, "models"))
        return worker_pool.run_cases(
            cases, jobs, tmp, env, os.path.join(tmp, "models"),
            lambda inp, out: [py, os.path.join(HERE, "vllm_oracle_worker.py"), src, overlay, inp,
                             out])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def wheel_cuda_major(version: str) -> int:
    """The CUDA runtime major the release's wheel is built against: its compiled _C*.so need
    libcudart.so.N (0 when no such library is named)."""
    import common
    import re as _re
    with zipfile.ZipFile(common.wheel_path("vllm", version)) as z:
        for n in z.namelist():
            if _re.match(r"vllm/_C.*\.so$", n):
                m = _re.search(rb"libcudart\.so\.(\d+)", z.read(n))
                if m:
                    return int(m.group(1))
    return 0


def probe_cases() -> list[dict]:
    """One plain case per model: H200, smallest tp that holds it, 40 GiB available, 4096 tokens."""
    g = next(g for g in load_gpus() if g["key"] == "h200")
    out = []
    for i, m in enumerate(oracle.load_models()):
        tp = next((t for t in (1, 2, 4, 8) if m["weight_gib"] / t < 0.85 * g["mem"] / 1024
                   and m["heads"] % t == 0), 8)
        out.append({"case": i, "kind": "kv", "model": m["id"], "gpu": g["key"], "gpu_name": g["name"],
                    "gpu_memory_mib": g["mem"], "capability": g["cap"], "tp": tp, "block_size": None,
                    "kv_cache_dtype": "auto", "max_model_len": 4096, "enable_prefix_caching": True,
                    "available_bytes": 40 << 30, "argv": []})
    return out


def fits_release(version: str, pset: tuple[str, str]) -> bool:
    """Whether the set's transformers meets the release's Requires-Dist (0.19.0: <5)."""
    import common
    from packaging.requirements import Requirement
    with zipfile.ZipFile(common.wheel_path("vllm", version)) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    spec = next((Requirement(l.split(":", 1)[1].strip()).specifier for l in meta.splitlines()
                 if l.startswith("Requires-Dist: transformers")), None)
    tf = versions_of(pset[1]).get("transformers")
    return spec is None or (tf is not None and spec.contains(tf))


def choose_package_set(version: str, forced: str | None) -> tuple[str, str, int | None]:
    sets = package_sets()
    if forced:
        sets = [s for s in sets if s[0] == forced]
        if not sets:
            raise SystemExit(f"unknown package set {forced}")
        return sets[0][0], sets[0][1], None
    sets.sort(key=lambda s: not fits_release(version, s))  # sets meeting the wheel's pins first
    probe = probe_cases()
    best = None
    for name, odir in sets:
        try:
            res, _ = run_workers(version, odir, probe, 2)
        except RuntimeError as e:
            print(f"  vllm {version} with {name}: {e}", file=sys.stderr)
            continue
        ok = sum(1 for r in res if "error" not in r)
        print(f"  vllm {version} with {name}: {ok}/{len(res)} probe cases resolve", file=sys.stderr)
        if best is None or ok > best[0]:
            best = (ok, name, odir)
        if ok == len(res) or (ok >= 0.9 * len(res) and fits_release(version, (name, odir))):
            break
    if best is None:
        raise SystemExit(f"vllm {version}: no package set imports")
    return best[1], best[2], best[0]


def reuse_kv(path: str, version: str, seed: int, cases: list[dict]) -> list[dict] | None:
    """The kv lines of an earlier run of the same release, seed and generated kv cases."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        head = json.loads(f.readline())
        old = [json.loads(l) for l in f]
    kv = [r for r in old if r.get("kind") == "kv"]
    if head.get("release") != version or head.get("seed") != seed or len(kv) != len(cases):
        return None
    strip = ("result", "error")
    if any({k: v for k, v in r.items() if k not in strip} != c for r, c in zip(kv, cases)):
        return None
    return kv


def versions_of(odir: str) -> dict:
    py = os.path.join(VENV, "bin", "python")
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for p in ('torch', 'transformers', 'tokenizers', 'huggingface_hub', 'pydantic', 'numpy', "
            "'compressed-tensors', 'xgrammar', 'flashinfer-python'):\n"
            "    try: out[p] = m.version(p)\n"
            "    except Exception: out[p] = None\n"
            "print(json.dumps(out))\n")
    env = dict(os.environ)
    if odir and odir != "-":
        env["PYTHONPATH"] = odir
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="*")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--overlay", help="package set: venv or an overlays-vllm.txt name (default: probe)")
    ap.add_argument("--config-cases", type=int, default=1000,
                    help="kind 'config' cases (EngineArgs.create_engine_config of generated launch commands)")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "oracle"))
    ap.add_argument("--reuse-kv", action="store_true",
                    help="take the kv cases from the existing output file when its seed and count match")
    a = ap.parse_args()
    versions = a.versions or default_versions()
    os.makedirs(a.out, exist_ok=True)
    for v in versions:
        t0 = time.time()
        name, odir, probe_ok = choose_package_set(v, a.overlay)
        cases = generate(v, a.cases, a.seed)
        ccases = generate_config(v, a.config_cases, a.seed, a.cases)
        path = os.path.join(a.out, f"vllm-{v}.jsonl")
        reused = reuse_kv(path, v, a.seed, cases) if a.reuse_kv else None
        t1 = time.time()
        if reused is not None:
            res, info = run_workers(v, odir, ccases, a.jobs) if ccases else ([], {})
            res = reused + res
            info["kv_reused_from"] = os.path.relpath(path, ROOT)
        else:
            res, info = run_workers(v, odir, cases + ccases, a.jobs)
        t2 = time.time()
        ok = sum(1 for r in res if "error" not in r)
        errs: dict = {}
        for r in res:
            if "error" in r:
                k = r["error"].split(":")[0]
                errs[k] = errs.get(k, 0) + 1
        cmd = (f"python3 tools/engine-sync/vllm_oracle.py {v} --cases {a.cases} --config-cases {a.config_cases} "
               f"--seed {a.seed} --overlay {name}")
        header = {"generated_by": cmd, "release": v, "seed": a.seed, "cases": len(res),
                  "kinds": {"kv": a.cases, "config": a.config_cases},
                  "resolved_by_kind": {k: sum(1 for r in res if r["kind"] == k and "error" not in r)
                                       for k in ("kv", "config")},
                  "resolved": ok, "errors": len(res) - ok, "error_kinds": errs, "patches": PATCHES,
                  "spec_construction": SPEC_CONSTRUCTION,
                  "available_bytes": "per GPU worker: the bytes vLLM's determine_available_memory would "
                                     "report for the KV cache (after weights, activation peak, CUDA graphs, "
                                     "i.e. already under gpu_memory_utilization); given to get_kv_cache_configs "
                                     "for each of the tp workers",
                  "package_set": name, "kernel_set": kernel_set(v)[0],
                  "kernel_pin": wheel_pin(v, "flashinfer-python"),
                  "packages": versions_of(os.pathsep.join(d for d in (odir, kernel_set(v)[1]) if d != "-")),
                  "requirements": "tools/engine-sync/requirements-vllm.lock"
                                  + (f" + overlays-vllm.txt {name}" if name != "venv" else "")
                                  + f" + overlays-vllm.txt {kernel_set(v)[0]}",
                  "date": datetime.date.today().isoformat(),
                  "seconds": {"choose_package_set": round(t1 - t0, 1), "run": round(t2 - t1, 1),
                              "import": info.get("import_s"), "jobs": a.jobs},
                  "mean_case_ms": info.get("mean_case_ms"), "probe_resolved": probe_ok,
                  "kv_reused_from": info.get("kv_reused_from")}
        sys.path.insert(0, HERE)
        import common
        common.write_jsonl(path, header, res)
        print(f"vllm {v}: {ok}/{len(res)} resolved with {name}, {t2 - t0:.0f} s -> "
              f"{os.path.relpath(path, ROOT)} errors {errs}", file=sys.stderr)


if __name__ == "__main__":
    main()
