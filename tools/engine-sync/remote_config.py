"""A config class for a model type whose checkpoints bring theirs as remote code (trust_remote_code),
registered with transformers' AutoConfig so an engine loads a hand-written config.json of it
(layout_configs.json "configs") as it would load the checkpoint's. Shared by the vLLM layouts worker
and the SGLang oracle worker."""
from __future__ import annotations


def register_plain_config(model_type: str, attribute_map: dict | None = None, base: str | None = None) -> bool:
    """A plain PretrainedConfig subclass registered for `model_type`, so the config.json's fields
    become the config's attributes as the remote class's would (or, `base` given, a subclass of that
    transformers config class, as the remote class is). True when one is registered (now or before);
    False when transformers already has a class of its own for the type."""
    from transformers import AutoConfig, PretrainedConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    if model_type in CONFIG_MAPPING:
        return getattr(CONFIG_MAPPING[model_type], "__name__", "").startswith("Plain_")
    if base:
        import transformers
        cls = type(f"Plain_{model_type}_Config", (getattr(transformers, base),), {"model_type": model_type})
        AutoConfig.register(model_type, cls)
        return True

    def __init__(self, **kwargs):
        # as a remote-code config class does: its own fields are attributes before
        # PretrainedConfig.__init__ runs (which standardizes rope_scaling from them)
        for k, v in kwargs.items():
            if not k.startswith("_") and k not in ("rope_scaling", "rope_parameters"):
                setattr(self, k, v)
        PretrainedConfig.__init__(self, **kwargs)
    cls = type(f"Plain_{model_type}_Config", (PretrainedConfig,),
               {"model_type": model_type, "attribute_map": dict(attribute_map or {}), "__init__": __init__})
    AutoConfig.register(model_type, cls)
    return True
