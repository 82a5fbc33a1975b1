"""Worker of the vLLM oracle (vllm_oracle.py): runs inside .venv-vllm with a release's unpacked
vllm/ tree first on sys.path. Reads cases (JSON lines), writes one result line per case.

usage (by vllm_oracle.py only): vllm_oracle_worker.py SRC OVERLAY|- IN OUT
cwd = a folder holding ORG/NAME/config.json for every model of data/models/.

Patches, in this order:
  1. stubs: a meta-path finder answering permissive modules for the release's compiled
     extensions (every *.so of the wheel: vllm._C, _moe_C, _flashmla_C, vllm_flash_attn._vllm_fa3_C,
     cumem_allocator, ...; the Python around them is the release's own); torch.ops namespaces of
     those extensions answer a dummy for missing ops; torch.library.register_fake ignores them;
     an inert torchvision (stubs.py); vllm.triton_utils' placeholder Config gets attributes;
  2. vllm.platforms.current_platform = a subclass of vllm.platforms.cuda.CudaPlatformBase answering
     the case's GPU (capability, name, total memory from data/gpus.csv; fully connected NVLink);
  3. model inspection in-process: vllm.model_executor.models.registry._run_in_subprocess = call fn();
  4. the loggers of the KV planning modules are wrapped to record (not drop) their messages.
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import os
import sys
import time
import traceback

# The release's compiled extension modules (the wheel's *.so, listed by vllm_oracle.py in
# SRC/.native-modules); these names are always stubbed too (older wheels name them so).
NATIVE = {"vllm._C", "vllm._moe_C", "vllm._C_stable_libtorch", "vllm._flashmla_C",
          "vllm._flashmla_extension_C", "vllm.cumem_allocator",
          "vllm.vllm_flash_attn._vllm_fa2_C", "vllm.vllm_flash_attn._vllm_fa3_C"}
OP_NAMESPACES = ("_C", "_moe_C", "_C_cache_ops", "_C_custom_ar", "_rocm_C", "_vllm_fa2_C",
                 "_vllm_fa3_C", "_flashmla_C", "_flashmla_extension_C")


class MissingOp:
    """Stands in for an op of a stubbed extension: calling it answers False, and any overload
    (`.default`, `.Tensor`; module-level pattern matchers read them, 0.33 compile fusion) is itself."""

    def __call__(self, *a, **k):
        return False

    def __getattr__(self, overload):
        return self


def install_stubs(src: str) -> None:
    path = os.path.join(src, ".native-modules")
    if os.path.exists(path):
        NATIVE.update(l.strip() for l in open(path) if l.strip())
    import stubs
    stubs.install_native_stubs(NATIVE.__contains__)
    # FlashInfer's communication kernels open libcudart when imported (0.6.6: flashinfer.comm.
    # cuda_ipc); the allreduce-fusion size tables vLLM reads are vLLM's own.
    stubs.install_subtree_stubs(["flashinfer.comm"])
    # Modules of the release written in a GPU DSL (0.23: humming's quantized kernels, imported
    # by the quantization configs' module tree).
    stubs.stub_dsl_kernel_modules(src)
    # 0.22/0.23 import humming's own modules where the platform is CUDA (quantization/humming.py,
    # reached by every quantized config's registry lookup): the package itself is inert too.
    stubs.install_stub_modules(["humming"])
    import torch._ops as ops
    orig = ops._OpNamespace.__getattr__

    def getattr_(self, op_name):
        try:
            return orig(self, op_name)
        except AttributeError:
            if self.name in OP_NAMESPACES:
                return MissingOp()
            raise
    ops._OpNamespace.__getattr__ = getattr_
    import torch.library as lib
    orig_rf = lib.register_fake

    def register_fake(op, *a, **k):
        name = op if isinstance(op, str) else getattr(op, "__name__", "")
        if isinstance(name, str) and name.split("::")[0] in OP_NAMESPACES:
            return (lambda f: f) if not a else None
        return orig_rf(op, *a, **k)
    lib.register_fake = register_fake


def cuda_tensors_on_meta() -> None:
    """torch.empty/zeros(device='cuda...') -> a meta tensor (cutlass_mla.py allocates a workspace
    on the GPU when imported, which the selector does while validating CUTLASS_MLA on SM100)."""
    import torch

    def wrap(fn):
        def f(*a, **k):
            d = k.get("device")
            if d is not None and str(d).startswith("cuda"):
                k["device"] = "meta"
            return fn(*a, **k)
        return f
    torch.empty = wrap(torch.empty)
    torch.zeros = wrap(torch.zeros)


GPU = {"name": "NVIDIA H100 80GB HBM3", "cap": (9, 0), "mem": 81559 << 20, "sms": 132}
# streaming multiprocessors per GPU (NVIDIA datasheets); only CUTLASS_MLA's import-time workspace
# sizing asks (num_compute_units)
SMS = {"h100-sxm": 132, "h200": 132, "b200": 148, "a100-80gb": 108, "l40s": 142, "rtx-pro-6000": 188,
       "rtx-4090": 128}


def install_platform():
    import vllm.platforms as P
    from vllm.platforms.cuda import CudaPlatformBase
    from vllm.platforms.interface import DeviceCapability

    class FakeCuda(CudaPlatformBase):
        @classmethod
        def get_device_capability(cls, device_id=0):
            return DeviceCapability(*GPU["cap"])

        @classmethod
        def get_device_name(cls, device_id=0):
            return GPU["name"]

        @classmethod
        def get_device_total_memory(cls, device_id=0):
            return GPU["mem"]

        @classmethod
        def is_fully_connected(cls, ids):
            return True

        @classmethod
        def log_warnings(cls):
            pass

        @classmethod
        def device_count(cls):
            return 8

        @classmethod
        def num_compute_units(cls, device_id=0):
            return GPU["sms"]

        @classmethod
        def get_cuda_runtime_major(cls):
            # The CUDA runtime the release's wheel is built against (vllm_oracle.wheel_cuda_major:
            # its _C*.so need libcudart.so.N), not the CPU torch's none.
            return int(os.environ.get("ORACLE_CUDA_RUNTIME", "0"))

    P._current_platform = FakeCuda()
    P.current_platform = P._current_platform
    return P._current_platform


class LogRecorder:
    """Stands in for a module's `logger`: records formatted messages, forwards nothing."""

    def __init__(self, real):
        self._real = real
        self.lines: list[str] = []

    def _rec(self, msg, *args, **kw):
        try:
            self.lines.append(str(msg) % args if args else str(msg))
        except Exception:
            self.lines.append(str(msg))

    info = info_once = warning = warning_once = debug = debug_once = _rec

    def __getattr__(self, name):
        return getattr(self._real, name)


def filtered(cls, **kw):
    """cls(**kw) with only the keyword arguments the release's dataclass has."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in kw.items() if k in names})


def patch_triton_placeholder() -> None:
    """Without triton, vllm.triton_utils gives a placeholder whose Config is a dummy decorator;
    mamba ops (imported by the Qwen3-Next/3.5 model modules) read .num_stages etc. of Configs at
    import. Give Config objects those attributes."""
    import vllm.triton_utils as tu
    if getattr(tu, "HAS_TRITON", True):
        return

    class Config:
        def __init__(self, kwargs=None, num_warps=4, num_stages=2, num_ctas=1, **kw):
            self.kwargs, self.num_warps, self.num_stages, self.num_ctas = kwargs or {}, num_warps, num_stages, num_ctas
            self.__dict__.update(kw)
    tu.triton.Config = Config


# ---------------------------------------------------------------------------- KV specs
def layer_plan(cfg) -> list[tuple[str, str]]:
    """(layer name, kind) for every decoder layer of one pp rank: kind is mamba (hybrid models:
    layer_types[i] == linear_attention), mla (model_config.use_mla), sliding_window
    (layer_types[i] == sliding_attention and the config has sliding_window, or the model-level
    CacheConfig.sliding_window the engine resolved), chunked_local
    (attention_chunk_size and no_rope_layers[i] != 0, Llama 4) or full."""
    mc, pc = cfg.model_config, cfg.parallel_config
    hf = mc.hf_text_config
    layer_types = list(getattr(hf, "layer_types", None) or [])
    sw = getattr(hf, "sliding_window", None)
    chunk = getattr(hf, "attention_chunk_size", None)
    no_rope = getattr(hf, "no_rope_layers", None)
    plan = []
    for i in range(mc.get_num_layers(pc)):
        lt = layer_types[i] if i < len(layer_types) else "full_attention"
        if mc.is_hybrid and lt in ("linear_attention", "mamba"):
            plan.append((f"model.layers.{i}.linear_attn", "mamba"))
        elif mc.use_mla:
            plan.append((f"model.layers.{i}.self_attn.attn", "mla"))
        elif lt == "sliding_attention" and sw:
            plan.append((f"model.layers.{i}.self_attn.attn", "sliding_window"))
        elif getattr(cfg.cache_config, "sliding_window", None) and not layer_types:
            # The model-level window: EngineArgs.create_engine_config sets
            # CacheConfig.sliding_window when no layer_types lists the layers, and every Attention
            # layer without a window of its own takes it (Phi-3/4, Mistral v0.1).
            plan.append((f"model.layers.{i}.self_attn.attn", "sliding_window"))
        elif chunk and no_rope is not None and i < len(no_rope) and no_rope[i] != 0:
            plan.append((f"model.layers.{i}.self_attn.attn", "chunked_local"))
        else:
            plan.append((f"model.layers.{i}.self_attn.attn", "full"))
    return plan


def select_backend(cfg, mods):
    """The attention backend class the release's selector picks for this model on the faked GPU
    (what each Attention layer's __init__ asks for)."""
    import inspect
    mc, pc, cc = cfg.model_config, cfg.parallel_config, cfg.cache_config
    hf = mc.hf_text_config
    kw = dict(head_size=mc.get_head_size(), dtype=mc.dtype, kv_cache_dtype=cc.cache_dtype,
              use_mla=mc.use_mla, has_sink=mc.hf_config.model_type == "gpt_oss",
              num_heads=mc.get_num_attention_heads(pc),
              has_sliding_window=bool(getattr(hf, "sliding_window", None)))
    f = mods["get_attn_backend"]
    names = inspect.signature(f).parameters
    return f(**{k: v for k, v in kw.items() if k in names})


def register_standins(cfg, mods, backend) -> None:
    """Put one stand-in per attention layer into static_forward_context, answering
    get_attn_backend() with the selected backend, so Platform.update_block_size_for_backend
    (block size preference, hybrid alignment) sees the model's attention layers."""
    base = mods["AttentionLayerBase"]

    class StandIn(base):
        def get_attn_backend(self):
            return backend

        def get_kv_cache_spec(self, vllm_config):
            return None
    ctx = cfg.compilation_config.static_forward_context
    for name, kind in layer_plan(cfg):
        if kind != "mamba":
            ctx[name] = StandIn()
    register_mamba_standins(cfg, ctx)


def gdn_checkpoint_alignment(cfg):
    """The prefill checkpoint alignment a Gated-DeltaNet layer of the release declares (0.33+:
    FLASHINFER_GDN_CHECKPOINT_ALIGNMENT in mamba cache mode align when the release's own
    _resolve_gdn_prefill_backend picks FlashInfer), None where it declares none."""
    try:
        from vllm.model_executor.layers.mamba.gdn import qwen_gdn_linear_attn as gdn
        from vllm.v1.attention.backends.gdn_attn import FLASHINFER_GDN_CHECKPOINT_ALIGNMENT
    except ImportError:
        return None
    if getattr(cfg.cache_config, "mamba_cache_mode", None) != "align":
        return None
    if gdn._resolve_gdn_prefill_backend(cfg)[1] != "flashinfer":
        return None
    return FLASHINFER_GDN_CHECKPOINT_ALIGNMENT


def register_mamba_standins(cfg, ctx) -> None:
    """One MambaBase stand-in per linear-attention layer, declaring the layer's prefill checkpoint
    alignment (what Platform._align_hybrid_block_size reads through
    get_mamba_prefill_checkpoint_alignment); releases before 0.33 read none."""
    try:
        from vllm.model_executor.layers.mamba.abstract import MambaBase
    except ImportError:
        return
    if not hasattr(MambaBase, "get_prefill_checkpoint_alignment"):
        return
    alignment = gdn_checkpoint_alignment(cfg)
    body = {n: (lambda self, *a, **k: None) for n in getattr(MambaBase, "__abstractmethods__", ())}
    body["get_prefill_checkpoint_alignment"] = lambda self: alignment
    try:  # the selector asks the layer's mamba type for its backend (GDN_ATTN)
        from vllm.v1.attention.backends.registry import MambaAttentionBackendEnum
        body["mamba_type"] = property(lambda self: MambaAttentionBackendEnum.GDN_ATTN)
    except ImportError:
        pass
    MambaStandIn = type("MambaStandIn", (MambaBase,), body)
    for name, kind in layer_plan(cfg):
        if kind == "mamba":
            layer = object.__new__(MambaStandIn)
            torch_module_init(layer)
            ctx[name] = layer


def torch_module_init(obj) -> None:
    import torch.nn as nn
    if isinstance(obj, nn.Module):
        nn.Module.__init__(obj)


def build_specs(cfg, mods) -> tuple[dict, dict]:
    """Per-layer KV cache specs of one worker (pp 1), built from the config the way the model's
    layers declare them (see README.md). Returns (specs, how)."""
    import torch
    kvi = mods["kvi"]
    mc, pc, cc = cfg.model_config, cfg.parallel_config, cfg.cache_config
    hf = mc.hf_text_config
    kv_heads = mc.get_num_kv_heads(pc)
    head = mc.get_head_size()
    tu = mods["torch_utils"]
    if hasattr(tu, "kv_cache_dtype_str_to_dtype"):
        dtype = tu.kv_cache_dtype_str_to_dtype(cc.cache_dtype, mc)
    else:
        dtype = mc.dtype if cc.cache_dtype == "auto" else tu.STR_DTYPE_TO_TORCH_DTYPE[cc.cache_dtype]
    quant = {}
    if mods.get("get_kv_quant_mode"):
        quant = {"kv_quant_mode": mods["get_kv_quant_mode"](cc.cache_dtype)}
    bs = cc.block_size
    sw = getattr(hf, "sliding_window", None)
    chunk = getattr(hf, "attention_chunk_size", None)
    specs: dict = {}
    kinds: dict = {}
    mamba = None
    if mc.is_hybrid and any(k == "mamba" for _, k in layer_plan(cfg)):
        from vllm.model_executor.models import ModelRegistry
        model_cls, _ = ModelRegistry.resolve_model_cls(mc.architectures, model_config=mc)
        shapes = model_cls.get_mamba_state_shape_from_config(cfg)
        dtypes = model_cls.get_mamba_state_dtype_from_config(cfg)
        mtype = getattr(mods.get("mamba_enum"), "GDN_ATTN", None) or "gdn_attention"
        spec_tokens = cfg.speculative_config.num_speculative_tokens if cfg.speculative_config else 0
        checkpoint = {}
        if gdn_checkpoint_alignment(cfg) is not None:  # qwen_gdn_linear_attn.get_kv_cache_spec
            from vllm.model_executor.layers.mamba.abstract import get_mamba_prefill_checkpoint_grid
            checkpoint = dict(num_prefill_checkpoint_blocks=1,
                              prefill_checkpoint_alignment=get_mamba_prefill_checkpoint_grid(cfg))
        mamba = filtered(kvi.MambaSpec, shapes=tuple(shapes), dtypes=tuple(dtypes), block_size=cc.mamba_block_size,
                         page_size_padded=cc.mamba_page_size_padded, mamba_type=mtype,
                         mamba_cache_mode=getattr(cc, "mamba_cache_mode", None),
                         num_speculative_blocks=spec_tokens, **checkpoint)
    for name, kind in layer_plan(cfg):
        if kind == "mamba":
            specs[name] = mamba
        elif kind == "mla":
            specs[name] = filtered(
                kvi.MLAAttentionSpec, block_size=bs, num_kv_heads=1, head_size=head, dtype=dtype,
                cache_dtype_str=cc.cache_dtype, **quant)
        elif kind == "sliding_window":
            specs[name] = filtered(
                kvi.SlidingWindowSpec, block_size=bs, num_kv_heads=kv_heads, head_size=head,
                head_size_v=head, dtype=dtype, sliding_window=sw, **quant)
        elif kind == "chunked_local":
            specs[name] = filtered(
                kvi.ChunkedLocalAttentionSpec, block_size=bs, num_kv_heads=kv_heads, head_size=head,
                head_size_v=head, dtype=dtype, attention_chunk_size=chunk, **quant)
        else:
            specs[name] = filtered(
                kvi.FullAttentionSpec, block_size=bs, num_kv_heads=kv_heads, head_size=head,
                head_size_v=head, dtype=dtype, **quant)
        kinds[kind] = kinds.get(kind, 0) + 1
    how = {"layers": kinds, "num_kv_heads_per_rank": kv_heads, "head_size": head,
           "kv_torch_dtype": str(dtype).replace("torch.", ""), "spec_block_size": bs}
    if sw and "sliding_window" in kinds:
        how["sliding_window"] = sw
    if "chunked_local" in kinds:
        how["attention_chunk_size"] = chunk
    if mamba is not None:
        how["mamba_shapes"] = [list(s) for s in mamba.shapes]
        how["mamba_dtypes"] = [str(d).replace("torch.", "") for d in mamba.dtypes]
        how["mamba_block_size"] = mamba.block_size
        how["mamba_page_size_padded"] = cc.mamba_page_size_padded
        how["mamba_type"] = str(getattr(mamba.mamba_type, "value", mamba.mamba_type))
    return specs, how


def spec_name(spec) -> str:
    if type(spec).__name__ == "UniformTypeKVCacheSpecs":
        spec = next(iter(spec.kv_cache_specs.values()))
    return type(spec).__name__


def run_kv(case: dict, mods: dict, platform) -> dict:
    from vllm.engine.arg_utils import EngineArgs
    from vllm.config import set_current_vllm_config
    kw = dict(model=case["model"], tensor_parallel_size=case["tp"], kv_cache_dtype=case["kv_cache_dtype"],
              enable_prefix_caching=case["enable_prefix_caching"])
    if case.get("max_model_len") is not None:
        kw["max_model_len"] = case["max_model_len"]
    if case.get("block_size") is not None:
        kw["block_size"] = case["block_size"]
    ea = EngineArgs(**kw)
    cfg = ea.create_engine_config(usage_context=mods["usage"].OPENAI_API_SERVER)
    out: dict = {}
    with set_current_vllm_config(cfg):
        out["config_block_size"] = cfg.cache_config.block_size
        try:
            backend = select_backend(cfg, mods)
            out["attention_backend"] = backend.get_name()
        except Exception as e:
            backend = None
            out["attention_backend_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        if backend is not None:
            register_standins(cfg, mods, backend)
        if hasattr(platform, "update_block_size_for_backend"):  # the executor does this (0.25+)
            platform.update_block_size_for_backend(cfg)
        out["worker_block_size"] = cfg.cache_config.block_size
        out["mamba_cache_mode"] = getattr(cfg.cache_config, "mamba_cache_mode", None)
        specs, how = build_specs(cfg, mods)
        out["spec"] = how
        out.update(plan_kv(cfg, mods, specs, case["tp"], case["available_bytes"]))
    return out


def plan_kv(cfg, mods, specs: dict, world: int, available: int) -> dict:
    """As EngineCore._initialize_kv_caches: the same specs for each of `world` workers, `available`
    bytes each; register_all_kvcache_specs, resolve_kv_cache_layout (0.30+),
    get_global_kv_cache_groups (0.33), get_kv_cache_configs, generate_scheduler_kv_cache_config,
    block_size = min over groups, update_kv_cache_capacity / get_kv_cache_capacity (0.19: the
    figures its _report_kv_cache_config logs + get_max_concurrency_for_kv_cache_config)."""
    out: dict = {}
    kv_cache_specs = [dict(specs) for _ in range(world)]
    avail = [available] * world
    rec = []
    for m in mods["log_modules"]:
        r = LogRecorder(m.logger)
        m.logger = r
        rec.append((m, r))
    try:
        if mods.get("register_all_kvcache_specs"):
            mods["register_all_kvcache_specs"](cfg)
        if mods.get("resolve_kv_cache_layout"):  # as EngineCore (0.30+): the backends' layouts
            names = [l.name for l in mods["get_supported_kv_cache_layouts"](
                mods["get_current_attn_backends"](cfg))]
            layout = mods["resolve_kv_cache_layout"](
                cfg, [names] * world, [s for d in kv_cache_specs for s in d.values()])
            mods["record_kv_cache_layout"](cfg.cache_config, layout.name)
            out["kv_cache_layout"] = layout.name
        import inspect
        gkc = mods["get_kv_cache_configs"]
        if "global_kv_cache_groups" in inspect.signature(gkc).parameters:
            groups = mods["get_global_kv_cache_groups"](cfg, kv_cache_specs)
            if hasattr(cfg, "adjust_dcp_kv_cache_interleave_size"):
                cfg.adjust_dcp_kv_cache_interleave_size(groups)
            configs = gkc(cfg, kv_cache_specs, avail, groups)
        else:
            configs = gkc(cfg, kv_cache_specs, avail)
        sched = mods["generate_scheduler_kv_cache_config"](configs)
        groups = sched.kv_cache_groups
        if groups:  # as EngineCore._initialize_kv_caches: min over the groups (0.30+: over the
            # prefix-cacheable ones, when any)
            part = [g.kv_cache_spec.block_size for g in groups
                    if not mods["core_min_prefix_cacheable"] or g.kv_cache_spec.prefix_cacheable]
            cfg.cache_config.block_size = min(part or [g.kv_cache_spec.block_size for g in groups])
            if mods.get("update_kv_cache_capacity"):
                mods["update_kv_cache_capacity"](cfg, sched)
        if mods.get("get_kv_cache_capacity"):
            tokens, conc = mods["get_kv_cache_capacity"](cfg, sched)
        else:  # 0.19: the figures of the log lines _report_kv_cache_config printed
            conc = mods["get_max_concurrency_for_kv_cache_config"](cfg, sched)
            tokens = None
    finally:
        for m, r in rec:
            m.logger = r._real
    lines = [l for _, r in rec for l in r.lines]
    for l in lines:
        if "KV cache size:" in l and tokens is None:
            tokens = int(l.split("KV cache size:")[1].split("tokens")[0].replace(",", "").strip())
    out.update({
        "num_blocks": sched.num_blocks,
        "kv_cache_size_tokens": tokens,
        "max_concurrency": conc,
        "max_model_len": cfg.model_config.max_model_len,
        "block_size": cfg.cache_config.block_size,
        "groups": [{"spec": spec_name(g.kv_cache_spec), "layers": len(g.layer_names),
                    "block_size": g.kv_cache_spec.block_size,
                    "page_size_bytes": g.kv_cache_spec.page_size_bytes}
                   for g in groups],
        "log": list(dict.fromkeys(l for l in lines if "KV cache size" in l or "Maximum concurrency" in l
                                  or "max_model_len" in l or "max model len" in l.lower())),
    })
    return out


def _plain(v):
    """JSON-able form of a config value (enums by name, lists kept)."""
    import enum
    if isinstance(v, enum.Enum):
        return v.name
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return str(v)


def run_config(case: dict, mods: dict, platform) -> dict:
    """`vllm serve ORG/NAME ARGV...`: the release's own engine argument parser
    (AsyncEngineArgs.add_cli_args on a FlexibleArgumentParser), EngineArgs.from_cli_args,
    create_engine_config(usage_context=OPENAI_API_SERVER); then the attention backend the selector
    picks and the block size after Platform.update_block_size_for_backend (worker side, 0.25+)."""
    from vllm.config import set_current_vllm_config
    from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs
    parser = AsyncEngineArgs.add_cli_args(mods["FlexibleArgumentParser"]())
    args = parser.parse_args(["--model", case["model"]] + case["argv"][3:])
    ea = EngineArgs.from_cli_args(args)
    cfg = ea.create_engine_config(usage_context=mods["usage"].OPENAI_API_SERVER)
    mc, cc, sc, pc, cc2 = (cfg.model_config, cfg.cache_config, cfg.scheduler_config,
                           cfg.parallel_config, cfg.compilation_config)
    out = {
        "max_model_len": mc.max_model_len,
        "max_num_seqs": sc.max_num_seqs,
        "max_num_batched_tokens": sc.max_num_batched_tokens,
        "enable_chunked_prefill": getattr(sc, "enable_chunked_prefill", None),
        "gpu_memory_utilization": cc.gpu_memory_utilization,
        "block_size": cc.block_size,
        "kv_cache_dtype": cc.cache_dtype,
        "enable_prefix_caching": cc.enable_prefix_caching,
        "mamba_cache_mode": getattr(cc, "mamba_cache_mode", None),
        "mamba_block_size": getattr(cc, "mamba_block_size", None),
        "enforce_eager": mc.enforce_eager,
        "tensor_parallel_size": pc.tensor_parallel_size,
        "dtype": str(mc.dtype).replace("torch.", ""),
        "quantization": mc.quantization,
        "compilation_mode": _plain(getattr(cc2, "mode", None) if hasattr(cc2, "mode") else getattr(cc2, "level", None)),
        "cudagraph_mode": _plain(getattr(cc2, "cudagraph_mode", None)),
        "cudagraph_capture_sizes": _plain(getattr(cc2, "cudagraph_capture_sizes", None)),
        "max_cudagraph_capture_size": getattr(cc2, "max_cudagraph_capture_size", None),
        "async_scheduling": getattr(sc, "async_scheduling", None),
    }
    # 0.34+: gpu_memory_utilization stays None unless given; the worker sizes memory with
    # resolved_gpu_memory_utilization (1.0 with the extensible KV cache, on by default on CUDA,
    # else 0.92). Recorded where the release has them.
    if hasattr(cc, "enable_extensible_kv_cache"):
        out["enable_extensible_kv_cache"] = cc.enable_extensible_kv_cache
    if hasattr(type(cc), "resolved_gpu_memory_utilization"):
        out["resolved_gpu_memory_utilization"] = cc.resolved_gpu_memory_utilization
    with set_current_vllm_config(cfg):
        try:
            backend = select_backend(cfg, mods)
            out["attention_backend"] = backend.get_name()
        except Exception as e:
            backend = None
            out["attention_backend_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        if backend is not None and hasattr(platform, "update_block_size_for_backend"):
            register_standins(cfg, mods, backend)
            platform.update_block_size_for_backend(cfg)
            out["worker_block_size"] = cfg.cache_config.block_size
            out["worker_mamba_block_size"] = getattr(cfg.cache_config, "mamba_block_size", None)
            # The block size the engine serves with: EngineCore sets it from the KV groups after
            # planning (0.19.0 resets a hybrid model's block to 16 on the worker and the page-size
            # unification restores it); memory is not the question here, so plenty is given.
            try:
                specs, _ = build_specs(cfg, mods)
                out["engine_block_size"] = plan_kv(cfg, mods, specs, pc.tensor_parallel_size,
                                                   PLENTY_BYTES)["block_size"]
            except Exception as e:
                out["engine_block_size_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    return out


PLENTY_BYTES = 4 << 40  # per worker, for plan_kv where only the grouping is asked


_CACHED: list = []
_SEEN = [0]


def clear_caches() -> int:
    """functools caches of every loaded vllm module (module-level functions and class attributes):
    the attention selector, FA/FlashMLA support probes and other device-dependent answers are
    memoized per process, and each case fakes another GPU. Returns how many are known."""
    if len(sys.modules) != _SEEN[0]:
        _SEEN[0] = len(sys.modules)
        _CACHED.clear()
        seen = set()
        for name, m in list(sys.modules.items()):
            if not name.startswith("vllm") or m is None:
                continue
            for v in list(vars(m).values()):
                objs = [v]
                if isinstance(v, type) and v.__module__ == name:
                    objs += [x.__func__ if isinstance(x, (classmethod, staticmethod)) else x
                             for x in vars(v).values()]
                for o in objs:
                    if isinstance(o, functools._lru_cache_wrapper) and id(o) not in seen:
                        seen.add(id(o))
                        _CACHED.append(o)
    for o in _CACHED:
        try:
            o.cache_clear()
        except Exception:
            pass
    return len(_CACHED)


# ---------------------------------------------------------------------------- driver
def load_mods() -> dict:
    import importlib
    mods: dict = {}
    ku = importlib.import_module("vllm.v1.core.kv_cache_utils")
    try:
        kp = importlib.import_module("vllm.v1.core.kv_cache_planning")
    except ImportError:
        kp = None
    plan = kp or ku
    mods["get_kv_cache_configs"] = plan.get_kv_cache_configs
    mods["get_global_kv_cache_groups"] = getattr(plan, "get_global_kv_cache_groups", None)
    for n in ("generate_scheduler_kv_cache_config", "get_kv_cache_capacity", "update_kv_cache_capacity",
              "get_max_concurrency_for_kv_cache_config"):
        mods[n] = getattr(ku, n, None) or getattr(plan, n, None)
    try:
        from vllm.v1.core.single_type_kv_cache_manager import register_all_kvcache_specs
        mods["register_all_kvcache_specs"] = register_all_kvcache_specs
    except ImportError:
        pass
    mods["log_modules"] = [m for m in (ku, kp) if m is not None]
    mods["kvi"] = importlib.import_module("vllm.v1.kv_cache_interface")
    mods["torch_utils"] = importlib.import_module("vllm.utils.torch_utils")
    for where in ("vllm.v1.kv_cache_interface", "vllm.utils.torch_utils", "vllm.v1.attention.backend"):
        try:
            f = getattr(importlib.import_module(where), "get_kv_quant_mode", None)
        except ImportError:
            f = None
        if f:
            mods["get_kv_quant_mode"] = f
            break
    try:
        from vllm.v1.attention.backends.registry import MambaAttentionBackendEnum
        mods["mamba_enum"] = MambaAttentionBackendEnum
    except ImportError:
        pass
    try:
        from vllm.v1.attention.backends import utils as bu
        from vllm.distributed.kv_transfer.kv_connector.utils import get_current_attn_backends
        mods.update(resolve_kv_cache_layout=bu.resolve_kv_cache_layout,
                    get_supported_kv_cache_layouts=bu.get_supported_kv_cache_layouts,
                    record_kv_cache_layout=bu.record_kv_cache_layout,
                    get_current_attn_backends=get_current_attn_backends)
    except (ImportError, AttributeError):
        pass
    from vllm.v1.attention.selector import get_attn_backend
    import vllm.v1.engine as engine_pkg  # EngineCore itself needs zmq/multiprocessing: read its rule
    with open(os.path.join(os.path.dirname(engine_pkg.__file__), "core.py")) as f:
        mods["core_min_prefix_cacheable"] = "if g.kv_cache_spec.prefix_cacheable" in f.read()
    from vllm.model_executor.layers.attention_layer_base import AttentionLayerBase
    mods.update(get_attn_backend=get_attn_backend, AttentionLayerBase=AttentionLayerBase)
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    mods["FlexibleArgumentParser"] = FlexibleArgumentParser
    from vllm.usage.usage_lib import UsageContext
    mods["usage"] = UsageContext
    return mods


def bootstrap(src: str, overlay: str):
    """Put the release's tree (and the package set) first on sys.path and apply patches 1-3 of
    the module docstring; returns (platform, mods). Shared with vllm_layouts_worker.py."""
    sys.path.insert(0, src)
    if overlay and overlay != "-":  # package sets, os.pathsep-separated, first wins
        sys.path[1:1] = overlay.split(os.pathsep)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    install_stubs(src)
    import stubs  # ours: inert torchvision (mllama4 imports transformers' llama4 image processor)
    stubs.install_stub_modules(["torchvision"], {"torchvision": "0.28.0"})
    platform = install_platform()
    patch_triton_placeholder()
    cuda_tensors_on_meta()
    import vllm.model_executor.models.registry as registry
    registry._run_in_subprocess = lambda fn: fn()
    from vllm.engine.arg_utils import EngineArgs  # noqa: F401
    mods = load_mods()
    # releases that count devices through torch (0.19: config/parallel.py) see 8 GPUs
    for name, m in list(sys.modules.items()):
        if name.startswith("vllm") and hasattr(m, "cuda_device_count_stateless"):
            m.cuda_device_count_stateless = lambda: 8
    import logging
    logging.getLogger("vllm").setLevel(logging.ERROR)
    return platform, mods


def main(argv: list[str]) -> None:
    src, overlay, inp, outp = argv[:4]
    t0 = time.time()
    platform, mods = bootstrap(src, overlay)
    import_s = round(time.time() - t0, 1)
    cases = [json.loads(l) for l in open(inp)]
    tb = os.environ.get("ORACLE_TRACEBACK")
    with open(outp, "w") as out:
        out.write(json.dumps({"worker": {"import_s": import_s}}) + "\n")
        out.flush()
        times = []
        for c in cases:
            GPU.update(name=c["gpu_name"], cap=tuple(int(x) for x in c["capability"].split(".")),
                       mem=c["gpu_memory_mib"] << 20, sms=SMS.get(c["gpu"], 132))
            env = dict(os.environ)
            clear_caches()
            t = time.time()
            r = dict(c)
            try:
                r["result"] = (run_config if c["kind"] == "config" else run_kv)(c, mods, platform)
            except Exception as e:
                lines = str(e).strip().splitlines() or [""]
                msg = lines[0]
                why = next((l.strip() for l in lines[1:] if l.strip().startswith(("Value error", "Assertion"))), None)
                if why:  # pydantic: the validator's own message is on a later line
                    msg += " | " + why.split(" [type=")[0]
                r["error"] = f"{type(e).__name__}: {msg}"[:400]
                if tb:
                    traceback.print_exc()
            finally:
                os.environ.clear()
                os.environ.update(env)
            times.append(time.time() - t)
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
            out.flush()
        out.write(json.dumps({"worker": {"import_s": import_s,
                                         "mean_case_ms": round(1000 * sum(times) / max(1, len(times)), 1)}}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
