"""Worker of vllm_layouts.py: runs inside .venv-vllm with a release's unpacked vllm/ tree first on
sys.path, with the oracle's patches (vllm_oracle_worker.bootstrap: compiled extensions stubbed, a
faked H100 CUDA platform with FlashInfer, in-process model inspection) and these of its own:
  - torch.empty/zeros are the builtins again (the oracle's Python wrappers would hide them from
    torch.device('meta'), whose constructor list is taken from the torch namespace once);
  - cuda_on_meta(): explicit GPU devices (device='cuda'/0, .to('cuda'), .cuda()) go to meta too,
    and tensors made from given values (torch.tensor/as_tensor) are real CPU tensors (models take
    Python scalars from them while constructing);
  - torch.cuda.Stream/Event/current_device/current_stream answer without a GPU;
  - the release's GPU-DSL kernel modules (a top-level `import cutlass`/quack/tilelang/...) and the
    vendored DeepGEMM's .so loader are inert stubs, like the compiled extensions; torchaudio too.

usage (by vllm_layouts.py only):
  vllm_layouts_worker.py SRC OVERLAY list OUT        the registry's lists (+ package versions)
  vllm_layouts_worker.py SRC OVERLAY build IN OUT    one result line per architecture of IN

Per architecture, in the release's own code:
  1. a config: data/models/*.json whose architectures[0] is the architecture (unquantized first,
     then file name), else a hand-written config of layout_configs.json ("configs": remote-code
     checkpoints, published fields), else the defaults of the config class vLLM itself loads for the model type
     (vllm.transformers_utils.config._CONFIG_REGISTRY first, then transformers' CONFIG_MAPPING);
     the model type from vLLM's _ARCHITECTURE_TO_MODEL_TYPE, transformers' auto model mappings
     (inverted), the vLLM module's or architecture's name, or the config class the vLLM module asks
     for (ctx.get_hf_config(X)) / names from vLLM's registry; architectures=[ARCH]; written (the
     differences from PretrainedConfig's defaults, as save_pretrained does) as config.json of a
     temporary model folder;
  2. EngineArgs(model=DIR, skip_tokenizer_init=True, tensor_parallel_size=1, enforce_eager=True,
     load_format="dummy", max_model_len=min(4096, the model's)).create_engine_config();
  3. a single-process gloo world (init_distributed_environment, once per process) and the
     model-parallel groups for this model (ensure_model_parallel_initialized: EP only for MoE);
  4. under set_default_torch_dtype(model dtype) and torch.device("meta"): vLLM's
     model_loader.utils.initialize_model (what BaseModelLoader.create_model calls), no weights;
  5. current_platform.update_block_size_for_backend(vllm_config) (what the executor does after
     load_model), then vllm.v1.worker.gpu.attn_utils.get_kv_cache_spec(vllm_config) (what the GPU
     model runner returns: every AttentionLayerBase of static_forward_context, KV-sharing layers
     left out, the backend's customize_spec applied);
  6. parameters + persistent buffers of the model (numel, bytes; per top-level submodule).
A build failing on a config field the default config lacks (AttributeError) or on a default the model
refuses (an "on_error" message) is retried, at most MAX_PATCH_ROUNDS times, with the values of
layout_configs.json "patches" for the model type (config_fix); the line's config_patches lists them and
its config is the patched one.
"""
from __future__ import annotations

import dataclasses
import enum
import gc
import glob
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import vllm_oracle_worker as ow  # noqa: E402  (stubs, platform, bootstrap)

MAX_MODEL_LEN = 4096
# transformers' auto model mappings consulted first for architecture -> model_type (generation
# heads), then every other *_MAPPING_NAMES in name order
MAPPING_PRIORITY = ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
                    "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES", "MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES",
                    "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
                    "MODEL_MAPPING_NAMES")
SUFFIXES = ("ForConditionalGeneration", "ForCausalLM", "LMHeadModel", "ForCausalLMEagle", "Model",
            "VLChatModel", "ChatModel", "ForMultimodalLM")


# ---------------------------------------------------------------------------- registry
def registry_lists() -> dict:
    from vllm.model_executor.models import registry as R
    text = list(R._TEXT_GENERATION_MODELS)
    mm = [a for a in R._MULTIMODAL_MODELS if a not in R._TEXT_GENERATION_MODELS]
    built = set(text) | set(mm)
    other = {}
    for name in sorted(vars(R)):
        d = getattr(R, name)
        if (name.startswith("_") and name.endswith("_MODELS") and isinstance(d, dict)
                and name not in ("_TEXT_GENERATION_MODELS", "_MULTIMODAL_MODELS", "_VLLM_MODELS",
                                 "_PREVIOUSLY_SUPPORTED_MODELS", "_OOT_SUPPORTED_MODELS")):
            other[name] = len([a for a in d if a not in built])
    skipped = sorted(a for a in R.ModelRegistry.models if a not in built)
    return {"text": text, "multimodal": mm, "skipped_other": len(skipped), "skipped_by_list": other,
            "modules": {a: R.ModelRegistry.models[a].module_name for a in text + mm}}


def package_versions() -> dict:
    import importlib.metadata as md
    out = {}
    for p in ("torch", "transformers", "tokenizers", "huggingface_hub", "pydantic", "flashinfer-python"):
        try:
            out[p] = md.version(p)
        except Exception:
            out[p] = None
    return out


# ---------------------------------------------------------------------------- configs
_ARCH_TYPES: dict | None = None


def hf_arch_types() -> dict[str, list[str]]:
    """architecture name -> model types, from transformers' auto model mappings (inverted)."""
    global _ARCH_TYPES
    if _ARCH_TYPES is None:
        from transformers.models.auto import modeling_auto as ma
        names = [n for n in MAPPING_PRIORITY if hasattr(ma, n)]
        names += sorted(n for n in dir(ma) if n.endswith("_MAPPING_NAMES") and n not in names
                        and isinstance(getattr(ma, n), dict))
        out: dict[str, list[str]] = {}
        for n in names:
            for mt, arch in getattr(ma, n).items():
                for a in (arch if isinstance(arch, (list, tuple)) else [arch]):
                    if mt not in out.setdefault(a, []):
                        out[a].append(mt)
        _ARCH_TYPES = out
    return _ARCH_TYPES


@__import__("functools").lru_cache(None)
def known_model_types() -> tuple[dict, object]:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from vllm.transformers_utils import config as vc
    return CONFIG_MAPPING_NAMES, vc._CONFIG_REGISTRY


def config_class_types() -> dict[str, list[str]]:
    """config class name -> the model types that load it (vLLM's registry first, then transformers')."""
    hf_names, vreg = known_model_types()
    out: dict[str, list[str]] = {}
    for t in sorted(vreg):
        v = dict.__getitem__(vreg, t)
        out.setdefault(v if isinstance(v, str) else v.__name__, []).append(t)
    for t, c in hf_names.items():
        if t not in vreg:
            out.setdefault(c, []).append(t)
    return out


def module_source(module: str) -> str:
    """The text of the vLLM module defining the architecture (all files of a package)."""
    import importlib.util
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return ""
    if spec.submodule_search_locations:
        d = os.path.dirname(spec.origin)
        return "\n".join(open(p).read() for p in sorted(glob.glob(os.path.join(d, "**", "*.py"), recursive=True)))
    return open(spec.origin).read()


def is_composite(model_type: str) -> bool:
    hf_names, vreg = known_model_types()
    try:
        cls = vreg[model_type] if model_type in vreg else __import__(
            "transformers").models.auto.configuration_auto.CONFIG_MAPPING[model_type]
    except Exception:
        return False
    return bool(getattr(cls, "sub_configs", None))


def model_type_for(arch: str, module: str, kind: str) -> tuple[str | None, str]:
    """(model_type, how it was found): vLLM's _ARCHITECTURE_TO_MODEL_TYPE; transformers' auto
    model mappings inverted (a text architecture prefers a plain config, a multimodal one a
    composite); the vLLM module's name or the architecture's stem as a model type; a config
    class the vLLM module names (ctx.get_hf_config(X) first)."""
    import re
    from vllm.transformers_utils import config as vc
    hf_names, vreg = known_model_types()
    known = lambda t: t in hf_names or t in vreg  # noqa: E731
    short = module.rsplit(".", 1)[-1]
    a2t = getattr(vc, "_ARCHITECTURE_TO_MODEL_TYPE", {})
    if arch in a2t:
        return a2t[arch], "vllm _ARCHITECTURE_TO_MODEL_TYPE"
    want_composite = kind == "multimodal"
    cands = [t for t in hf_arch_types().get(arch, []) if known(t)]
    if cands:
        cands.sort(key=lambda t: (is_composite(t) != want_composite, t != short))
        return cands[0], "transformers auto mapping"
    if known(short):
        return short, "vllm module name"
    stem = arch
    for suf in SUFFIXES:
        if stem.endswith(suf) and len(stem) > len(suf):
            stem = stem[: -len(suf)]
            break
    if known(stem.lower()):
        return stem.lower(), "architecture name"
    norm = lambda t: t.lower().replace("_", "").replace("-", "")  # noqa: E731
    same = sorted(t for t in set(hf_names) | set(vreg) if norm(t) in (norm(short), norm(stem)))
    if same:
        same.sort(key=lambda t: (is_composite(t) != want_composite, t))
        return same[0], "module/architecture name without underscores"
    src = module_source(module)
    if src:  # the config class the model's processing info asks for (ctx.get_hf_config(X)),
        # else a class of vLLM's own config registry the module names
        by_cls = config_class_types()
        vreg_cls = {c for c, ts in by_cls.items() if any(t in vreg for t in ts)}
        named = [c for c in dict.fromkeys(re.findall(r"get_hf_config\(\s*([A-Za-z_]\w*Config)\b", src))
                 if c in by_cls]
        how = "get_hf_config"
        if not named:
            named = [c for c in dict.fromkeys(re.findall(r"\b([A-Z]\w*Config)\b", src)) if c in vreg_cls]
            how = "vllm config class"
        if named:
            pool = sorted(named, key=lambda c: (is_composite(by_cls[c][0]) != want_composite, named.index(c)))
            types = by_cls[pool[0]]
            return (short if short in types else types[0]), f"{how} {pool[0]} named in {module}"
    return None, "none"


def real_config(arch: str) -> tuple[dict | None, str | None]:
    """A config of data/models whose architectures[0] is arch (unquantized first, then name)."""
    found = []
    for p in sorted(glob.glob(os.path.join(ROOT, "data", "models", "*.json"))):
        try:
            d = json.load(open(p))
        except Exception:
            continue
        if isinstance(d, dict) and (d.get("architectures") or [None])[0] == arch:
            q = "quantization_config" in d or "quantization_config" in (d.get("text_config") or {})
            found.append((q, os.path.relpath(p, ROOT), d))
    if not found:
        return None, None
    found.sort(key=lambda x: (x[0], x[1]))
    return found[0][2], found[0][1]


def default_config(model_type: str):
    """(config object, source): the class vLLM loads for the model type, with its defaults."""
    _, vreg = known_model_types()
    if model_type in vreg:
        cls = vreg[model_type]
        return cls(), f"vllm configs.{cls.__name__} defaults"
    from transformers import AutoConfig
    cfg = AutoConfig.for_model(model_type)
    return cfg, f"transformers {type(cfg).__name__} defaults"


LAYOUT_CONFIGS = os.path.join(HERE, "layout_configs.json")


@__import__("functools").lru_cache(None)
def layout_configs() -> dict:
    """tools/engine-sync/layout_configs.json: hand-written configs (architecture -> published
    fields + source) and the config patches (model type -> missing fields / refused defaults)."""
    with open(LAYOUT_CONFIGS) as f:
        return json.load(f)


def hand_config(arch: str) -> tuple[dict | None, str | None]:
    e = layout_configs().get("configs", {}).get(arch)
    if e is None:
        return None, None
    d = json.loads(json.dumps(e["config"]))
    d["architectures"] = [arch]
    return d, e["source"]


def register_plain_config(model_type: str, attribute_map: dict | None = None, base: str | None = None) -> bool:
    """remote_config.register_plain_config for a model type neither transformers nor vLLM knows
    (vLLM's own config registry has a class for the others). True when one was registered."""
    hf_names, vreg = known_model_types()
    if model_type in hf_names or model_type in vreg:
        return False
    import remote_config
    return remote_config.register_plain_config(model_type, attribute_map, base)


def make_config(arch: str, module: str, kind: str) -> tuple[dict, str, str | None, str]:
    """(config.json dict, config_source, model_type, how the model type was found)."""
    d, src = real_config(arch)
    if d is not None:
        return d, src, d.get("model_type"), "config.json"
    d, src = hand_config(arch)
    if d is not None:
        mt = d.get("model_type")
        e = layout_configs()["configs"][arch]
        if register_plain_config(mt, e.get("attribute_map"), e.get("base_class")):
            src += (f" (no config class here: a {e.get('base_class') or 'PretrainedConfig'} subclass "
                    f"registered for model_type {mt})")
        return d, src, mt, "layout_configs.json"
    mt, how = model_type_for(arch, module, kind)
    if mt is None:
        raise LookupError(f"no model_type for {arch} (not in transformers' auto mappings, "
                          f"vLLM's config registry, nor named by module '{module}')")
    cfg, src = default_config(mt)
    cfg.architectures = [arch]
    # the differences from the class defaults (what save_pretrained writes): strict configs refuse
    # some keys of the full dict (e.g. _name_or_path), and loading fills the defaults back in
    d = json.loads(cfg.to_json_string(use_diff=True))
    d["architectures"] = [arch]
    return d, src, mt, how


# ---------------------------------------------------------------------------- build
_DIST = {"up": False}


def init_dist(cfg, tmp: str) -> None:
    """A single-process gloo world (once per process) and vLLM's model-parallel groups (world 1,
    tp 1) made again for each model under its config: initialize_model_parallel creates the EP
    group only when the current model is MoE."""
    from vllm.config import set_current_vllm_config
    from vllm.distributed import parallel_state as ps
    with set_current_vllm_config(cfg):
        if not _DIST["up"]:
            ps.init_distributed_environment(world_size=1, rank=0, local_rank=0,
                                            distributed_init_method=f"file://{tmp}/dist-store",
                                            backend="gloo")
            _DIST["up"] = True
        ps.destroy_model_parallel()
        ps.ensure_model_parallel_initialized(1, 1)


def is_cuda(d) -> bool:
    import torch
    if isinstance(d, torch.device):
        return d.type == "cuda"
    if isinstance(d, str):
        return d.startswith("cuda")
    return isinstance(d, int) and not isinstance(d, bool)


def cuda_on_meta():
    """A torch function mode (entered inside torch.device('meta')) that sends every tensor a model
    asks for on the GPU (device='cuda'/'cuda:0'/0, Tensor.to('cuda'), Tensor.cuda()) to the meta
    device too: the loader's own target device is the GPU, so model code names it freely."""
    import torch
    from torch.overrides import TorchFunctionMode

    DATA_FACTORIES = {torch.tensor, torch.as_tensor, torch.scalar_tensor}

    class CudaToMeta(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if "device" in kwargs and is_cuda(kwargs["device"]):
                kwargs["device"] = torch.device("meta")
            if func in DATA_FACTORIES and kwargs.get("device") is None:
                # tensors made from given values are real (CPU): models derive Python scalars
                # from them at construction (.item(): XIELU's beta, GeluAndMulSparse's icdf)
                kwargs["device"] = torch.device("cpu")
            if func is torch.Tensor.cuda:
                return args[0].to("meta")
            if func is torch.Tensor.to and len(args) > 1 and is_cuda(args[1]):
                args = (args[0], torch.device("meta")) + tuple(args[2:])
            return func(*args, **kwargs)
    return CudaToMeta()


# Python shims that load one of the wheel's *.so files by path (not extracted here): stubbed with
# the compiled extensions (the vendored DeepGEMM counts as installed, as in the CUDA wheel)
NATIVE_LOADERS = {"vllm.third_party.deep_gemm._C"}
def patch_cuda_runtime() -> None:
    """torch.cuda calls of model constructors (auxiliary streams/events for overlapped MoE,
    current_device for buffers, the SM count FlashInfer's TRT-LLM decode buffer is sized by on
    SM100) answered without a GPU: inert streams and events, device 0, the faked GPU's
    properties."""
    import torch
    import stubs

    class Inert(stubs._StubBase):
        pass
    torch.cuda.Stream = Inert
    torch.cuda.Event = Inert
    torch.cuda.current_device = lambda: 0
    torch.cuda.current_stream = lambda *a, **k: Inert()
    torch.cuda.stream = lambda *a, **k: __import__("contextlib").nullcontext()

    class Properties:
        @property
        def multi_processor_count(self):
            return ow.GPU["sms"]

        @property
        def total_memory(self):
            return ow.GPU["mem"]

        @property
        def name(self):
            return ow.GPU["name"]

        @property
        def major(self):
            return ow.GPU["cap"][0]

        @property
        def minor(self):
            return ow.GPU["cap"][1]
    torch.cuda.get_device_properties = lambda *a, **k: Properties()


def plain(v):
    """JSON-able value of a spec field (dtypes without 'torch.', enums by value, dataclasses as dicts)."""
    import torch
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    if isinstance(v, enum.Enum):
        return plain(v.value) if isinstance(v.value, (str, int)) else v.name
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return spec_dict(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, torch.Size):
        return list(v)
    return str(v)


def spec_dict(spec) -> dict:
    out = {"class": type(spec).__name__}
    for f in dataclasses.fields(spec):
        out[f.name] = plain(getattr(spec, f.name))
    for prop in ("page_size_bytes", "real_page_size_bytes"):
        try:
            out[prop] = plain(getattr(spec, prop))
        except Exception:
            pass
    return out


def group_layers(named: dict) -> list[dict]:
    """[{"spec": {...}, "count": n, "names": [...]}] in the order of first appearance."""
    groups: dict[str, dict] = {}
    for name, spec in named.items():
        d = spec_dict(spec)
        k = json.dumps(d, sort_keys=True)
        g = groups.setdefault(k, {"spec": d, "count": 0, "names": []})
        g["count"] += 1
        g["names"].append(name)
    return list(groups.values())


def weights(model) -> dict:
    """Parameters + persistent buffers: numel, bytes (meta tensors keep their dtype), per
    top-level submodule."""
    seen: set[int] = set()
    count = nbytes = 0
    by_mod: dict[str, int] = {}
    by_mod_count: dict[str, int] = {}
    by_dtype: dict[str, int] = {}

    def add(name, t):
        nonlocal count, nbytes
        if t is None or id(t) in seen:
            return
        seen.add(id(t))
        n, b = t.numel(), t.numel() * t.element_size()
        count += n
        nbytes += b
        # LAYOUTS_MODULE_DEPTH (a debugging aid, default 1): how many name parts key the totals,
        # with layer indices folded ("model.layers.*.mixer").
        depth = int(os.environ.get("LAYOUTS_MODULE_DEPTH", "1"))
        top = ".".join("*" if part.isdigit() else part for part in name.split(".")[:depth])
        by_mod[top] = by_mod.get(top, 0) + b
        by_mod_count[top] = by_mod_count.get(top, 0) + n
        dt = str(t.dtype).replace("torch.", "")
        by_dtype[dt] = by_dtype.get(dt, 0) + b
    for name, p in model.named_parameters():
        add(name, p)
    for mname, m in model.named_modules():
        for bname, b in m._buffers.items():
            if b is not None and bname not in m._non_persistent_buffers_set:
                add(f"{mname}.{bname}" if mname else bname, b)
    return {"param_count": count, "param_bytes": nbytes,
            "param_bytes_by_module": dict(sorted(by_mod.items())),
            "param_count_by_module": dict(sorted(by_mod_count.items())),
            "param_bytes_by_dtype": dict(sorted(by_dtype.items()))}


def engine_config(model_dir: str, mml: int | None, tp: int = 1):
    from vllm.engine.arg_utils import EngineArgs
    kw = dict(model=model_dir, skip_tokenizer_init=True, tensor_parallel_size=tp, enforce_eager=True,
              load_format="dummy", trust_remote_code=False)
    if mml is not None:
        kw["max_model_len"] = mml
    return EngineArgs(**kw).create_engine_config()


def fake_tp(tp: int) -> None:
    """A tensor-parallel group of `tp` ranks seen from rank 0 in a world of one process: the TP
    and EP coordinators answer world_size tp, rank 0 (model construction only shards by them; no
    collective runs while a model is built on the meta device)."""
    from vllm.distributed import parallel_state as ps
    for g in (ps._TP, getattr(ps, "_EP", None)):
        if g is not None:
            g.world_size, g.ranks, g.rank_in_group = tp, list(range(tp)), 0


def construct(mdir: str, tmp: str, platform, tp: int) -> dict:
    """Build the model of mdir/config.json at tensor parallelism tp; the figures of one worker."""
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.utils.torch_utils import set_default_torch_dtype
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.v1.worker.gpu.attn_utils import get_kv_cache_spec, get_shared_kv_cache_layers
    from vllm.config import get_layers_from_vllm_config
    from vllm.model_executor.layers.attention_layer_base import AttentionLayerBase

    try:
        cfg = engine_config(mdir, MAX_MODEL_LEN, tp)
    except Exception as e:  # the model's own max is below 4096: take it
        if "max_model_len" not in str(e) and "max model len" not in str(e).lower():
            raise
        cfg = engine_config(mdir, None, tp)
    mc = cfg.model_config
    init_dist(cfg, tmp)
    if tp > 1:
        fake_tp(tp)
    with set_current_vllm_config(cfg):
        with set_default_torch_dtype(mc.dtype), torch.device("meta"), cuda_on_meta():
            model = initialize_model(vllm_config=cfg, model_config=mc)
        platform.update_block_size_for_backend(cfg)
        specs = get_kv_cache_spec(cfg)
        shared = get_shared_kv_cache_layers(cfg)
        layers = get_layers_from_vllm_config(cfg, AttentionLayerBase)
        no_kv = [n for n in layers if n not in specs and n not in shared]
        backends = {}
        for n, l in layers.items():
            try:
                b = l.get_attn_backend().get_name()
            except Exception as e:
                b = f"? {type(e).__name__}"
            backends[b] = backends.get(b, 0) + 1
    out = dict(tp=tp, dtype=str(mc.dtype).replace("torch.", ""), block_size=cfg.cache_config.block_size,
               max_model_len=mc.max_model_len, is_hybrid=bool(mc.is_hybrid),
               is_attention_free=bool(getattr(mc, "is_attention_free", False)),
               mamba_block_size=getattr(cfg.cache_config, "mamba_block_size", None),
               attention_backends=dict(sorted(backends.items())),
               layers=group_layers(specs))
    if shared:
        out["kv_shared_layers"] = {"count": len(shared), "targets": dict(shared)}
    if no_kv:
        out["no_kv_layers"] = {"count": len(no_kv), "names": no_kv}
    out.update(weights(model))
    del model
    return out


MAX_PATCH_ROUNDS = 8


def set_path(conf: dict, path: str, value) -> None:
    """conf["a"]["b"] = value for path "a.b" (sub-dicts made when absent)."""
    keys = path.split(".")
    d = conf
    for k in keys[:-1]:
        if not isinstance(d.get(k), dict):
            d[k] = {}
        d = d[k]
    d[keys[-1]] = value


def config_path_of(obj, conf: dict, mt: str | None) -> str | None:
    """Where in config.json the config object `obj` comes from: "" (the top-level config), or the
    key of a sub-config (text_config, vision_config, attn_config, ...) whose class or model_type
    is obj's; None when it cannot be told."""
    from transformers import PretrainedConfig
    if not isinstance(obj, PretrainedConfig):
        return None
    _, vreg = known_model_types()
    try:
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
        root = vreg[mt] if mt in vreg else CONFIG_MAPPING[mt]
    except Exception:
        root = None
    if root is not None and type(obj) is root or getattr(obj, "model_type", None) == mt:
        return ""
    subs = dict(getattr(root, "sub_configs", None) or {})
    for k, c in sorted(subs.items()):
        if isinstance(c, type) and type(obj) is c:
            return k
    om = getattr(obj, "model_type", None)
    for k, v in sorted(conf.items()):
        if isinstance(v, dict) and om and v.get("model_type") == om:
            return k
    for k, c in sorted(subs.items()):
        if isinstance(c, type) and isinstance(obj, c):
            return k
    return None


def config_fix(e: BaseException, conf: dict, mt: str | None) -> dict | None:
    """{config path: value} for a failure the patch table of layout_configs.json answers:
    an AttributeError naming a field a config object lacks ("fields", by path or bare name), or an
    error whose message contains a key of "on_error"; None otherwise."""
    entry = layout_configs().get("patches", {}).get(mt or "")
    if not entry:
        return None
    msg = str(e)
    for sub, fix in sorted(entry.get("on_error", {}).items()):
        if sub in msg or sub in error_text(e):
            return dict(fix)
    fields = entry.get("fields", {})
    if not isinstance(e, AttributeError):
        # a KeyError / TypeError of a missing value (read through a dict, or getattr(..., None)):
        # only what "on_error" names (matched above)
        return None
    import re
    m = re.match(r"'(\w+)' object has no attribute '(\w+)'", msg)
    if not m or not m.group(1).endswith("Config"):
        return None
    name = m.group(2)
    obj = getattr(e, "obj", None)
    where = config_path_of(obj, conf, mt) if obj is not None else config_path_by_class(m.group(1), mt)
    if where is None:
        return None
    path = f"{where}.{name}" if where else name
    if path not in fields:
        return None
    v = fields[path]
    if isinstance(v, dict) and set(v) == {"$copy"}:  # the same config object's field F
        if obj is None or not hasattr(obj, v["$copy"]):
            return None
        v = getattr(obj, v["$copy"])
    return {path: v}


def config_path_by_class(cls_name: str, mt: str | None) -> str | None:
    """config_path_of when only the class name is known (an AttributeError raised by hand)."""
    _, vreg = known_model_types()
    try:
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
        root = vreg[mt] if mt in vreg else CONFIG_MAPPING[mt]
    except Exception:
        return None
    if root.__name__ == cls_name:
        return ""
    for k, c in sorted((getattr(root, "sub_configs", None) or {}).items()):
        if isinstance(c, type) and c.__name__ == cls_name:
            return k
    return None


def alibi_slopes_on_cpu(module: str) -> None:
    """ALiBi models (BLOOM's _get_alibi_slopes, Step1's _get_step_alibi_slopes) compute their slopes
    with torch.arange and read them back with .tolist() while they are built: constants of the
    config, computed on the CPU here as on a serving host (on the meta device they have no values).
    Module-level functions of the architecture's module whose name says so are wrapped once."""
    import importlib
    import torch
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001  the build reports the import's own failure
        return
    for name, f in list(vars(mod).items()):
        if "alibi_slopes" in name and callable(f) and not getattr(f, "_on_cpu", False):
            def on_cpu(*a, _f=f, **k):
                with torch.device("cpu"):
                    return _f(*a, **k)
            on_cpu._on_cpu = True
            setattr(mod, name, on_cpu)


def build(out: dict, module: str, tmp: str, platform) -> dict:
    """Fills `out` (architecture, kind given) step by step, so a failure keeps what was known; then
    the same at tp 2 (faked, fake_tp) under "tp2" (layers without names), or "tp2": {"error": ...}."""
    arch = out["architecture"]
    conf, src, mt, how = make_config(arch, module, out["kind"])
    if out.get("variant"):
        # layout_configs.json "variants": the first config with some fields changed.
        v = next(x for x in layout_configs()["variants"][arch] if x["name"] == out["variant"])
        for path, value in v["set"].items():
            set_path(conf, path, value)
        out["variant_source"] = v["source"]
    out.update(model_type=mt, config_source=src, model_type_from=how, config=conf)
    alibi_slopes_on_cpu(module)
    mdir = os.path.join(tmp, "model")
    patches: dict = {}
    for rnd in range(MAX_PATCH_ROUNDS + 1):
        shutil.rmtree(mdir, ignore_errors=True)
        os.makedirs(mdir)
        with open(os.path.join(mdir, "config.json"), "w") as f:
            json.dump(conf, f, indent=1, sort_keys=True)
        try:
            res = construct(mdir, tmp, platform, 1)
            break
        except Exception as e:  # noqa: BLE001
            fix = config_fix(e, conf, mt)
            if not fix or rnd == MAX_PATCH_ROUNDS or all(patches.get(k, object()) == v for k, v in fix.items()):
                raise
            if os.environ.get("LAYOUTS_TRACEBACK"):
                print(f"{arch}: patch {fix} after {error_text(e)}", file=sys.stderr)
            for path, v in fix.items():
                set_path(conf, path, v)
                patches[path] = v
            out["config_patches"] = patches
            out["config_patches_source"] = layout_configs()["patches"][mt]["source"]
            ow.clear_caches()
    out.update(res)
    if TP2:
        try:
            t2 = construct(mdir, tmp, platform, 2)
            for g in t2["layers"]:
                g.pop("names")
            t2.pop("no_kv_layers", None)
            t2.pop("kv_shared_layers", None)
            out["tp2"] = t2
        except Exception as e:  # noqa: BLE001
            out["tp2"] = {"error": error_text(e)}
            if os.environ.get("LAYOUTS_TRACEBACK"):
                traceback.print_exc()
    return out


TP2 = os.environ.get("LAYOUTS_TP2", "1") == "1"


def error_text(e: BaseException) -> str:
    """'Type: first line of the message' (pydantic: + the validator's own line); an empty or
    bare message gets the innermost frame of the release's code (' @ vllm/x.py:123')."""
    lines = [l for l in str(e).strip().splitlines() if l.strip()] or [""]
    msg = lines[0]
    why = next((l.strip() for l in lines[1:] if l.strip().startswith(("Value error", "Assertion"))), None)
    if why:  # pydantic: the validator's own message is on a later line
        msg += " | " + why.split(" [type=")[0]
    elif type(e).__name__ == "ValidationError" and len(lines) > 2:
        msg += " | " + lines[1].strip() + ": " + lines[2].strip().split(" [type=")[0]
    inner = e
    if type(e).__name__ == "ValidationError" and msg.rstrip().endswith(","):  # a bare assert in a validator
        try:
            inner = next(x["ctx"]["error"] for x in e.errors() if isinstance(x.get("ctx", {}).get("error"), BaseException))
        except Exception:
            inner = e
    if not msg.strip() or isinstance(inner, AssertionError):
        where = None
        for fr in traceback.extract_tb(inner.__traceback__):
            if "/vllm/" in fr.filename or "/transformers/" in fr.filename:
                where = fr
        if where is not None:
            tail = where.filename.split("/vllm-", 1)[-1].split("/", 1)[-1] if "/vllm/" in where.filename \
                else "transformers/" + where.filename.split("/transformers/", 1)[1]
            msg = (msg + " " if msg.strip() else "") + f"@ {tail}:{where.lineno}"
    return f"{type(e).__name__}: {msg}"[:400]


def setup(src: str, overlay: str):
    """The oracle's bootstrap (vllm_oracle_worker.bootstrap) made fit for building models on the
    meta device; returns (platform, mods). Shared with vllm_drafters_worker.py."""
    import torch
    factories = {n: getattr(torch, n) for n in ("empty", "zeros")}
    # The fused GEMM + reduce kernels (CuTe-DSL, stubbed here) that Kimi's model code picks when
    # these are on: a kernel choice, no parameter or cache of its own; off, as where they cannot run.
    for flag in ("VLLM_KIMI_K3_GEMM_AR", "VLLM_ENABLE_GEMM_RS"):
        os.environ.setdefault(flag, "0")
    platform, mods = ow.bootstrap(src, overlay)
    # The oracle wraps torch.empty/zeros in Python (device='cuda' -> meta, for module-level
    # workspaces). torch.device('meta') only places the calls of the functions its
    # _device_constructors() lists, taken once from the torch namespace: with the wrappers there,
    # the builtins fall through to real CPU memory. Here cuda_on_meta() redirects explicit GPU
    # devices instead, so the builtins are restored.
    for n, f in factories.items():
        setattr(torch, n, f)
    import torch.utils._device as tdev
    tdev._device_constructors.cache_clear()
    import stubs
    stubs.install_subtree_stubs(sorted(NATIVE_LOADERS))
    patch_cuda_runtime()
    # torchaudio (a Requires-Dist of the wheel; native, tied to a torch build): inert
    stubs.install_stub_modules(["torchaudio"], {"torchaudio": "2.11.0"})
    return platform, mods


def main(argv: list[str]) -> None:
    src, overlay, mode = argv[:3]
    t0 = time.time()
    platform, _ = setup(src, overlay)
    if mode == "list":
        with open(argv[3], "w") as f:
            json.dump(dict(registry_lists(), packages=package_versions()), f)
        return
    inp, outp = argv[3:5]
    items = [json.loads(l) for l in open(inp)]
    tb = os.environ.get("LAYOUTS_TRACEBACK")
    tmp = tempfile.mkdtemp(prefix="vllm-layouts-")
    try:
        with open(outp, "w") as out:
            out.write(json.dumps({"worker": {"import_s": round(time.time() - t0, 1)}}) + "\n")
            out.flush()
            for it in items:
                out.write(json.dumps({"start": it["architecture"]}) + "\n")
                out.flush()
                env = dict(os.environ)
                ow.clear_caches()
                t = time.time()
                r = {"architecture": it["architecture"], "kind": it["kind"]}
                if it.get("variant"):
                    r["variant"] = it["variant"]
                try:
                    build(r, it["module"], tmp, platform)
                except BaseException as e:  # noqa: BLE001  (SystemExit of a model too)
                    if isinstance(e, KeyboardInterrupt):
                        raise
                    for k in list(r):  # partial results of the build are dropped
                        if k not in ("architecture", "kind", "variant", "variant_source", "model_type", "config_source",
                                     "model_type_from", "config",
                                     "config_patches", "config_patches_source"):
                            r.pop(k)
                    r["error"] = error_text(e)
                    if tb:
                        traceback.print_exc()
                finally:
                    os.environ.clear()
                    os.environ.update(env)
                    gc.collect()
                out.write(json.dumps(r, separators=(",", ":")) + "\n")
                out.write(json.dumps({"timing": it["architecture"], "s": round(time.time() - t, 2)}) + "\n")
                out.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
