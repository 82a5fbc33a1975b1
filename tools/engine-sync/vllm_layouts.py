#!/usr/bin/env python3
"""vLLM layouts: each registered architecture's per-layer KV-cache specs and weight bytes, learnt from
a vLLM release's own model code (built on the meta device), on this CPU-only machine.

usage: vllm_layouts.py VERSION [--arch NAME ...] [--jobs 1] [--timeout 120] [--out PATH]
Default output: tests/oracle/layouts/vllm-VERSION.jsonl. With --arch, only those architectures are
built and their lines replace the ones of an existing output file (the rest are kept).

Architectures: vllm.model_executor.models.registry's _TEXT_GENERATION_MODELS (kind "text") and
_MULTIMODAL_MODELS (kind "multimodal"); the other lists (pooling, embedding, classification,
speculative, Transformers backend) are only counted. Per architecture, in a worker of .venv-vllm
(vllm_layouts_worker.py, the oracle's patches: vllm_oracle_worker.bootstrap): a config (data/models,
a hand-written one of layout_configs.json, or the defaults of the config class vLLM loads for the
model type, patched from layout_configs.json when the build names a missing or refused field), EngineArgs(...,
skip_tokenizer_init, tp 1, enforce_eager, load_format dummy, max_model_len <= 4096)
.create_engine_config(), a one-process gloo world, vLLM's initialize_model on the meta device,
update_block_size_for_backend, then the GPU model runner's get_kv_cache_spec(vllm_config); the
layers' specs grouped, and the parameters + persistent buffers summed. See README.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import vllm_oracle  # noqa: E402  release_tree, kernel_set, VENV

METHOD = (
    "per architecture of registry._TEXT_GENERATION_MODELS + _MULTIMODAL_MODELS: config = data/models/*.json "
    "with architectures[0] == ARCH (unquantized first, then file name) else the defaults of the config class "
    "vLLM loads for the model type (vllm.transformers_utils.config._CONFIG_REGISTRY, else transformers "
    "AutoConfig.for_model), model_type from vLLM's _ARCHITECTURE_TO_MODEL_TYPE, transformers' auto model "
    "mappings inverted, or the vLLM module name; architectures=[ARCH]; config.json of a temp folder; "
    "EngineArgs(model=DIR, skip_tokenizer_init=True, tensor_parallel_size=1, enforce_eager=True, "
    "load_format='dummy', max_model_len=4096 (the model's own when smaller)).create_engine_config(); "
    "init_distributed_environment(world 1, gloo) + ensure_model_parallel_initialized(1, 1); "
    "set_default_torch_dtype(model dtype) + torch.device('meta') + model_loader.utils.initialize_model; "
    "current_platform.update_block_size_for_backend(vllm_config) (faked H100, FlashInfer present); "
    "vllm.v1.worker.gpu.attn_utils.get_kv_cache_spec(vllm_config) (KV-sharing layers left out, as the "
    "GPU model runner); weights = named_parameters() + persistent buffers (numel, numel*element_size); "
    "then the same at tensor_parallel_size=2 under 'tp2' (one process: the TP/EP group coordinators "
    "answer world size 2, rank 0; layer names left out). Remote-code architectures without a config class: "
    "the hand-written config of layout_configs.json 'configs' (published fields of the named checkpoint; an "
    "unknown model_type gets a plain PretrainedConfig subclass registered). A build that fails on a field the "
    "default config lacks (AttributeError naming it) or on a default the model refuses (a message listed under "
    "'on_error') is retried, at most " + "8 times, with the values of layout_configs.json 'patches' for the model "
    "type (from a published checkpoint of the family): line fields config_patches (path -> value set), "
    "config_patches_source; 'config' is the patched config")


# Pure-Python requirements of the release's wheel that model modules import at the top and the shared
# venv lacks (mistral_common: pixtral/llava/mistral3/voxtral; timm: OpenVLA, TimmWrapper), with what
# they import; installed once (pip --no-deps --target) into .cache/layouts-extras-N/ and put on the
# workers' sys.path after the release's package set. Bump N when the list changes.
EXTRAS_SET = "layouts-extras-1"
EXTRAS = ["mistral_common==1.13.1", "tiktoken==0.14.0", "pydantic-extra-types==2.11.1", "pycountry==26.2.16",
          "timm==1.0.31"]


def extras_dir() -> str:
    import common
    d = os.path.join(common.CACHE, EXTRAS_SET)
    if not os.path.exists(os.path.join(d, ".complete")):
        shutil.rmtree(d, ignore_errors=True)
        pip = os.path.join(vllm_oracle.VENV, "bin", "pip")
        subprocess.run([pip, "install", "-q", "--disable-pip-version-check", "--no-deps", "--target", d, *EXTRAS],
                       check=True)
        open(os.path.join(d, ".complete"), "w").close()
    return d


PATCHES = (
    "the oracle's (vllm_oracle_worker.bootstrap: compiled extensions stubbed, faked H100 CUDA platform, "
    "FlashInfer importable, in-process model inspection); torch.empty/zeros restored to the builtins "
    "(torch.device('meta') places them); explicit GPU devices go to meta and torch.tensor/as_tensor "
    "values are real CPU tensors; torch.cuda.Stream/Event/current_device inert; GPU-DSL kernel modules "
    "of the release (top-level import cutlass/quack/tilelang/tokenspeed_mla/humming) and the vendored "
    "DeepGEMM .so loader stubbed; torchaudio inert; " + EXTRAS_SET + ": " + " ".join(EXTRAS)
    + " (pure-Python requirements of the wheel, pip --target)")


def worker_env(tmp: str) -> dict:
    # the oracle's worker environment (vllm_oracle.run_workers)
    env = dict(os.environ, VLLM_HAS_FLASHINFER_CUBIN="1", PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore", VLLM_LOGGING_LEVEL="CRITICAL",
               VLLM_NO_USAGE_STATS="1", VLLM_CACHE_ROOT=os.path.join(tmp, "vllm-cache"))
    env["VLLM_LOGGING_LEVEL"] = os.environ.get("LAYOUTS_LOG_LEVEL", "CRITICAL")
    env.pop("PYTHONPATH", None)
    return env


def worker_argv(version: str, *rest: str) -> list[str]:
    py = os.path.join(vllm_oracle.VENV, "bin", "python")
    if not os.path.exists(py):
        raise SystemExit("no venv: run tools/engine-sync/setup_venv.sh vllm")
    src = vllm_oracle.release_tree(version)
    _, kdir = vllm_oracle.kernel_set(version)
    return [py, os.path.join(HERE, "vllm_layouts_worker.py"), src, kdir + os.pathsep + extras_dir(), *rest]


def list_registry(version: str, tmp: str) -> dict:
    path = os.path.join(tmp, "list.json")
    r = subprocess.run(worker_argv(version, "list", path), env=worker_env(tmp), cwd=tmp,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or not os.path.exists(path):
        raise SystemExit("worker failed to list the registry:\n" + r.stderr[-3000:])
    return json.load(open(path))


MEMORY_LIMIT = 8 << 30  # address space per worker: a model that allocates real weights fails with
# MemoryError (its line says so) instead of waking the OOM killer; a meta build needs < 3 GiB


def limit_memory() -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


class Worker:
    """One worker process building a list of architectures; reads its output as it grows."""

    def __init__(self, version, items, tmp, n):
        self.items, self.base = items, os.path.join(tmp, f"w{n}")
        with open(self.base + ".in", "w") as f:
            for it in items:
                f.write(json.dumps(it) + "\n")
        self.err = open(self.base + ".err", "w")
        self.p = subprocess.Popen(worker_argv(version, "build", self.base + ".in", self.base + ".out"),
                                  env=worker_env(tmp), cwd=tmp, stdout=subprocess.DEVNULL,
                                  stderr=self.err, start_new_session=True, preexec_fn=limit_memory)
        self.pos = self.done = 0
        self.results: list[dict] = []
        self.timing: dict = {}
        self.current, self.since, self.import_s = None, None, None

    def poll(self) -> None:
        if not os.path.exists(self.base + ".out"):
            return
        with open(self.base + ".out") as f:
            f.seek(self.pos)
            while True:
                line = f.readline()
                if not line.endswith("\n"):
                    break
                self.pos = f.tell()
                d = json.loads(line)
                if "worker" in d:
                    self.import_s = d["worker"]["import_s"]
                elif "start" in d:
                    self.current, self.since = d["start"], time.time()
                elif "timing" in d:
                    self.timing[d["timing"]] = d["s"]
                else:
                    self.results.append(d)
                    self.done += 1
                    self.current = None

    def kill(self) -> None:
        try:
            os.killpg(self.p.pid, signal.SIGKILL)  # the worker's own session (start_new_session)
        except ProcessLookupError:
            pass
        self.p.wait()

    def last_err(self) -> str:
        self.err.flush()
        lines = [l for l in open(self.base + ".err").read().splitlines()
                 if l.strip() and "Triton not available" not in l]
        return (lines[-1] if lines else f"exit {self.p.returncode}")[:200]


def run(version: str, items: list[dict], jobs: int, timeout: float, tmp: str) -> tuple[list[dict], dict]:
    """Build items in `jobs` workers; a worker that dies or exceeds the timeout on an architecture is
    killed, that architecture gets an error line, and a new worker takes the rest."""
    results: dict[str, dict] = {}
    timing: dict = {}
    info: dict = {}
    n = shown = 0
    running = []
    for j in range(jobs):
        if items[j::jobs]:
            running.append(Worker(version, items[j::jobs], tmp, n))
            n += 1
    while running:
        time.sleep(0.5)
        still = []
        for w in running:
            w.poll()
            alive = w.p.poll() is None
            if alive and not (w.current and time.time() - w.since > timeout):
                still.append(w)
            else:
                if alive:
                    w.kill()
                    why = f"Timeout: no result within {timeout:.0f} s"
                else:
                    w.poll()  # the last lines
                    why = f"WorkerDied: {w.last_err()}"
                left = w.items[w.done:]
                if left:
                    if w.import_s is None:
                        raise SystemExit(f"worker failed to start: {w.last_err()}")
                    bad = left[0]
                    results[key(bad)] = dict(architecture=bad["architecture"], kind=bad["kind"], error=why,
                                             **({"variant": bad["variant"]} if bad.get("variant") else {}))
                    print(f"\n  {key(bad)}: {why}", file=sys.stderr)
                    if left[1:]:
                        still.append(Worker(version, left[1:], tmp, n))
                        n += 1
            for r in w.results:
                results[key(r)] = r
            w.results = []
            timing.update(w.timing)
            if w.import_s is not None:
                info.setdefault("import_s", w.import_s)
        running = still
        if len(results) != shown:
            shown = len(results)
            print(f"\r  {shown}/{len(items)} built or refused", end="", file=sys.stderr)
    print(file=sys.stderr)
    return [results[key(it)] for it in items], dict(info, timing=timing)


def key(it: dict) -> str:
    """An item's or a line's name: the architecture, and its variant (layout_configs.json)."""
    return it["architecture"] + (f"#{it['variant']}" if it.get("variant") else "")


def with_variants(items: list[dict]) -> list[dict]:
    """Each item, then an item per variant of its architecture in layout_configs.json."""
    variants = json.load(open(os.path.join(HERE, "layout_configs.json"))).get("variants", {})
    out = []
    for it in items:
        out.append(it)
        out += [dict(it, variant=v["name"]) for v in variants.get(it["architecture"], [])]
    return out


def error_kind(msg: str) -> str:
    return msg.split(":")[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version")
    ap.add_argument("--arch", nargs="*", default=None, help="only these architectures (merged into --out)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per architecture")
    ap.add_argument("--out", help="default tests/oracle/layouts/vllm-VERSION.jsonl")
    ap.add_argument("--debug", metavar="DIR", help="keep the workers' stderr, with each failure's traceback, in DIR")
    a = ap.parse_args()
    v = a.version
    out = a.out or os.path.join(ROOT, "tests", "oracle", "layouts", f"vllm-{v}.jsonl")
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix=f"vllm-layouts-{v}-")
    try:
        reg = list_registry(v, tmp)
        items = [{"architecture": x, "kind": "text", "module": reg["modules"][x]} for x in reg["text"]]
        items += [{"architecture": x, "kind": "multimodal", "module": reg["modules"][x]} for x in reg["multimodal"]]
        items = with_variants(items)
        old: dict[str, dict] = {}
        if a.arch:
            unknown = [x for x in a.arch if x not in reg["modules"]]
            if unknown:
                raise SystemExit(f"not a text/multimodal architecture of vllm {v}: {' '.join(unknown)}")
            if os.path.exists(out):
                with open(out) as f:
                    head = json.loads(f.readline())
                    if head.get("release") == v:
                        old = {key(d): d for d in map(json.loads, f)}
            todo = [it for it in items if it["architecture"] in set(a.arch)]
        else:
            todo = items
        print(f"vllm {v}: {len(todo)} architectures, {a.jobs} worker(s)", file=sys.stderr)
        if a.debug:  # tracebacks, and vLLM's own error log lines (e.g. why inspection failed)
            os.environ["LAYOUTS_TRACEBACK"] = "1"
            os.environ["LAYOUTS_LOG_LEVEL"] = "ERROR"
        res, info = run(v, todo, a.jobs, a.timeout, tmp)
    finally:
        if a.debug:
            os.makedirs(a.debug, exist_ok=True)
            for p in os.listdir(tmp):
                if p.endswith(".err"):
                    shutil.copy(os.path.join(tmp, p), os.path.join(a.debug, p))
        shutil.rmtree(tmp, ignore_errors=True)
    got = {key(r): r for r in res}
    lines = []
    for it in items:  # registry order: text, then multimodal, each architecture's variants after it
        r = got.get(key(it)) or old.get(key(it))
        if r is not None:
            lines.append(r)
    built = sum(1 for r in lines if "error" not in r)
    kinds: dict = {}
    for r in lines:
        if "error" in r:
            kinds[error_kind(r["error"])] = kinds.get(error_kind(r["error"]), 0) + 1
    cmd = f"python3 tools/engine-sync/vllm_layouts.py {v}" + (f" --arch {' '.join(a.arch)}" if a.arch else "") \
        + f" --jobs {a.jobs} --timeout {a.timeout:g}"
    secs = round(time.time() - t0, 1)
    slow = sorted(info.get("timing", {}).items(), key=lambda kv: -kv[1])[:5]
    header = {"generated_by": cmd, "release": v, "transformers": reg["packages"].get("transformers"),
              "date": datetime.date.today().isoformat(),
              "registered": {"text": len(reg["text"]), "multimodal": len(reg["multimodal"]),
                             "skipped_other": reg["skipped_other"]},
              "skipped_by_list": reg["skipped_by_list"],
              "lines": len(lines), "built": built, "errors": len(lines) - built,
              "variants": {"lines": sum(1 for r in lines if r.get("variant")),
                           "built": sum(1 for r in lines if r.get("variant") and "error" not in r)},
              "built_from_layout_configs": {
                  "hand_written": sum(1 for r in lines if "error" not in r
                                      and r.get("model_type_from") == "layout_configs.json"),
                  "config_patches": sum(1 for r in lines if "error" not in r and r.get("config_patches"))},
              "tp2": {"built": sum(1 for r in lines if "layers" in r.get("tp2", {})),
                      "errors": sum(1 for r in lines if "error" in r.get("tp2", {}))},
              "errors_by_type": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
              "seconds": secs, "timing": {"import_s": info.get("import_s"), "slowest_s": dict(slow)},
              "rebuilt": len(todo) if a.arch else None,
              "packages": reg["packages"], "kernel_set": vllm_oracle.kernel_set(v)[0],
              "platform": "faked CUDA H100 80GB HBM3 (capability 9.0), FlashInfer importable",
              "method": METHOD, "patches": PATCHES}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        f.write(json.dumps(header) + "\n")
        for r in lines:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    os.replace(out + ".tmp", out)
    print(f"vllm {v}: {built}/{len(lines)} built, {secs:.0f} s -> {os.path.relpath(out, ROOT)}; errors {kinds}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
