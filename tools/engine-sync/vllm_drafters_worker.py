"""Worker of the vLLM drafters oracle (vllm_drafters.py): runs inside .venv-vllm with a release's
unpacked vllm/ tree first on sys.path. Reads cases (JSON lines), writes one result line per case.

usage (by vllm_drafters.py only): vllm_drafters_worker.py SRC OVERLAY IN OUT
Each case names a target model folder and a speculative config (its "model" a drafter folder);
both folders hold a config.json.

Per case, with the patches of vllm_layouts_worker.setup (the oracle's faked CUDA platform, models
built on the meta device) and Triton taken as present where the release picks its model runner
(vllm.config.vllm.HAS_TRITON, as on a GPU install):
  1. EngineArgs(model=TARGET, speculative_config=SPEC, tensor_parallel_size, max_model_len,
     block_size, kv_cache_dtype, enable_prefix_caching, skip_tokenizer_init, enforce_eager,
     load_format="dummy").create_engine_config(usage_context=OPENAI_API_SERVER) (the release's SpeculativeConfig resolves the
     drafter: its method, its draft_model_config, the MTP config overrides);
  2. the target built by vLLM's initialize_model on the meta device (its attention layers
     register in static_forward_context);
  3. the drafter built by the release's own speculator loader for the method
     (speculative_config.speculator_config.speculator_class's load_draft_model: load_eagle_model,
     load_dflash_model, the draft model's ...) with vLLM's get_model answered by initialize_model
     on the meta device (no weights); its attention layers join the same forward context;
  4. Platform.update_block_size_for_backend, then the GPU model runner's
     attn_utils.get_kv_cache_spec(vllm_config): the target's and the drafter's specs;
  5. the same for each of tp workers, `available_bytes` each, through EngineCore's KV planning
     (vllm_oracle_worker.plan_kv): num_blocks, tokens, concurrency, groups.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vllm_layouts_worker as lw  # noqa: E402  (setup, meta builds, spec_dict)
import vllm_oracle_worker as ow  # noqa: E402  (plan_kv)


def engine_config(case: dict):
    from vllm.engine.arg_utils import EngineArgs
    kw = dict(model=case["target_dir"], speculative_config=dict(case["speculative_config"],
                                                                model=case["drafter_dir"])
              if case.get("drafter_dir") else dict(case["speculative_config"]),
              tensor_parallel_size=case["tp"], skip_tokenizer_init=True, enforce_eager=True,
              load_format="dummy", trust_remote_code=False,
              enable_prefix_caching=case["enable_prefix_caching"], kv_cache_dtype=case["kv_cache_dtype"])
    for k in ("max_model_len", "block_size"):
        if case.get(k) is not None:
            kw[k] = case[k]
    # `vllm serve`'s defaults (the scheduler's batch limits differ for the LLM class)
    from vllm.usage.usage_lib import UsageContext
    return EngineArgs(**kw).create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)


def meta_get_model(**kw):
    """vLLM's get_model for a drafter, answered by initialize_model on the meta device."""
    import torch
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.utils.torch_utils import set_default_torch_dtype
    cfg = kw["vllm_config"]
    mc = kw.get("model_config") or cfg.model_config
    args = dict(vllm_config=cfg, model_config=mc)
    if kw.get("prefix"):
        args["prefix"] = kw["prefix"]
    with set_default_torch_dtype(mc.dtype), torch.device("meta"), lw.cuda_on_meta():
        return initialize_model(**args)


def patch_get_model() -> None:
    """Every speculator module's `get_model` -> meta_get_model (they import it by name)."""
    import importlib
    import pkgutil
    import vllm.v1.worker.gpu.spec_decode as sd
    for m in pkgutil.walk_packages(sd.__path__, sd.__name__ + "."):
        try:
            mod = importlib.import_module(m.name)
        except Exception:  # noqa: BLE001  a speculator whose imports need a GPU library
            continue
        if hasattr(mod, "get_model"):
            mod.get_model = meta_get_model


def load_drafter(cfg, target):
    """The release's own loader of the drafter for the method (step 3 of the docstring)."""
    from vllm.config import get_layers_from_vllm_config
    from vllm.model_executor.layers.attention_layer_base import AttentionLayerBase
    from vllm.utils.import_utils import resolve_obj_by_qualname
    sc = cfg.speculative_config
    names = set(get_layers_from_vllm_config(cfg, AttentionLayerBase).keys())
    if getattr(sc, "speculator_config", None) is None:
        # Before 0.34 the model runner's init_speculator picks the class by method: built as the
        # runner does, its buffers on the meta device.
        import torch
        from types import SimpleNamespace
        from vllm.v1.worker.gpu.spec_decode import init_speculator
        with torch.device("meta"), lw.cuda_on_meta():
            sp = init_speculator(cfg, torch.device("meta"), SimpleNamespace())
        return type(sp).__name__, sp.load_draft_model(target, names)
    cls = resolve_obj_by_qualname(sc.speculator_config.speculator_class)
    sp = object.__new__(cls)  # the loader reads the configs only; buffers are not made
    sp.vllm_config = cfg
    sp.speculative_config = sc
    sp.draft_model_config = sc.draft_model_config
    draft = sp.load_draft_model(target, names)
    return cls.__name__, draft


def attention_backends(cfg, target_names: set) -> dict:
    """{"target": {backend: layers}, "drafter": {...}}: what each attention layer selected."""
    from vllm.config import get_layers_from_vllm_config
    from vllm.model_executor.layers.attention_layer_base import AttentionLayerBase
    out: dict = {"target": {}, "drafter": {}}
    for n, layer in get_layers_from_vllm_config(cfg, AttentionLayerBase).items():
        try:
            b = layer.get_attn_backend().get_name()
        except Exception as e:  # noqa: BLE001
            b = f"? {type(e).__name__}"
        side = out["target" if n in target_names else "drafter"]
        side[b] = side.get(b, 0) + 1
    return out


def run_case(case: dict, tmp: str, platform, mods) -> dict:
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.utils.torch_utils import set_default_torch_dtype
    from vllm.v1.worker.gpu.attn_utils import get_kv_cache_spec
    cfg = engine_config(case)
    mc = cfg.model_config
    lw.init_dist(cfg, tmp)
    if case["tp"] > 1:
        lw.fake_tp(case["tp"])
    out: dict = {}
    with set_current_vllm_config(cfg):
        with set_default_torch_dtype(mc.dtype), torch.device("meta"), lw.cuda_on_meta():
            target = initialize_model(vllm_config=cfg, model_config=mc)
        target_specs = set(get_kv_cache_spec(cfg))
        out["speculator"], draft = load_drafter(cfg, target)
        platform.update_block_size_for_backend(cfg)
        specs = get_kv_cache_spec(cfg)
        for side, keep in (("drafter_layers", False), ("target_layer_specs", True)):
            out[side] = lw.group_layers({n: s for n, s in specs.items()
                                         if (n in target_specs) == keep})
            for g in out[side]:
                g.pop("names")
        out["target_layers"] = len(target_specs)
        out["attention_backends"] = attention_backends(cfg, target_specs)
        out["drafter_method"] = cfg.speculative_config.method
        out["max_num_batched_tokens"] = cfg.scheduler_config.max_num_batched_tokens
        out["max_in_flight_tokens"] = getattr(cfg, "max_in_flight_tokens", None)
        out.update(ow.plan_kv(cfg, mods, specs, case["tp"], case["available_bytes"]))
        del target, draft
    return out


def main(argv: list[str]) -> None:
    src, overlay, inp, outp = argv[:4]
    t0 = time.time()
    platform, mods = lw.setup(src, overlay)
    patch_get_model()
    # A GPU install has Triton: VllmConfig.use_v2_model_runner (0.33) falls back to the V1 runner
    # without it, whose feature checks refuse drafters the V2 runner serves (mixed sliding/full
    # DFlash). The release's own choice is kept, with Triton present as it is on a GPU.
    import vllm.config.vllm as config_vllm
    if hasattr(config_vllm, "HAS_TRITON"):
        config_vllm.HAS_TRITON = True
    cases = [json.loads(l) for l in open(inp)]
    tb = os.environ.get("ORACLE_TRACEBACK")
    tmp = tempfile.mkdtemp(prefix="vllm-drafters-")
    with open(outp, "w") as out:
        out.write(json.dumps({"worker": {"import_s": round(time.time() - t0, 1)}}) + "\n")
        out.flush()
        for c in cases:
            ow.GPU.update(name=c["gpu_name"], cap=tuple(int(x) for x in c["capability"].split(".")),
                          mem=c["gpu_memory_mib"] << 20, sms=ow.SMS.get(c["gpu"], 132))
            env = dict(os.environ)
            ow.clear_caches()
            t = time.time()
            r = {"case": c["case"]}
            try:
                r["result"] = run_case(c, tmp, platform, mods)
            except BaseException as e:  # noqa: BLE001  (SystemExit of a model too)
                if isinstance(e, KeyboardInterrupt):
                    raise
                r["error"] = lw.error_text(e)
                if tb:
                    traceback.print_exc()
            finally:
                os.environ.clear()
                os.environ.update(env)
                gc.collect()
            r["seconds"] = round(time.time() - t, 2)
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
