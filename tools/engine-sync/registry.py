#!/usr/bin/env python3
"""The architectures an engine release serves, read from its own model registry.

usage: registry.py sglang|vllm [--from A] [--to B]
       registry.py model-types TRANSFORMERS_VERSION
       (make architectures)

Writes data/ENGINE/architectures.tsv: architecture, kind, module, and the first and last release
whose registry lists it (every final and post release on PyPI in the range). Read statically with
Python's ast from the release's wheel (HTTP range reads of the members named below, as
wheel_grep.py does; nothing of the engine is imported or kept):

- vLLM: vllm/model_executor/models/registry.py, the dict literals _TEXT_GENERATION_MODELS (kind
  text), _MULTIMODAL_MODELS (multimodal), _EMBEDDING_MODELS, _LATE_INTERACTION_MODELS,
  _REWARD_MODELS, _TOKEN_CLASSIFICATION_MODELS, _SEQUENCE_CLASSIFICATION_MODELS (pooling) and
  _SPECULATIVE_DECODING_MODELS (speculative). ModelRegistry is built from exactly these.
- SGLang: every top-level module of sglang/srt/models/ and its EntryClass (a class or a list;
  registry.py::import_model_classes keys the registry by each class's __name__); kind multimodal
  when configs/model_config.py::multimodal_model_archs lists it, pooling when
  is_generation_model names it, else text.

`model-types` writes data/architecture-model-types.tsv: architecture -> model_type, inverted from
transformers' own auto mappings (models/auto/modeling_auto.py *_MAPPING_NAMES) of the pinned
release, so servescope can tell which config reader an architecture's config.json goes through.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import re
import sys
import zipfile

import common


def wheel_members(engine: str, version: str, wanted) -> dict[str, bytes]:
    """The members of the release's wheel for which wanted(name) is true: from the cached wheel
    when flags.py downloaded it already, else by HTTP range reads."""
    d = os.path.join(common.CACHE, "wheels", engine)
    pref = f"{engine}-{version}-"
    local = sorted(f for f in os.listdir(d) if f.startswith(pref) and f.endswith(".whl")) \
        if os.path.isdir(d) else []
    if local:
        with zipfile.ZipFile(os.path.join(d, local[0])) as z:
            return {m: z.read(m) for m in z.namelist() if wanted(m)}, local[0]
    from remotezip import RemoteZip
    import wheel_grep
    url = wheel_grep.wheel_url(engine, version)
    with RemoteZip(url) as z:
        return {m: z.read(m) for m in z.namelist() if wanted(m)}, url.rsplit("/", 1)[-1]


def literal_dicts(source: str, names: set[str]) -> dict[str, dict]:
    """Module-level `NAME = {...}` dict literals (entries that are not literals are skipped and
    reported; `**OTHER` merges of dicts read earlier are followed)."""
    out: dict[str, dict] = {}
    for node in ast.parse(source).body:
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Dict):
            continue
        d: dict = {}
        for k, v in zip(value.keys, value.values):
            if k is None:  # **OTHER
                if isinstance(v, ast.Name) and v.id in out:
                    d.update(out[v.id])
                continue
            try:
                d[ast.literal_eval(k)] = ast.literal_eval(v)
            except ValueError:
                print(f"  {target.id}: entry at line {k.lineno} is not a literal; skipped",
                      file=sys.stderr)
        out[target.id] = d
    return {k: v for k, v in out.items() if k in names}


VLLM_KINDS = {
    "_TEXT_GENERATION_MODELS": "text",
    "_MULTIMODAL_MODELS": "multimodal",
    "_EMBEDDING_MODELS": "pooling",
    "_LATE_INTERACTION_MODELS": "pooling",
    "_REWARD_MODELS": "pooling",
    "_TOKEN_CLASSIFICATION_MODELS": "pooling",
    "_SEQUENCE_CLASSIFICATION_MODELS": "pooling",
    "_CROSS_ENCODER_MODELS": "pooling",
    "_SPECULATIVE_DECODING_MODELS": "speculative",
}


def vllm_rows(version: str) -> tuple[list[tuple[str, str, str]], str]:
    members, wheel = wheel_members(
        "vllm", version, lambda m: m == "vllm/model_executor/models/registry.py")
    if not members:
        raise RuntimeError(f"vllm {version}: no model_executor/models/registry.py in the wheel")
    dicts = literal_dicts(next(iter(members.values())).decode(), set(VLLM_KINDS))
    rows: dict[str, tuple[str, str, str]] = {}
    for name, kind in VLLM_KINDS.items():  # first kind wins: generation before pooling
        for arch, value in dicts.get(name, {}).items():
            module = value[0] if isinstance(value, tuple) else str(value)
            rows.setdefault(arch, (arch, kind, module))
    return sorted(rows.values()), wheel


def entry_classes(tree: ast.Module) -> list[str]:
    """The __name__ of each class a module's EntryClass names (aliases `A = B` resolved)."""
    aliases = {}
    entry = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "EntryClass":
                entry = node.value
            elif isinstance(node.value, ast.Name):
                aliases[name] = node.value.id
    if entry is None:
        return []
    elts = entry.elts if isinstance(entry, (ast.List, ast.Tuple)) else [entry]
    out = []
    for e in elts:
        if isinstance(e, ast.Name):
            name = e.id
            while name in aliases:
                name = aliases[name]
            out.append(name)
    return out


def string_list(source: str, name: str, imported: dict[str, list[str]] | None = None) -> list[str]:
    """A module-level list of strings; `*OTHER` entries are expanded from `imported` (lists of
    other modules) or from lists of the same module."""
    known = dict(imported or {})
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple))):
            continue
        out = []
        for e in node.value.elts:
            if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name):
                if e.value.id not in known:
                    print(f"  {name}: *{e.value.id} not found; left out", file=sys.stderr)
                out += known.get(e.value.id, [])
            elif isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
        for t in node.targets:
            if isinstance(t, ast.Name):
                known[t.id] = out
                if t.id == name:
                    return out
    return []


def compared_names(source: str, function: str) -> set[str]:
    """String constants compared with `in model_architectures` inside a function."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return {c.left.value for c in ast.walk(node)
                    if isinstance(c, ast.Compare) and isinstance(c.left, ast.Constant)
                    and isinstance(c.left.value, str)}
    return set()


# SGLang registers its draft models (MTP/NextN heads, EAGLE/EAGLE3/DFlash/DSpark drafters, Gemma 4's
# assistant), pooling heads and generic implementations beside its generation models, in the same
# EntryClass lists, as classes named after what they are; vLLM lists the same names apart
# (_SPECULATIVE_DECODING_MODELS: DFlash*DraftModel, DSpark*, LiLiCorrDraftModel,
# MuseGlimmerAssistantModel, DFlashLagunaForCausalLM; its pooling dicts; _TRANSFORMERS_BACKEND_MODELS).
# A class SGLang's model_config.py does not sort is sorted by its name the way vLLM sorts them.
DRAFT_CLASS = re.compile(r"(NextN|MTP|Eagle3?|EAGLE3?|Medusa)$|Eagle|DFlash|DSpark|DraftModel$|Assistant")
POOLING_CLASS = re.compile(r"(ForSequenceClassification|ForClassification|ForRewardModel)$|Embedding")
BACKEND_CLASS = re.compile(r"^(Transformers|TorchNative)")  # a generic implementation, not an architecture


def sglang_name_kind(arch: str, kind: str) -> str:
    """The kind of an SGLang class its model_config.py left as a generation model ("text")."""
    if kind != "text":
        return kind
    return "backend" if BACKEND_CLASS.search(arch) else "speculative" if DRAFT_CLASS.search(arch) \
        else "pooling" if POOLING_CLASS.search(arch) else "text"


def sglang_rows(version: str) -> tuple[list[tuple[str, str, str]], str]:
    def wanted(m: str) -> bool:
        parts = m.split("/")
        return (len(parts) == 4 and m.startswith("sglang/srt/models/") and m.endswith(".py")) \
            or m == "sglang/srt/configs/model_config.py"
    members, wheel = wheel_members("sglang", version, wanted)
    config = members.pop("sglang/srt/configs/model_config.py", b"").decode()
    multimodal = set(string_list(config, "multimodal_model_archs"))
    pooling = compared_names(config, "is_generation_model")
    rows = {}
    for path, body in sorted(members.items()):
        module = path.rsplit("/", 1)[-1][:-3]
        try:
            tree = ast.parse(body.decode())
        except SyntaxError as e:
            print(f"  {path}: {e}", file=sys.stderr)
            continue
        for arch in entry_classes(tree):
            kind = "multimodal" if arch in multimodal else "pooling" if arch in pooling else \
                sglang_name_kind(arch, "text")
            rows.setdefault(arch, (arch, kind, module))
    return sorted(rows.values()), wheel


def release_rows(engine: str, version: str) -> list[tuple[str, str, str]]:
    """One release's rows, cached under .cache/registry/ (a release's wheel never changes)."""
    path = os.path.join(common.CACHE, "registry", f"{engine}-{version}.json")
    if os.path.exists(path):
        return [tuple(r) for r in json.load(open(path))]
    rows, _ = (vllm_rows if engine == "vllm" else sglang_rows)(version)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(rows, f)
    os.replace(path + ".tmp", path)
    return rows


def write_engine(engine: str, lo: str | None, hi: str | None) -> None:
    """data/ENGINE/architectures.tsv: each architecture with the first and last release (of
    those read) whose registry lists it; kind and module as the newest such release has them."""
    versions = common.releases(engine, lo, hi)
    spans: dict[str, list] = {}
    read = []
    for v in versions:
        try:
            rows = release_rows(engine, v)
        except Exception as e:  # a release without a readable registry is reported and skipped
            print(f"{engine} {v}: skipped: {e}", file=sys.stderr)
            continue
        read.append(v)
        for arch, kind, module in rows:
            span = spans.setdefault(arch, [arch, kind, module, v, v])
            span[1], span[2], span[4] = kind, module, v
        print(f"{engine} {v}: {len(rows)} architectures", flush=True)
    write_table(engine, spans, read)


def committed_spans(engine: str) -> tuple[dict[str, list], list[str]]:
    """The committed table's rows (architecture -> span) and the releases it was read from."""
    path = os.path.join(common.DATA, engine, "architectures.tsv")
    spans: dict[str, list] = {}
    read: list[str] = []
    with open(path) as f:
        for line in f:
            if line.startswith("# releases read: "):
                read = line[len("# releases read: "):].split()
            elif not line.startswith("#") and not line.startswith("architecture\t"):
                row = line.rstrip("\n").split("\t")
                spans[row[0]] = row
    return spans, read


def add_release(engine: str, version: str) -> None:
    """Adds one release to the committed table (make engine-release): its rows extend the spans
    of the architectures it lists; the other releases are not read again."""
    path = os.path.join(common.DATA, engine, "architectures.tsv")
    spans, read = committed_spans(engine)
    if version in read:
        print(f"{engine} {version}: already in {path}")
        return
    rows = release_rows(engine, version)
    for arch, kind, module in rows:
        span = spans.setdefault(arch, [arch, kind, module, version, version])
        span[1], span[2], span[4] = kind, module, version  # as write_engine: until the newest
    print(f"{engine} {version}: {len(rows)} architectures", flush=True)
    write_table(engine, spans, read + [version])


def write_table(engine: str, spans: dict[str, list], read: list[str]) -> None:
    newest = read[-1]
    if engine == "sglang":  # rows cached or committed before a name rule was added
        for span in spans.values():
            span[1] = sglang_name_kind(span[0], span[1])
    path = os.path.join(common.DATA, engine, "architectures.tsv")
    counts = {}
    for span in spans.values():
        if span[4] == newest:
            counts[span[1]] = counts.get(span[1], 0) + 1
    with open(path, "w") as f:
        f.write(f"# The architectures each {engine} release's model registry lists, generated by "
                f"`tools/engine-sync/registry.py {engine}` from the PyPI wheels of {len(read)} "
                f"releases {read[0]} … {newest} (read with Python's ast): first and last release "
                f"that lists it (until = {newest} while the newest does). {newest}: "
                + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + ".\n")
        f.write(f"# releases read: {' '.join(read)}\n")
        f.write("architecture\tkind\tmodule\tsince\tuntil\n")
        for span in sorted(spans.values()):
            f.write("\t".join(span) + "\n")
    print(f"{path}: {len(spans)} architectures over {len(read)} releases")


AUTO_MAPPINGS = (  # transformers models/auto/modeling_auto.py, generation and VLM heads first
    "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
    "MODEL_FOR_VISION_2_SEQ_MAPPING_NAMES", "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES",
    "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES",
    "MODEL_FOR_PRETRAINING_MAPPING_NAMES", "MODEL_MAPPING_NAMES",
    "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES")


def ordered_dict_pairs(source: str, name: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of `NAME = OrderedDict([...])` (a value may be a tuple of names)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in node.targets):
            call = node.value
            if isinstance(call, ast.Call) and call.args:
                out = []
                for e in call.args[0].elts:
                    try:
                        k, v = ast.literal_eval(e)
                    except ValueError:
                        continue
                    for arch in (v if isinstance(v, (tuple, list)) else (v,)):
                        out.append((k, arch))
                return out
    return []


def write_model_types(version: str) -> None:
    d = os.path.join(common.CACHE, "wheels", "transformers")
    os.makedirs(d, exist_ok=True)
    pref = f"transformers-{version}-"
    if not any(f.startswith(pref) for f in os.listdir(d)):
        import subprocess
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--disable-pip-version-check", "-d", d, f"transformers=={version}"],
                       check=True)
    wheel = sorted(f for f in os.listdir(d) if f.startswith(pref))[0]
    with zipfile.ZipFile(os.path.join(d, wheel)) as z:
        source = z.read("transformers/models/auto/modeling_auto.py").decode()
    rows: dict[str, tuple[str, str, str]] = {}
    for mapping in AUTO_MAPPINGS:
        for model_type, arch in ordered_dict_pairs(source, mapping):
            rows.setdefault(arch, (arch, model_type, mapping))
    path = os.path.join(common.DATA, "architecture-model-types.tsv")
    with open(path, "w") as f:
        f.write(f"# architecture -> model_type, generated by `tools/engine-sync/registry.py "
                f"model-types {version}` from {wheel}: transformers' auto mappings "
                f"(models/auto/modeling_auto.py, read with ast), first mapping that names the "
                f"architecture.\n")
        f.write("architecture\tmodel_type\tmapping\n")
        for r in sorted(rows.values()):
            f.write("\t".join(r) + "\n")
    print(f"{path}: {len(rows)} architectures")


def main(argv: list[str]) -> None:
    if argv[:1] == ["model-types"] and len(argv) == 2:
        return write_model_types(argv[1])
    if not argv or argv[0] not in ("sglang", "vllm"):
        sys.exit(__doc__.split("\n\n")[1])
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--from", dest="lo")
    ap.add_argument("--to", dest="hi")
    ap.add_argument("--add", help="add one release to the committed table")
    ap.add_argument("--reclassify", action="store_true",
                    help="apply the name rules to the committed table's kinds, reading no wheel")
    a = ap.parse_args(argv)
    if a.reclassify:
        spans, read = committed_spans(a.engine)
        return write_table(a.engine, spans, read)
    if a.add:
        return add_release(a.engine, a.add)
    write_engine(a.engine, a.lo, a.hi)


if __name__ == "__main__":
    main(sys.argv[1:])
