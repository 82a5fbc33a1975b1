# made by tools/real-engine/serve.sh on 2026-12-02T05:31:38Z; environment, then the command
export HF_HUB_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export VLLM_NO_USAGE_STATS=1
export DO_NOT_TRACK=1
export VLLM_CPU_OMP_THREADS_BIND=auto
export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4:tools/real-engine/.venv-real/lib/libiomp5.so
export VLLM_CPU_KVCACHE_SPACE=2
tools/real-engine/.venv-real/bin/vllm serve tools/real-engine/.models/llama-bf16-hd80 --served-model-name tiny --dtype bfloat16 --enforce-eager --host 127.0.0.1 --port 42133 --max-model-len 3000 --block-size 64 --max-num-seqs 64
