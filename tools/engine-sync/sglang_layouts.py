#!/usr/bin/env python3
"""SGLang layouts: what an SGLang release's own KV pool arithmetic makes of every architecture
vLLM's model code was built from (tests/oracle/layouts/vllm-VLLM.jsonl, vllm_layouts.py), on this
CPU-only machine.

usage: sglang_layouts.py VERSION [--vllm-layouts VLLM_RELEASE] [--jobs 2] [--budget-gib 20]
Output: tests/oracle/layouts/sglang-VERSION.jsonl (a header line, then one line per case).

For each config of that file (its first config and its variants) whose architecture the SGLang
release's model registry lists (data/sglang/architectures.tsv), and for each listed architecture
vLLM did not build whose model_type transformers knows, the default config of that type with the
parameter bytes of transformers' own model class (hf_default_configs.py), two cases, tp 1 and tp 2, on a
faked H100 SXM: `--model-path layouts/ARCH[--VARIANT] --tp-size N` resolved by the release's own
ServerArgs and its KVCacheConfigurator driven with a fixed byte budget per GPU in place of the
measured free memory, exactly as oracle.py's pool cases are (oracle_worker.py, oracle_pool.py:
the same stubs, fakes and hand-set inputs). What SGLang keeps per token (cell_bytes_per_token), the
tokens and requests that budget gives, and the mamba state slots are recorded with the config, so
tests/oracle/sglang_layouts_test.cc can plan the same config with servescope and compare.
oracle_pool.py gives no sliding-window (hybrid SWA) pool, so the test leaves out the configs
servescope reads as sliding-window ones.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import common  # noqa: E402  write_jsonl
import oracle  # noqa: E402  release_tree, triton_stub_path, load_gpus, choose_package_set, PATCHES

GPU = "h100-sxm"


def listed_architectures(version: str) -> set[str]:
    """The text and multimodal architectures the release's registry lists."""
    from packaging.version import Version
    out = set()
    with open(os.path.join(ROOT, "data", "sglang", "architectures.tsv")) as f:
        rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    for r in rows[1:]:
        if r[1] in ("text", "multimodal") and Version(r[3]) <= Version(version) <= Version(r[4]):
            out.add(r[0])
    return out


def layout_configs(vllm_release: str) -> list[tuple[str, str, dict, dict | None]]:
    """(architecture, model folder name, config, remote config class) of every config vLLM built.
    The last is given for a hand-written config of layout_configs.json (a remote-code checkpoint's):
    its model_type, attribute_map and base_class, for the worker to register as
    --trust-remote-code would load the checkpoint's class (remote_config.py)."""
    out = []
    path = os.path.join(ROOT, "tests", "oracle", "layouts", f"vllm-{vllm_release}.jsonl")
    hand = json.load(open(os.path.join(HERE, "layout_configs.json")))["configs"]
    for line in open(path):
        r = json.loads(line)
        if "generated_by" in r or "layers" not in r:
            continue
        folder = r["architecture"] + (f"--{r['variant']}" if r.get("variant") else "")
        remote = None
        if r.get("model_type_from") == "layout_configs.json" and r["architecture"] in hand:
            e = hand[r["architecture"]]
            remote = {"model_type": e["config"]["model_type"], "attribute_map": e.get("attribute_map"),
                      "base_class": e.get("base_class")}
        out.append((r["architecture"], folder, r["config"], remote))
    return out


def transformers_defaults(listed: set[str], built: set[str]) -> list[dict]:
    """For the listed architectures vLLM did not build whose model_type transformers knows
    (data/architecture-model-types.tsv): the default config of that model_type and the parameter
    bytes of transformers' own model class on the meta device (hf_default_configs.py, in the
    SGLang venv), the weights oracle of architectures vLLM no longer serves."""
    types = {}
    with open(os.path.join(ROOT, "data", "architecture-model-types.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(cols) >= 2 and cols[0] != "architecture":
                types.setdefault(cols[0], cols[1])
    wanted = sorted([a, types[a]] for a in listed - built if a in types)
    tmp = tempfile.mkdtemp(prefix="hf-defaults-")
    try:
        with open(os.path.join(tmp, "in.json"), "w") as f:
            json.dump(wanted, f)
        subprocess.run([os.path.join(HERE, ".venv-sglang", "bin", "python"),
                        os.path.join(HERE, "hf_default_configs.py"), os.path.join(tmp, "in.json"),
                        os.path.join(tmp, "out.jsonl")], check=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
        return [json.loads(l) for l in open(os.path.join(tmp, "out.jsonl"))]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# transformers 5.19 writes a Nemotron-H layer list with linear_attention / full_attention, which
# SGLang 0.5.23's own NemotronHConfig rejects ("Must be one of: moe, attention, mamba, mlp");
# the same layers in SGLang's names (as its checkpoints' configs load) are what it serves.
SGLANG_LAYER_NAMES = {"nemotron_h": {"linear_attention": "mamba", "full_attention": "attention"}}


# transformers 5.19 writes DBRX's ffn_config with a hidden_size, which the DbrxFFNConfig of the
# transformers SGLang 0.5.23 pins rejects ("Found unknown kwargs"); published DBRX configs
# (databricks/dbrx-instruct) carry none, and vLLM builds the same model without it.
def without_written_only_keys(config: dict) -> dict:
    ffn = config.get("ffn_config")
    if config.get("model_type") != "dbrx" or not isinstance(ffn, dict) or "hidden_size" not in ffn:
        return config
    return dict(config, ffn_config={k: v for k, v in ffn.items() if k != "hidden_size"})


def in_sglang_names(config: dict) -> dict:
    config = without_written_only_keys(config)
    names = SGLANG_LAYER_NAMES.get(config.get("model_type", ""))
    if not names or not isinstance(config.get("layers_block_type"), list):
        return config
    return dict(config, layers_block_type=[names.get(t, t) for t in config["layers_block_type"]])


# Architectures SGLang registers under other class names than transformers and vLLM for the same
# model: its ernie4.py serves ERNIE 4.5 dense as Ernie4_5_ForCausalLM (the name of Baidu's
# remote-code checkpoints; model_type ernie4_5) where transformers and vLLM say
# Ernie4_5ForCausalLM; bailing_moe.py's BailingMoEForCausalLM is the class BailingMoeForCausalLM
# subclasses unchanged; model_loader/utils.py serves a Mixtral quantized other than by fp8,
# compressed-tensors, GPTQ/AWQ Marlin or Quark as QuantMixtralForCausalLM (mixtral_quant.py, the
# same layers). The config vLLM built, under SGLang's name, is that architecture's case.
SGLANG_ARCHITECTURE_NAMES = {
    "Ernie4_5ForCausalLM": ["Ernie4_5_ForCausalLM"],
    "BailingMoeForCausalLM": ["BailingMoEForCausalLM"],
    "MixtralForCausalLM": ["QuantMixtralForCausalLM"],
}


def under_sglang_names(configs: list[tuple], listed: set[str]) -> list[tuple]:
    out = []
    for arch, folder, config, hf_bytes, remote in configs:
        for name in SGLANG_ARCHITECTURE_NAMES.get(arch, []):
            if name in listed:
                out.append((name, folder.replace(arch, name, 1),
                            dict(config, architectures=[name]), hf_bytes, remote))
    return out


def cases_for(version: str, vllm_release: str, budget_gib: float) -> list[dict]:
    gpu = next(g for g in oracle.load_gpus() if g["key"] == GPU)
    listed = listed_architectures(version)
    configs = [(arch, folder, in_sglang_names(config), None, remote)
               for arch, folder, config, remote in layout_configs(vllm_release)]
    configs += under_sglang_names(configs, listed)
    built = {c[0] for c in configs}
    for d in transformers_defaults(listed, built):
        if "config" in d:
            configs.append((d["architecture"], d["architecture"] + "--hf", d["config"],
                            d.get("param_bytes"), None))
    cases = []
    for arch, folder, config, hf_bytes, remote in configs:
        if arch not in listed:
            continue
        for tp in (1, 2):
            case = {"case": len(cases), "model": f"layouts/{folder}", "architecture": arch,
                    "config": config, "gpu": GPU, "gpu_name": gpu["name"],
                    "gpu_memory_mib": gpu["mem"], "capability": gpu["cap"], "gpu_count": 8,
                    "argv": ["--tp-size", str(tp)],
                    "pool": {"kv_budget_bytes": int(budget_gib * (1 << 30))}}
            if hf_bytes is not None:
                case["hf_param_bytes"] = hf_bytes  # transformers' own model, all ranks together
            if remote is not None:
                case["remote_config"] = remote
            cases.append(case)
    return cases


def run(version: str, overlay: str, cases: list[dict], jobs: int) -> tuple[list[dict], dict]:
    import worker_pool
    py = os.path.join(HERE, ".venv-sglang", "bin", "python")
    src, stub = oracle.release_tree(version), oracle.triton_stub_path()
    tmp = tempfile.mkdtemp(prefix=f"sglang-layouts-{version}-")
    models = os.path.join(tmp, "models")
    for c in cases:
        d = os.path.join(models, c["model"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(c["config"], f)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONWARNINGS="ignore")
    env.pop("PYTHONPATH", None)
    worker_cases = [{k: v for k, v in c.items() if k not in ("config", "architecture", "hf_param_bytes")}
                    for c in cases]
    try:
        return worker_pool.run_cases(
            worker_cases, jobs, tmp, env, models,
            lambda inp, out: [py, os.path.join(HERE, "oracle.py"), "--worker", src, overlay, stub, inp,
                             out, "1"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version")
    ap.add_argument("--vllm-layouts", default="0.34.0")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budget-gib", type=float, default=20.0)
    ap.add_argument("--overlay", default="venv")
    a = ap.parse_args()
    t0 = time.time()
    name, odir, tfv = oracle.choose_package_set(a.version, a.overlay)
    cases = cases_for(a.version, a.vllm_layouts, a.budget_gib)
    res, info = run(a.version, odir, cases, a.jobs)
    by_case = {c["case"]: c for c in cases}
    for r in res:
        c = by_case[r["case"]]
        r["architecture"], r["config"] = c["architecture"], c["config"]
        if "hf_param_bytes" in c:
            r["hf_param_bytes"] = c["hf_param_bytes"]
    ok = sum(1 for r in res if "error" not in r and "error" not in r.get("pool", {}))
    header = {"generated_by": f"python3 tools/engine-sync/sglang_layouts.py {a.version} --vllm-layouts "
                              f"{a.vllm_layouts} --budget-gib {a.budget_gib:g} --overlay {name}",
              "release": a.version, "vllm_layouts": a.vllm_layouts, "cases": len(res), "pooled": ok,
              "errors": len(res) - ok, "package_set": name, "transformers": tfv,
              "date": datetime.date.today().isoformat(), "seconds": round(time.time() - t0, 1),
              "patches": oracle.PATCHES, "pool_inputs": oracle.POOL_INPUTS}
    path = os.path.join(ROOT, "tests", "oracle", "layouts", f"sglang-{a.version}.jsonl")
    common.write_jsonl(path, header, sorted(res, key=lambda r: r["case"]))
    print(f"sglang {a.version}: {ok}/{len(res)} cases pooled, {time.time() - t0:.0f} s -> "
          f"{os.path.relpath(path, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
