"""The KV pool arithmetic of SGLang 0.5.20+ driven on CPU with a given byte budget (oracle_worker.py).

At run time ModelRunner measures the free GPU memory after loading the weights
(KVCacheConfigurator._profile_available_bytes); everything after that measurement is arithmetic:
_handle_max_mamba_cache (hybrid models: the joint solve for max_mamba_cache_size),
config_from_budget (per-token cell size -> max_total_num_tokens, via pool_configurator's
DefaultPoolConfigurator) and resolve_max_num_reqs. Here the measurement is replaced by a given
budget (`kv_budget_bytes`, per GPU) and a KVCacheConfigurator is built by hand
(object.__new__, fields set one by one), with the resolved ServerArgs published as the
scheduler's (runtime_context.publish). Inputs chosen by hand, not by the engine:
  - EAGLE/NEXTN draft layers: eagle_draft_num_layers = 1;
  - kv cache dtype: the model dtype for kv_cache_dtype auto/bf16, torch.float8_e4m3fn for fp8_e4m3,
    torch.float8_e5m2 for fp8_e5m2;
  - one pipeline stage (layers 0..num_hidden_layers), attention DP 1, gpu_id 0;
  - hybrid-SWA models (sliding-window or chunked-local layers): the layer ids and window
    ModelRunner would give the configurator (_hybrid_swa below); oracle.py gives them no pool case,
    sglang_layouts.py does.
"""
from __future__ import annotations

import sys
import types


def available() -> bool:
    rc = sys.modules.get("sglang.srt.runtime_context")
    kv = sys.modules.get("sglang.srt.mem_cache.kv_cache_configurator")
    pc = sys.modules.get("sglang.srt.model_executor.pool_configurator")
    if not (rc and kv and pc and hasattr(kv.KVCacheConfigurator, "config_from_budget")):
        return False
    # 0.5.20+: publish + get_schedule; 0.5.16: a ParallelState field and get_parallel().override
    return (hasattr(rc, "publish") and hasattr(rc, "get_schedule")) or \
        ("ps" in getattr(kv.KVCacheConfigurator, "__annotations__", {}) and hasattr(rc, "get_parallel"))


def pool(sa, spec: dict) -> dict:
    rc = sys.modules["sglang.srt.runtime_context"]
    if hasattr(rc, "publish"):
        return _pool(sa, spec)
    # 0.5.16: no publish; the parallel facts are overridden for the duration, the configurator
    # carries a ParallelState, and model_config comes from the record itself.
    tp = sa.tp_size
    with rc.get_parallel().override(tp_size=tp, tp_rank=0, attn_tp_size=tp, attn_tp_rank=0,
                                    attn_dp_size=1, attn_dp_rank=0, attn_cp_size=1, attn_cp_rank=0,
                                    pp_size=1, pp_rank=0, dcp_size=1, attn_dcp_size=1,
                                    dcp_enabled=False, world_size=tp, world_rank=0):
        return _pool(sa, spec)


def _kv_dtype(name: str, model_dtype):
    import torch
    return {"fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2,
            "bf16": torch.bfloat16, "bfloat16": torch.bfloat16}.get(name or "auto", model_dtype)


def _pool(sa, spec: dict) -> dict:
    import sglang.srt.runtime_context as rc
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    from sglang.srt.model_executor.model_runner_components.layer_setup import ModelLayerInfo
    from sglang.srt.model_executor.pool_configurator import create_memory_pool_configurator
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from sglang.srt.configs import hybrid_arch

    budget = int(spec["kv_budget_bytes"])
    if hasattr(rc, "publish"):
        from sglang.srt.arg_groups.overrides import model_config_of
        rc.publish(sa, role="scheduler")
        d = sa.resolved_dict()
        mc = model_config_of(sa)
        mamba_size = lambda: rc.get_schedule().max_mamba_cache_size  # noqa: E731
    else:
        import dataclasses
        d = {f.name: getattr(sa, f.name) for f in dataclasses.fields(sa)}
        mc = sa.get_model_config()
        mamba_size = lambda: sa.max_mamba_cache_size  # noqa: E731
    n = mc.num_hidden_layers
    kv_dtype_str = d.get("kv_cache_dtype") or "auto"
    fields = dict(
        device="cuda", gpu_id=0, attn_dp_size=1, pp_size=1, pp_group=None, model=None,
        model_config=mc, server_args=sa, kv_cache_dtype=_kv_dtype(kv_dtype_str, mc.dtype),
        kv_cache_dtype_str=kv_dtype_str, model_dtype=mc.dtype, page_size=d.get("page_size") or 1,
        sliding_window_size=None,
        spec_algorithm=SpeculativeAlgorithm.from_string(d.get("speculative_algorithm")),
        is_draft_worker=False, post_capture_kv_active=False,
        spec_aux_config=types.SimpleNamespace(eagle_draft_num_layers=1, dflash_draft_num_layers=None,
                                              draft_model_config=None),
        is_hybrid_swa=False, is_hybrid_swa_compress=False,  # set below for hybrid-SWA models
        use_mla_backend=bool(getattr(mc, "attention_arch", None) is not None
                             and getattr(mc.attention_arch, "name", "") == "MLA"),
        layer_info=ModelLayerInfo(start_layer=0, end_layer=n, num_effective_layers=n),
        forward_stream=None, req_to_token_pool=None, token_to_kv_pool_allocator=None,
        memory_pool_config=None, draft_parallel_layout=None, draft_model_idx=None,
        extra_mamba_cache_bytes_per_req=0, dflash_draft_cell_size_per_token=None,
        kv_shard_rank=None, kv_shard_size=1, kv_shard_spec=None, kv_shard_group=None,
        is_hybrid_swa_mtp_draft=False, draft_swa_full_capacity=False, is_inkling_mtp_draft=False)
    ann = {}
    for k in reversed(KVCacheConfigurator.__mro__):
        ann.update(getattr(k, "__annotations__", {}))
    if "ps" in ann:  # 0.5.16 / 0.5.20: the configurator carries a ParallelState
        from sglang.srt.distributed.parallel_state_wrapper import ParallelState
        fields["ps"] = ParallelState.trivial(tp_size=sa.tp_size, attn_tp_size=sa.tp_size)
    swa = _hybrid_swa(mc, n)
    if swa:
        fields.update(swa)
    kvc = object.__new__(KVCacheConfigurator)
    for k, v in fields.items():
        if k in ann:
            object.__setattr__(kvc, k, v)
    kvc.mambaish_config = hybrid_arch.mambaish_config(mc)
    if "hybrid_gdn_config" in ann:
        kvc.hybrid_gdn_config = hybrid_arch.hybrid_gdn_config(mc)
    if "hybrid_kda_config" in ann:
        kvc.hybrid_kda_config = getattr(hybrid_arch, "hybrid_kda_config", lambda c: None)(mc)
    out = {"kv_budget_bytes": budget, "kv_cache_torch_dtype": str(fields["kv_cache_dtype"]),
           "use_mla_backend": fields["use_mla_backend"], "draft_layers": 1}
    if swa:
        out["is_hybrid_swa"] = True
        out["sliding_window_size"] = swa["sliding_window_size"]
        out["sliding_window_from"] = swa.pop("_from", None)
    rest_gib = budget / (1 << 30)
    if kvc.mambaish_config is not None:
        rest_gib = kvc._handle_max_mamba_cache(rest_gib)
        out["max_mamba_cache_size"] = mamba_size()
        out["mamba_cache_per_req_bytes"] = int(kvc.mambaish_config.mamba2_cache_params.mamba_cache_per_req)
        out["kv_bytes_after_mamba"] = int(rest_gib * (1 << 30))
    else:
        out["max_mamba_cache_size"] = None
    cfg = kvc.config_from_budget(int(rest_gib * (1 << 30)))
    conf = create_memory_pool_configurator(kvc)
    cell = getattr(conf, "_cell_size", None)
    if cell is None and hasattr(conf, "_compute_cell_size"):
        try:
            cell = conf._compute_cell_size()
        except TypeError:
            cell = None
    out["cell_bytes_per_token"] = cell
    out["max_total_num_tokens"] = int(cfg.max_total_num_tokens)
    if swa:
        out["full_max_total_num_tokens"] = cfg.full_max_total_num_tokens
        out["swa_max_total_num_tokens"] = cfg.swa_max_total_num_tokens
    out["max_running_requests"] = int(kvc.resolve_max_num_reqs(cfg.max_total_num_tokens))
    return out


def _hybrid_swa(mc, n: int) -> dict | None:
    """The fields ModelRunner gives a hybrid-SWA model's configurator (0.5.23: model_runner.py's
    is_hybrid_swa from the model config, layer_setup.resolve_layer_indices' SWA and full layer ids,
    load_model_utils.resolve_sliding_window_size): the window from the model class's
    get_attention_sliding_window_size where its module imports here, else the model config's
    sliding_window_size, else its attention_chunk_size. None for other models."""
    # Only models with sliding-window layers and no recurrent state: a hybrid GDN/mamba model (Qwen3.5,
    # LFM2) or one whose config lists no window layer (Laguna's defaults) keeps the plain pool here,
    # as before this path existed, since its configurator fields are not modelled.
    from sglang.srt.configs import hybrid_arch
    if (not getattr(mc, "is_hybrid_swa", False) or not getattr(mc, "swa_attention_layer_ids", None)
            or hybrid_arch.mambaish_config(mc) is not None):
        return None
    from sglang.srt.model_executor.model_runner_components.layer_setup import ModelLayerInfo
    window, source = None, None
    cls = _model_class(mc.hf_config.architectures[0])
    if cls is not None and hasattr(cls, "get_attention_sliding_window_size"):
        try:
            model = object.__new__(cls)
            object.__setattr__(model, "config", mc.hf_config)
            window, source = model.get_attention_sliding_window_size(), "model class"
        except Exception:  # noqa: BLE001  a method that needs what __init__ builds
            window = None
    if window is None and getattr(mc, "sliding_window_size", None) is not None:
        window, source = mc.sliding_window_size, "model config"
    if window is None and getattr(mc, "attention_chunk_size", None) is not None:
        window, source = mc.attention_chunk_size, "attention_chunk_size"
    info = ModelLayerInfo(start_layer=0, end_layer=n, num_effective_layers=n,
                          swa_attention_layer_ids=[i for i in mc.swa_attention_layer_ids if i < n],
                          full_attention_layer_ids=[i for i in mc.full_attention_layer_ids if i < n])
    return {"is_hybrid_swa": True, "is_hybrid_swa_compress": bool(getattr(mc, "is_hybrid_swa_compress", False)),
            "sliding_window_size": window, "layer_info": info, "_from": source}


def _model_class(architecture: str):
    """The release's model class of `architecture`, from its one module (data/sglang/
    architectures.tsv names it; importing the registry would import every model module, some of
    which re-register config classes for the cases after), or None where it does not import."""
    import importlib
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "data", "sglang", "architectures.tsv")
    module = None
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] == architecture and len(cols) > 2:
                module = cols[2]
    if not module:
        return None
    try:
        return getattr(importlib.import_module(f"sglang.srt.models.{module}"), architecture, None)
    except Exception:  # noqa: BLE001  a module that needs a GPU kernel to import
        return None
