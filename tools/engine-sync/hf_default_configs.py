"""Default configs and parameter counts of transformers' own model classes, for architectures an
engine serves that the vLLM layouts file has no build of (sglang_layouts.py runs this in
.venv-sglang, whose transformers is pinned).

usage: .venv-sglang/bin/python hf_default_configs.py IN.json OUT.jsonl
IN: [[architecture, model_type], ...]. Per line of OUT: architecture, model_type, config (the
default-constructed config class's to_dict(), architectures set to [architecture]), and, where
transformers' AutoModelForCausalLM (else AutoModel) builds it on the meta device in the config's
dtype, param_count and param_bytes (its parameters, tied weights counted once);
or error.
"""
from __future__ import annotations

import json
import sys


def main(inp: str, out: str) -> None:
    import logging
    import warnings
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    import torch
    import transformers
    from transformers import AutoConfig, AutoModel, AutoModelForCausalLM
    transformers.logging.set_verbosity_error()
    with open(out, "w") as f:
        for arch, model_type in json.load(open(inp)):
            row = {"architecture": arch, "model_type": model_type}
            try:
                cfg = AutoConfig.for_model(model_type)
                cfg.architectures = [arch]
                row["config"] = json.loads(cfg.to_json_string(use_diff=False))
                dtype = {"float32": torch.float32, "float16": torch.float16}.get(
                    str(row["config"].get("torch_dtype") or row["config"].get("dtype")), torch.bfloat16)
                model = None
                for auto in (AutoModelForCausalLM, AutoModel):
                    try:
                        with torch.device("meta"):
                            model = auto.from_config(cfg, torch_dtype=dtype)
                        break
                    except Exception as e:  # noqa: BLE001  a class this auto mapping lacks
                        row["model_error"] = f"{type(e).__name__}: {e}"[:200]
                if model is not None:
                    row.pop("model_error", None)
                    params = list(model.parameters())
                    row["param_count"] = sum(p.numel() for p in params)
                    row["param_bytes"] = sum(p.numel() * p.element_size() for p in params)
                    row["hf_model_class"] = type(model).__name__
            except Exception as e:  # noqa: BLE001  recorded, as the engine oracles do
                row["error"] = f"{type(e).__name__}: {e}"[:200]
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
