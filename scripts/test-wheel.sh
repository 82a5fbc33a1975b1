#!/usr/bin/env bash
# make test-wheel: the wheel (make wheel) as a user gets it. A fresh venv installs it from the
# file alone (no index; every compiler on PATH replaced by one that fails); the binary it puts on
# PATH must need nothing but glibc and libgcc_s; then `servescope --version`, the demo's first three steps, `python -m servescope`, the
# Python API tests (pytest, pinned) and a config.json fetched over HTTPS from a Hub on loopback
# whose certificate only SSL_CERT_FILE trusts (the static OpenSSL inside the binary).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(ls "$ROOT"/dist/servescope-*x86_64.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "test-wheel: no wheel in dist/; run make wheel"; exit 1; }
TMP=$(mktemp -d /tmp/servescope-test-wheel.XXXXXX)
HUB_PID=
trap '[ -n "$HUB_PID" ] && kill "$HUB_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
fail() { echo "test-wheel: FAIL: $*"; exit 1; }

echo "== test-wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
# No compiler: every compiler name on PATH fails, so an install that tried to build would too.
mkdir -p "$TMP/nocc"
for cc in cc gcc g++ c++ clang clang++ x86_64-linux-gnu-gcc x86_64-linux-gnu-g++; do
  printf '#!/bin/sh\necho "test-wheel: a compiler was run: $0 $*" >&2\nexit 127\n' >"$TMP/nocc/$cc"
  chmod +x "$TMP/nocc/$cc"
done
export PATH="$TMP/nocc:/usr/bin:/bin" CC="$TMP/nocc/cc" CXX="$TMP/nocc/c++"
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q --disable-pip-version-check --no-index "$wheel"
export PATH="$TMP/venv/bin:$PATH"
bin=$(command -v servescope) || fail "pip put no servescope on PATH"
[ "$bin" = "$TMP/venv/bin/servescope" ] || fail "servescope on PATH is $bin, not the venv's"
# Only the C library and libgcc_s: no libstdc++, OpenSSL, re2, yaml-cpp, fmt or libcsv.
extra=$(ldd "$bin" | awk '{print $1}' | grep -vE '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|/lib64/ld-linux-x86-64\.so\.2|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libgcc_s\.so\.1)$' || true)
[ -z "$extra" ] || fail "the binary needs shared libraries beyond glibc: $extra"

servescope --version
scenario=(--gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 --free-after-load 64.6)
mtp=(python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN)
plain=(python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4)
servescope plan "${scenario[@]}" -- "${mtp[@]}" >"$TMP/step1.txt" || fail "demo step 1"
grep -q "max_running_requests" "$TMP/step1.txt" || fail "demo step 1 printed no max_running_requests"
servescope plan "${scenario[@]}" -- "${plain[@]}" >/dev/null || fail "demo step 2"
servescope explain max_running_requests --depth 2 "${scenario[@]}" -- "${mtp[@]}" >/dev/null \
  || fail "demo step 3"
python3_venv="$TMP/venv/bin/python"
"$python3_venv" -m servescope --version >"$TMP/version.txt" || fail "python -m servescope"
grep -q "^servescope " "$TMP/version.txt" || fail "python -m servescope printed $(cat "$TMP/version.txt")"

# HTTPS to a Hub on loopback with a certificate made here.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=hub -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1
mkdir -p "$TMP/hub/acme/Tiny-Wheel/resolve/main"
cat >"$TMP/hub/acme/Tiny-Wheel/resolve/main/config.json" <<'JSON'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
 "intermediate_size": 2816, "num_hidden_layers": 8, "num_attention_heads": 16,
 "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
 "torch_dtype": "bfloat16"}
JSON
/usr/bin/python3 - "$TMP" >"$TMP/hub.port" 2>/dev/null <<'PY' &
import http.server, os, ssl, sys
tmp = sys.argv[1]
os.chdir(os.path.join(tmp, "hub"))
class Hub(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):  # what the Hub's resolve endpoint says of a file
        self.send_header("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567")
        self.send_header("ETag", '"cafe"')
        super().end_headers()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem"))
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
HUB_PID=$!
for _ in $(seq 1 50); do [ -s "$TMP/hub.port" ] && break; sleep 0.1; done
port=$(cat "$TMP/hub.port")
hub=(env HF_ENDPOINT="https://127.0.0.1:$port" HF_HUB_CACHE="$TMP/cache" HF_HUB_OFFLINE=0)
if "${hub[@]}" servescope plan --gpu h100-sxm -- vllm serve acme/Tiny-Wheel >"$TMP/untrusted" 2>&1; then
  fail "a Hub whose certificate no CA trusts was accepted"
fi
grep -q "TLS handshake" "$TMP/untrusted" || fail "the refusal does not say TLS: $(cat "$TMP/untrusted")"
"${hub[@]}" SSL_CERT_FILE="$TMP/cert.pem" servescope plan --gpu h100-sxm -- vllm serve acme/Tiny-Wheel \
  >"$TMP/trusted" 2>&1 || fail "plan of a model fetched over HTTPS: $(tail -3 "$TMP/trusted")"
grep -q "max_num_seqs" "$TMP/trusted" || fail "plan of a model fetched over HTTPS: $(head -5 "$TMP/trusted")"

"$TMP/venv/bin/pip" install -q --disable-pip-version-check -r "$ROOT/tools/wheel/requirements-test.txt"
(cd "$TMP" && HF_HUB_OFFLINE=1 "$TMP/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests")
# uvx runs it from the file too (offline: the wheel needs nothing else).
UV_CACHE_DIR="$TMP/uv-cache" "$TMP/venv/bin/uvx" --offline --from "$wheel" servescope plan --gpu h100-sxm \
  -- vllm serve Qwen/Qwen3-8B >"$TMP/uvx.txt" || fail "uvx --from the wheel exited $?"
grep -q "gpu_kv_cache_size_tokens" "$TMP/uvx.txt" || fail "uvx --from the wheel: $(head -3 "$TMP/uvx.txt")"
echo "test-wheel: passed"
