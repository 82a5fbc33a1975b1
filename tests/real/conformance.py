#!/usr/bin/env python3
"""The twin held against the real engine: the same requests, through the official openai client,
to both servers; their STRUCTURE compared (fields and types, finish reasons, usage arithmetic,
chunk shapes, SSE framing, status codes, error bodies, content types, /v1/models, /health,
/metrics names/types/labels, and the startup-log lines servescope reads), never generated text.

usage: conformance.py --real URL --twin URL [--model tiny] [--max-model-len 2048]
                      [--real-log FILE] [--twin-log FILE] [--known tests/real/conformance-known.json]
                      [--json-out FILE]

Every observation is a (check, path) -> value pair per server; a difference is a path whose
value differs (or exists on one side only). Differences whose id matches an entry of the
allow-list (fnmatch pattern "id", with a "reason") are reported as known; any other one makes
the exit status 1. Run with tools/real-engine/.venv-real/bin/python (stdlib + openai only).
"""
import argparse
import fnmatch
import json
import re
import sys
import urllib.request

import openai

VOCAB_SAFE = 500  # tiny models have 512 token ids


def ids(n, start=1):
    return [start + i % VOCAB_SAFE for i in range(n)]


def shape(v):
    """JSON value -> its structure: dicts by key, lists element-wise, scalars by type."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    return "str"


def flatten(v, prefix, out):
    if isinstance(v, dict):
        if not v:
            out[prefix] = "{}"
        for k, x in v.items():
            flatten(x, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(v, list):
        out[prefix + ".len"] = len(v)
        for i, x in enumerate(v):
            flatten(x, f"{prefix}[{i}]", out)
    else:
        out[prefix] = v
    return out


def merged_shape(items):
    """The union of several objects' structures (stream chunks): key -> sorted set of types."""
    out = {}
    for it in items:
        for k, v in flatten(shape(it), "", {}).items():
            out.setdefault(k, set()).add(str(v))
    return {k: "|".join(sorted(v)) for k, v in out.items()}


class Server:
    def __init__(self, name, base, model):
        self.name, self.base, self.model = name, base.rstrip("/"), model
        self.client = openai.OpenAI(base_url=self.base + "/v1", api_key="EMPTY", timeout=120,
                                    max_retries=0)

    def get(self, path):
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as r:
                return r.status, dict(r.headers), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode()


def ctype(headers):
    for k, v in headers.items():
        if k.lower() == "content-type":
            return v
    return None


def nonstream(server, kind, **kw):
    """A non-streaming request through the client; (status, content-type, JSON body)."""
    api = server.client.completions if kind == "completions" else server.client.chat.completions
    try:
        raw = api.with_raw_response.create(model=kw.pop("model", server.model), **kw)
        body = json.loads(raw.http_response.text)
        # The client must also parse it into its typed object.
        parsed = raw.parse()
        assert parsed.choices is not None
        return raw.status_code, raw.headers.get("content-type"), body
    except openai.APIStatusError as e:
        try:
            body = e.response.json()
        except ValueError:
            body = {"_raw": e.response.text}
        return e.status_code, e.response.headers.get("content-type"), body


def stream(server, kind, **kw):
    """A streaming request through the client; (status, content-type, chunks, sse-lines)."""
    api = server.client.completions if kind == "completions" else server.client.chat.completions
    try:
        with api.with_streaming_response.create(model=kw.pop("model", server.model), stream=True,
                                                **kw) as resp:
            lines = [ln for ln in resp.iter_lines()]
            status, ct = resp.status_code, resp.headers.get("content-type")
    except openai.APIStatusError as e:
        return e.status_code, e.response.headers.get("content-type"), [], []
    chunks = []
    for ln in lines:
        if ln.startswith("data: ") and ln != "data: [DONE]":
            chunks.append(json.loads(ln[6:]))
    # And the client's own parse of the same request must work and see the same usage.
    return status, ct, chunks, lines


def usage_ok(u, max_tokens, n=1, exact=True):
    if not isinstance(u, dict):
        return {"present": False}
    pt, ct, tt = u.get("prompt_tokens"), u.get("completion_tokens"), u.get("total_tokens")
    out = {"present": True, "total==prompt+completion": tt == (pt or 0) + (ct or 0),
           "prompt>0": isinstance(pt, int) and pt > 0}
    if exact:
        out["completion==n*max_tokens"] = ct == n * max_tokens
    else:
        out["completion<=n*max_tokens"] = isinstance(ct, int) and ct <= n * max_tokens
    return out


def body_obs(status, ct, body, max_tokens=None, n=1, exact=True, prompt_len=None):
    obs = {"status": status, "content-type": ct, "shape": shape(body)}
    if status == 200:
        obs["object"] = body.get("object")
        obs["model"] = body.get("model")
        obs["id.prefix"] = re.sub(r"[0-9a-f]{8,}$", "", body.get("id", ""))
        obs["choices.indices"] = sorted(c.get("index") for c in body.get("choices", []))
        obs["finish_reasons"] = sorted({c.get("finish_reason") for c in body["choices"]})
        if max_tokens is not None:
            obs["usage"] = usage_ok(body.get("usage"), max_tokens, n, exact)
        if prompt_len is not None:
            obs["usage.prompt_tokens"] = (body.get("usage") or {}).get("prompt_tokens")
    return obs


def stream_obs(kind, status, ct, chunks, lines, max_tokens=None, n=1, usage=False, exact=True):
    obs = {"status": status, "content-type": ct}
    data_lines = [ln for ln in lines if ln]
    obs["sse.all_lines_data"] = all(ln.startswith("data: ") for ln in data_lines)
    obs["sse.last"] = data_lines[-1] if data_lines else None
    obs["sse.blank_separated"] = all(lines[i] == "" for i in range(1, len(lines), 2))
    if not chunks:
        obs["chunks"] = 0
        return obs
    content = [c for c in chunks if c.get("choices")]
    usage_chunks = [c for c in chunks if not c.get("choices")]
    obs["chunk.object"] = sorted({c.get("object") for c in chunks})
    obs["chunk.ids_equal"] = len({c.get("id") for c in chunks}) == 1
    obs["first.shape"] = shape(chunks[0])
    if kind == "chat":
        per_index_first = {}
        for c in content:
            for ch in c["choices"]:
                per_index_first.setdefault(ch["index"], ch.get("delta", {}))
        obs["first_delta_per_choice.role"] = sorted(
            {d.get("role") for d in per_index_first.values()}, key=str)
    middle = [c for c in content if all(ch.get("finish_reason") is None for ch in c["choices"])]
    finals = [c for c in content if any(ch.get("finish_reason") for ch in c["choices"])]
    obs["middle.shape"] = merged_shape(middle[1:] if kind == "chat" else middle)
    obs["final.shape"] = merged_shape(finals)
    fin = {}
    for c in finals:
        for ch in c["choices"]:
            if ch.get("finish_reason"):
                fin.setdefault(ch["index"], []).append(ch["finish_reason"])
    obs["finish.per_choice"] = {str(k): v for k, v in sorted(fin.items())}
    obs["choices.indices"] = sorted({ch["index"] for c in content for ch in c["choices"]})
    obs["usage_chunks"] = len(usage_chunks)
    if usage_chunks:
        u = usage_chunks[-1]
        obs["usage_chunk.shape"] = shape(u)
        obs["usage_chunk.is_last"] = chunks[-1] is u
        obs["usage_chunk.choices"] = u.get("choices")
        if max_tokens is not None:
            obs["usage"] = usage_ok(u.get("usage"), max_tokens, n, exact)
    obs["content_chunks_with_usage"] = sum(1 for c in content if c.get("usage"))
    return obs


def client_stream_usage(server, kind, **kw):
    """The official client's own iteration of a stream: the usage it sees at the end."""
    api = server.client.completions if kind == "completions" else server.client.chat.completions
    last = None
    n = 0
    for chunk in api.create(model=server.model, stream=True, **kw):
        n += 1
        if chunk.usage is not None:
            last = chunk.usage.completion_tokens
    return {"chunks>0": n > 0, "usage.completion_tokens": last}


MSG = [{"role": "user", "content": "Say hello."}]


def api_checks(srv, max_model_len):
    out = {}
    p5 = ids(5)
    # completions
    out["cmpl.nonstream.ignore_eos"] = body_obs(
        *nonstream(srv, "completions", prompt=p5, max_tokens=6, extra_body={"ignore_eos": True}),
        max_tokens=6, prompt_len=5)
    out["cmpl.nonstream.text_prompt"] = body_obs(
        *nonstream(srv, "completions", prompt="hello world", max_tokens=4,
                   extra_body={"ignore_eos": True}), max_tokens=4)
    r = nonstream(srv, "completions", prompt=p5, max_tokens=5)
    o = body_obs(*r, max_tokens=5, exact=False)
    o.pop("finish_reasons", None)  # the real model may draw its end-of-sequence token
    o["finish_reason.valid"] = r[0] == 200 and all(
        c["finish_reason"] in ("stop", "length") for c in r[2]["choices"])
    out["cmpl.nonstream.max_tokens_no_ignore_eos"] = o
    out["cmpl.nonstream.n2"] = body_obs(
        *nonstream(srv, "completions", prompt=p5, max_tokens=4, n=2,
                   extra_body={"ignore_eos": True}), max_tokens=4, n=2)
    r = nonstream(srv, "completions", prompt=p5, max_tokens=8, stop=["\n", " the"])
    o = body_obs(*r, max_tokens=8, exact=False)
    o.pop("finish_reasons", None)  # "stop" or "length": depends on the generated text
    o["finish_reason.valid"] = r[0] == 200 and all(
        c["finish_reason"] in ("stop", "length") for c in r[2]["choices"])
    out["cmpl.nonstream.stop"] = o
    out["cmpl.stream.usage"] = stream_obs(
        "completions", *stream(srv, "completions", prompt=p5, max_tokens=5,
                               stream_options={"include_usage": True},
                               extra_body={"ignore_eos": True}), max_tokens=5)
    out["cmpl.stream.no_usage"] = stream_obs(
        "completions", *stream(srv, "completions", prompt=p5, max_tokens=4,
                               extra_body={"ignore_eos": True}))
    out["cmpl.stream.n2.usage"] = stream_obs(
        "completions", *stream(srv, "completions", prompt=p5, max_tokens=3, n=2,
                               stream_options={"include_usage": True},
                               extra_body={"ignore_eos": True}), max_tokens=3, n=2)
    out["cmpl.stream.client_iteration"] = client_stream_usage(
        srv, "completions", prompt=p5, max_tokens=7, stream_options={"include_usage": True},
        extra_body={"ignore_eos": True})
    # chat
    out["chat.nonstream.ignore_eos"] = body_obs(
        *nonstream(srv, "chat", messages=MSG, max_tokens=6, extra_body={"ignore_eos": True}),
        max_tokens=6)
    out["chat.nonstream.n2"] = body_obs(
        *nonstream(srv, "chat", messages=MSG, max_tokens=3, n=2,
                   extra_body={"ignore_eos": True}), max_tokens=3, n=2)
    r = nonstream(srv, "chat", messages=MSG, max_tokens=8, stop=["\n"])
    o = body_obs(*r, max_tokens=8, exact=False)
    o.pop("finish_reasons", None)
    o["finish_reason.valid"] = r[0] == 200 and all(
        c["finish_reason"] in ("stop", "length") for c in r[2]["choices"])
    out["chat.nonstream.stop"] = o
    out["chat.stream.usage"] = stream_obs(
        "chat", *stream(srv, "chat", messages=MSG, max_tokens=5,
                        stream_options={"include_usage": True}, extra_body={"ignore_eos": True}),
        max_tokens=5)
    out["chat.stream.no_usage"] = stream_obs(
        "chat", *stream(srv, "chat", messages=MSG, max_tokens=4, extra_body={"ignore_eos": True}))
    out["chat.stream.n2.usage"] = stream_obs(
        "chat", *stream(srv, "chat", messages=MSG, max_tokens=3, n=2,
                        stream_options={"include_usage": True}, extra_body={"ignore_eos": True}),
        max_tokens=3, n=2)
    out["chat.stream.client_iteration"] = client_stream_usage(
        srv, "chat", messages=MSG, max_tokens=7, stream_options={"include_usage": True},
        extra_body={"ignore_eos": True})
    # errors
    for kind, kw in (("completions", {"prompt": p5}), ("chat", {"messages": MSG})):
        s, ct, body = nonstream(srv, kind, model="no-such-model", max_tokens=4, **kw)
        err = body.get("error") if isinstance(body, dict) else None
        out[f"error.bad_model.{kind}"] = {
            "status": s, "content-type": ct, "shape": shape(body),
            "error.type": err and err.get("type"), "error.code": err and err.get("code"),
            "error.param": err and err.get("param"),
            "error.message": err and err.get("message"),
        }
    long_prompt = ids(max_model_len + 1)
    s, ct, body = nonstream(srv, "completions", prompt=long_prompt, max_tokens=4)
    err = body.get("error") if isinstance(body, dict) else None
    out["error.prompt_too_long"] = {
        "status": s, "content-type": ct, "shape": shape(body),
        "error.type": err and err.get("type"), "error.code": err and err.get("code"),
        "error.param": err and err.get("param"), "error.message": err and err.get("message")}
    s, ct, body = nonstream(srv, "completions", prompt=p5, max_tokens=max_model_len + 1)
    err = body.get("error") if isinstance(body, dict) else None
    out["error.max_tokens_over_len"] = {
        "status": s, "content-type": ct, "shape": shape(body),
        "error.type": err and err.get("type"), "error.code": err and err.get("code"),
        "error.param": err and err.get("param"), "error.message": err and err.get("message")}
    # prompt + max_tokens over the length (each alone fits): vLLM clamps max_tokens.
    near = ids(max_model_len - 8)
    s, ct, body = nonstream(srv, "completions", prompt=near, max_tokens=20,
                            extra_body={"ignore_eos": True})
    o = {"status": s, "content-type": ct}
    if s == 200:
        o["usage.completion_tokens"] = body["usage"]["completion_tokens"]
        o["usage.prompt_tokens"] = body["usage"]["prompt_tokens"]
        o["finish_reasons"] = [c["finish_reason"] for c in body["choices"]]
    else:
        o["error"] = body
    out["cmpl.prompt_plus_max_tokens_over_len"] = o
    return out


def endpoint_checks(srv):
    out = {}
    raw = srv.client.models.with_raw_response.list()
    body = json.loads(raw.http_response.text)
    models = raw.parse()
    o = {"status": raw.status_code, "content-type": raw.headers.get("content-type"),
         "shape": shape(body), "client.ids": [m.id for m in models.data]}
    for i, m in enumerate(body.get("data", [])):
        for k in ("id", "object", "owned_by", "max_model_len", "root", "parent"):
            o[f"data[{i}].{k}"] = m.get(k)
        o[f"data[{i}].permission[0].object"] = (m.get("permission") or [{}])[0].get("object")
    o["object"] = body.get("object")
    out["models"] = o
    s, h, b = srv.get("/health")
    out["health"] = {"status": s, "content-type": ctype(h), "body": b}
    return out


METRICS = {
    "vllm:num_requests_running": "gauge",
    "vllm:num_requests_waiting": "gauge",
    "vllm:kv_cache_usage_perc": "gauge",
    "vllm:time_to_first_token_seconds": "histogram",
    "vllm:e2e_request_latency_seconds": "histogram",
    "vllm:inter_token_latency_seconds": "histogram",
    "vllm:request_time_per_output_token_seconds": "histogram",
    "vllm:request_queue_time_seconds": "histogram",
    "vllm:prompt_tokens_total": "counter",
    "vllm:generation_tokens_total": "counter",
    "vllm:num_preemptions_total": "counter",
    "vllm:request_success_total": "counter",
    "vllm:cache_config_info": "gauge",
}


def parse_metrics(text):
    types, samples = {}, {}
    for ln in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", ln)
        if m:
            types[m.group(1)] = m.group(2)
            continue
        if not ln or ln.startswith("#"):
            continue
        m = re.match(r"([^{\s]+)(\{(.*)\})?\s+(\S+)", ln)
        if m:
            labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
            samples.setdefault(m.group(1), []).append((labels, m.group(4)))
    return types, samples


def metrics_checks(srv):
    s, h, text = srv.get("/metrics")
    types, samples = parse_metrics(text)
    o = {"status": s, "content-type": ctype(h)}
    for name, want in METRICS.items():
        # prometheus_client: a counter's TYPE line names the family without _total
        fam = name[:-6] if want == "counter" and name.endswith("_total") else name
        o[f"{name}.type"] = types.get(fam) or types.get(name)
        key = name + ("_count" if want == "histogram" else "")
        ss = samples.get(key, [])
        o[f"{name}.present"] = bool(ss)
        if ss and name != "vllm:cache_config_info":  # its labels: the values below
            o[f"{name}.labels"] = ",".join(sorted(k for k in ss[0][0] if k != "le"))
        if want == "histogram":
            o[f"{name}.has_buckets"] = bool(samples.get(name + "_bucket"))
            o[f"{name}.has_sum"] = bool(samples.get(name + "_sum"))
    info = samples.get("vllm:cache_config_info", [])
    if info:
        lab = info[0][0]
        for k in ("block_size", "num_gpu_blocks", "cache_dtype", "enable_prefix_caching",
                  "gpu_memory_utilization", "kv_cache_memory_bytes", "kv_cache_size_tokens",
                  "kv_cache_max_concurrency"):
            o[f"cache_config_info.{k}"] = lab.get(k)
    # After the API checks the counters have moved on both.
    for name in ("vllm:prompt_tokens_total", "vllm:generation_tokens_total"):
        ss = samples.get(name, [])
        o[f"{name}.positive"] = bool(ss) and float(ss[0][1]) > 0
    return {"metrics": o}


# Startup log lines servescope reads, as regular expressions with named groups; the group
# values are compared exactly unless they are in VOLATILE.
PREFIX = r"\((?P<proc>\w[\w-]*) pid=\d+\) (?P<level>INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d \[(?P<src>[\w.]+):\d+\] "
LOG_LINES = {
    "banner.version": r".*█ ▀▄▀ █\s+version (?P<version>\S+)",
    "banner.model": r".*█\s+█\s+model\s+(?P<model>\S+)",
    "non_default_args": PREFIX + r"non-default args: (?P<args>\{.*\})",
    "kv_explicit": PREFIX + r"Explicitly set \((?P<kv>[\d.]+)/(?P<total>[\d.]+)\) GiB for KV cache on node (?P<node>\d+)\.",
    "kv_capacity": PREFIX + r"(?P<device>\w+) KV cache size: (?P<tokens>[\d,]+) tokens, Maximum concurrency for (?P<len>[\d,]+) tokens per request: (?P<conc>[\d.]+)x",
    "max_model_len": PREFIX + r"Using max model len (?P<len>\d+)",
    "engine_init": PREFIX + r"Initializing a V1 LLM engine \(v(?P<version>[^)]+)\) with config: model='(?P<model>[^']*)'",
    "server_start": PREFIX + r"Starting vLLM server on http://(?P<host>[^:]+):\d+",
    "startup_complete": r"INFO:     Application startup complete\.",
    "access_line": r"INFO:     127\.0\.0\.1:\d+ - \"(?P<method>GET) (?P<path>/health) HTTP/1\.1\" (?P<status>200 OK)",
}
VOLATILE = {"total", "model"}  # node RAM differs by machine; model paths by where each runs


def log_checks(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        return {"log.error": str(e)}
    out = {}
    for key, rx in LOG_LINES.items():
        m = None
        for ln in text.splitlines():
            m = re.match(rx, ln)
            if m:
                break
        out[f"{key}.present"] = bool(m)
        if not m:
            continue
        for g, v in m.groupdict().items():
            if g == "args":
                try:
                    import ast
                    args = ast.literal_eval(v)
                    for k in ("host", "port", "model_tag", "model"):
                        args.pop(k, None)
                    out[f"{key}.args"] = args
                except (ValueError, SyntaxError):
                    out[f"{key}.args"] = "unparsable: " + v[:80]
            elif g not in VOLATILE:
                out[f"{key}.{g}"] = v
    return out


def compare(real, twin, known):
    diffs = []
    fr, ft = flatten(real, "", {}), flatten(twin, "", {})
    for k in sorted(set(fr) | set(ft)):
        a, b = fr.get(k, "<absent>"), ft.get(k, "<absent>")
        if a != b:
            reason = None
            for entry in known:
                if fnmatch.fnmatchcase(k, entry["id"]):
                    reason = entry["reason"]
                    break
            diffs.append({"id": k, "real": a, "twin": b, "known": reason is not None,
                          "reason": reason})
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", required=True)
    ap.add_argument("--twin", required=True)
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--max-model-len", type=int, default=2048)
    ap.add_argument("--real-log")
    ap.add_argument("--twin-log")
    ap.add_argument("--known", default="tests/real/conformance-known.json")
    ap.add_argument("--json-out")
    ap.add_argument("--all", action="store_true", help="list known differences one by one too")
    a = ap.parse_args()
    known = json.load(open(a.known)) if a.known else []
    for e in known:
        assert "id" in e and e.get("reason"), f"allow-list entry without id/reason: {e}"
    obs = {}
    for name, base in (("real", a.real), ("twin", a.twin)):
        srv = Server(name, base, a.model)
        o = {}
        o.update(api_checks(srv, a.max_model_len))
        o.update(endpoint_checks(srv))
        o.update(metrics_checks(srv))
        log = a.real_log if name == "real" else a.twin_log
        if log:
            o["log"] = log_checks(log)
        obs[name] = o
    diffs = compare(obs["real"], obs["twin"], known)
    unknown = [d for d in diffs if not d["known"]]
    report = {"real": a.real, "twin": a.twin, "observations": obs, "differences": diffs,
              "unknown": len(unknown), "known": len(diffs) - len(unknown)}
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(report, f, indent=1, default=str)
    # The table: every unknown difference; known ones one line per allow-list reason.
    shown = unknown if not a.all else diffs
    w = max([len(d["id"]) for d in shown] + [10])
    print(f"{'difference':<{w}}  {'real':<34}  {'twin':<34}  status")
    for d in shown:
        r, t = json.dumps(d["real"], default=str), json.dumps(d["twin"], default=str)
        r = r if len(r) <= 34 else r[:31] + "..."
        t = t if len(t) <= 34 else t[:31] + "..."
        print(f"{d['id']:<{w}}  {r:<34}  {t:<34}  {'known' if d['known'] else 'UNKNOWN'}")
    by_reason = {}
    for d in diffs:
        if d["known"]:
            by_reason.setdefault(d["reason"], []).append(d["id"])
    for reason, ids_ in by_reason.items():
        print(f"known x{len(ids_)} (e.g. {ids_[0]}): {reason}")
    checks = len(flatten(obs["real"], "", {}))
    print(f"\nconformance: {checks} observations, {len(diffs)} differences, "
          f"{len(diffs) - len(unknown)} known (allow-listed), {len(unknown)} unknown")
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
