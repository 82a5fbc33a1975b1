"""The oracle's worker: runs inside .venv-sglang with one release's unpacked tree first on sys.path.
Started by oracle.py (`oracle.py --worker SRC OVERLAY STUB IN.jsonl OUT.jsonl POOL`); cwd is a
folder holding ORG/NAME/config.json for every model, so `--model-path ORG/NAME` is local.
Writes one JSON line per case to OUT (flushed), and a last line {"worker": {...}}.
See oracle.py for the patch set and README.md for the record's fields."""
from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import json
import logging
import os
import pkgutil
import sys
import time
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- the current fake GPU
CUR: dict = {}


def gpu_values(case: dict) -> dict:
    major, minor = (int(x) for x in case["capability"].split("."))
    cap, mem, n = (major, minor), case["gpu_memory_mib"], case["gpu_count"]
    return {
        "is_cuda": True, "is_cuda_alike": True, "is_hip": False, "is_npu": False,
        "is_xpu": False, "is_hpu": False, "is_musa": False, "is_mps": False, "is_cpu": False,
        "is_sail": False,
        "is_sm80_supported": major >= 8, "is_sm90_supported": major == 9,
        "is_hopper_with_cuda_12_3": major == 9, "is_ampere_with_cuda_12_3": major == 8,
        "is_sm100_supported": major == 10, "is_sm110_supported": major == 11,
        "is_sm100_or_sm110_supported": major in (10, 11), "is_sm120_supported": major == 12,
        "is_blackwell_supported": major in (10, 11, 12), "is_blackwell": major in (10, 11, 12),
        "is_sm120": cap == (12, 0), "is_sm121": cap == (12, 1),
        "get_device_sm": major * 10 + minor, "get_device_capability": cap,
        "is_flashinfer_available": True, "cpu_has_amx_support": False,
        "get_device": "cuda", "get_device_memory_capacity": mem,
        "get_nvgpu_memory_capacity": mem, "get_device_name": case["gpu_name"],
        "get_device_count": n, "is_mnnvl_fabric_device": False,
        "get_nvidia_driver_version": (580, 95, 5), "get_nvidia_driver_version_str": "580.95.05",
    }


def platform_facts(case: dict) -> dict:
    v = gpu_values(case)
    major = v["get_device_capability"][0]
    return dict(is_cuda=True, is_hip=False, is_npu=False, is_xpu=False, is_musa=False,
                is_mps=False, is_sm90=major == 9, is_sm100=major == 10,
                is_sm100_or_sm110=major in (10, 11), is_sm110=major == 11,
                is_sm120=major == 12, is_blackwell=major in (10, 11, 12),
                is_hopper_with_cuda_12_3=major == 9, has_amx=False, has_flashinfer=True,
                device_sm=v["get_device_sm"], device_capability=v["get_device_capability"])


def install_fakes() -> int:
    """Replace the device probes of sglang.srt.utils.common, by identity, in every loaded
    sglang.* module with functions answering CUR; and torch.cuda's few device queries."""
    import torch
    import sglang.srt.utils.common as C
    names = list(gpu_values({"capability": "9.0", "gpu_memory_mib": 1, "gpu_count": 1, "gpu_name": ""}))
    n = 0
    for name in names:
        orig = getattr(C, name, None)
        if orig is None:
            continue
        fake = (lambda k: lambda *a, **kw: CUR[k])(name)
        fake.__name__ = name
        for mn, mod in list(sys.modules.items()):
            if mod is None or not (mn == "sglang" or mn.startswith("sglang.")):
                continue
            for attr, obj in list(getattr(mod, "__dict__", {}).items()):
                if obj is orig:
                    setattr(mod, attr, fake)
                    n += 1
    torch.version.cuda = "12.9"
    torch.cuda.get_device_capability = lambda d=None: CUR["get_device_capability"]
    torch.cuda.get_device_name = lambda d=None: CUR["get_device_name"]
    torch.cuda.device_count = lambda: CUR["get_device_count"]
    torch.cuda.get_device_properties = lambda d=None: types.SimpleNamespace(
        name=CUR["get_device_name"], major=CUR["get_device_capability"][0],
        minor=CUR["get_device_capability"][1], total_memory=CUR["get_device_memory_capacity"] << 20,
        multi_processor_count=132, uuid="GPU-fake")
    torch.cuda.mem_get_info = lambda d=None: (CUR["get_device_memory_capacity"] << 20,) * 2
    plat = _try_import("sglang.srt.platforms")
    cuda_plat = _try_import("sglang.srt.platforms.cuda")
    if plat is not None and cuda_plat is not None and hasattr(cuda_plat, "CudaSRTPlatform"):
        plat._current_platform = cuda_plat.CudaSRTPlatform()
    return n


def register_cuda_quantization() -> list[str]:
    """layers/quantization/__init__.py registers `mxfp4` (Mxfp4Config) only when is_cuda() is true
    at import time; the import ran on the honest CPU box, so add what the CUDA branch adds."""
    q = _try_import("sglang.srt.layers.quantization")
    added = []
    if q is None or not hasattr(q, "Mxfp4Config"):
        return added
    for name in ("BASE_QUANTIZATION_METHODS", "QUANTIZATION_METHODS"):
        d = getattr(q, name, None)
        if isinstance(d, dict) and "mxfp4" not in d:
            d["mxfp4"] = q.Mxfp4Config
            added.append(name)
    return added


def _try_import(name):
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001
        return None


def preimport() -> dict:
    """Import, still honestly on CPU, what the resolution imports lazily."""
    mods = ["sglang.srt.server_args", "sglang.srt.configs.model_config",
            "sglang.srt.utils.hf_transformers_utils", "sglang.srt.speculative.spec_info"]
    for pkg in ("sglang.srt.arg_groups", "sglang.srt.arg_groups.model_overrides"):
        try:
            p = importlib.import_module(pkg)
            mods += [m.name for m in pkgutil.iter_modules(p.__path__, pkg + ".")]
        except ImportError:
            pass
    mods += ["sglang.srt.kernel_plugins.amd.binding", "sglang.srt.kernel_plugins.nvidia.binding",
             "sglang.srt.platforms.cuda", "sglang.srt.layers.attention.attention_registry",
             "sglang.srt.runtime_context", "sglang.srt.model_executor.cuda_graph_config",
             # the pool arithmetic (0.5.16+), before faking: else sgl_kernel is imported
             "sglang.srt.mem_cache.kv_cache_configurator", "sglang.srt.model_executor.pool_configurator",
             "sglang.srt.model_executor.model_runner_components.layer_setup", "sglang.srt.configs.hybrid_arch"]
    failed = {}
    for m in mods:
        try:
            importlib.import_module(m)
        except Exception as e:  # noqa: BLE001
            failed[m] = f"{type(e).__name__}: {e}"[:160]
    return failed


# ---------------------------------------------------------------- reading the record
def plain(v):
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if hasattr(v, "__struct_fields__"):
        return {f: plain(getattr(v, f)) for f in v.__struct_fields__}
    if isinstance(v, enum.Enum):
        return plain(v.value)
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [plain(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


PLAIN_FIELDS = ["mem_fraction_static", "chunked_prefill_size", "max_prefill_tokens", "page_size",
                "max_running_requests", "context_length", "attention_backend",
                "prefill_attention_backend", "decode_attention_backend", "kv_cache_dtype",
                "disable_cuda_graph", "speculative_algorithm", "speculative_num_steps",
                "speculative_eagle_topk", "speculative_num_draft_tokens", "disable_radix_cache",
                "tp_size", "pp_size", "dp_size", "enable_dp_attention", "moe_runner_backend",
                "quantization"]


def record(d: dict) -> dict:
    r = {k: plain(d.get(k)) for k in PLAIN_FIELDS}
    if "attn_dp_size" in d:
        r["attn_dp_size"] = plain(d["attn_dp_size"])
    cg = plain(d.get("cuda_graph_config"))
    if isinstance(cg, dict):  # 0.5.16+
        dec, pre = cg.get("decode") or {}, cg.get("prefill") or {}
        r["cuda_graph_decode_backend"] = dec.get("backend")
        r["cuda_graph_decode_max_bs"] = dec.get("max_bs")
        r["cuda_graph_decode_bs"] = dec.get("bs")
        r["cuda_graph_prefill_backend"] = pre.get("backend")
        r["cuda_graph_prefill_max_bs"] = pre.get("max_bs")
        r["cuda_graph_prefill_bs"] = pre.get("bs")
        r["prefill_graph_enabled"] = pre.get("backend") not in (None, "disabled")
    else:  # 0.5.9: decode graphs = cuda_graph_*; prefill graphs = piecewise (token counts)
        pw = bool(d.get("enable_piecewise_cuda_graph")) and not d.get("disable_cuda_graph")
        r["cuda_graph_decode_backend"] = "disabled" if d.get("disable_cuda_graph") else "full"
        r["cuda_graph_decode_max_bs"] = plain(d.get("cuda_graph_max_bs"))
        r["cuda_graph_decode_bs"] = plain(d.get("cuda_graph_bs"))
        r["cuda_graph_prefill_backend"] = "piecewise" if pw else "disabled"
        r["cuda_graph_prefill_max_bs"] = plain(d.get("piecewise_cuda_graph_max_tokens"))
        r["cuda_graph_prefill_bs"] = plain(d.get("piecewise_cuda_graph_tokens"))
        r["prefill_graph_enabled"] = pw
    if "mamba_radix_cache_strategy" in d:
        r["mamba_strategy"] = plain(d["mamba_radix_cache_strategy"])
    else:
        r["mamba_strategy"] = plain(d.get("mamba_scheduler_strategy"))
    return r


def short_error(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:300]


class ParseError(Exception):
    pass


# ---------------------------------------------------------------- main
def main(argv: list[str]) -> None:
    src, overlay, stub, inp, out, pool = argv
    t0 = time.time()
    sys.path.insert(0, src)
    if overlay:
        sys.path.insert(1, overlay)
    sys.path.append(HERE)
    os.environ.setdefault("SGLANG_DISABLE_OUTLINES_DISK_CACHE", "1")
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    from stubs import install_stub_modules, install_sglang_triton_stub
    install_stub_modules(["torchvision"], versions={"torchvision": "0.28.0"})
    install_stub_modules(["decord"])
    import importlib.util
    if importlib.util.find_spec("triton") is None:
        pkg = os.path.join(src, "sglang")
        if stub and not os.path.exists(os.path.join(pkg, "_platform_stubs.py")):
            os.environ["SG_ORACLE_TRITON_STUB"] = stub
        install_sglang_triton_stub(pkg)
    from sglang.srt.server_args import ServerArgs
    import sglang
    if not os.path.abspath(sglang.__file__).startswith(os.path.abspath(src)):
        raise SystemExit(f"imported {sglang.__file__}, not the release under {src}")
    failed = preimport()
    logging.disable(logging.WARNING)
    t_imp = time.time() - t0
    n_patched = install_fakes()
    quant_added = register_cuda_quantization()
    rc = sys.modules.get("sglang.srt.runtime_context")
    override = getattr(rc, "override_platform", None)
    known_facts = set(getattr(rc, "_PLATFORM_PROBES", {})) | set(getattr(rc, "_PLATFORM_VALUES", {}))
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)

    def _err(msg):
        raise ParseError(msg)
    parser.error = _err
    do_pool = pool == "1"
    if do_pool:
        import oracle_pool
        do_pool = oracle_pool.available()
    with open(inp) as f:
        cases = [json.loads(l) for l in f]
    times = []
    with open(out, "w") as fo:
        fo.write(json.dumps({"worker": {"import_s": round(t_imp, 2), "preimport_failed": failed,
                                        "n_patched": n_patched,
                                        "quant_registered": quant_added}}) + "\n")
        fo.flush()
        for case in cases:
            CUR.clear()
            CUR.update(gpu_values(case))
            env = dict(os.environ)
            ov = override(**{k: v for k, v in platform_facts(case).items() if k in known_facts}) \
                if override else None
            if ov:
                ov.install()
            row = {k: case[k] for k in ("case", "model", "gpu", "gpu_memory_mib", "capability",
                                         "gpu_count", "argv")}
            t = time.time()
            try:
                if case.get("remote_config"):  # a remote-code checkpoint's class (sglang_layouts.py)
                    import remote_config
                    remote = case["remote_config"]
                    remote_config.register_plain_config(remote["model_type"], remote.get("attribute_map"),
                                                        remote.get("base_class"))
                ns = parser.parse_args(["--model-path", case["model"]] + case["argv"])
                sa = ServerArgs.from_cli_args(ns)
                if hasattr(sa, "resolve_once"):
                    sa.resolve_once()
                    d = sa.resolved_dict()
                else:
                    d = {f.name: getattr(sa, f.name) for f in dataclasses.fields(sa)}
                row["resolved"] = record(d)
                if do_pool and case.get("pool"):
                    try:
                        row["pool"] = oracle_pool.pool(sa, case["pool"])
                    except Exception as e:  # noqa: BLE001
                        row["pool"] = dict(case["pool"], error=short_error(e))
            except (Exception, SystemExit) as e:  # noqa: BLE001
                row["error"] = short_error(e)
                if os.environ.get("ORACLE_TRACEBACK"):
                    import traceback
                    traceback.print_exc()
            times.append(time.time() - t)
            if ov:
                ov.restore()
            os.environ.clear()
            os.environ.update(env)
            fo.write(json.dumps(row) + "\n")
            fo.flush()
        fo.write(json.dumps({"worker": {"mean_case_ms": round(1000 * sum(times) / max(1, len(times)), 2)}}) + "\n")
