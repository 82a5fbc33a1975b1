#!/usr/bin/env python3
"""Helper of bench/peers.sh (standard library only).

  peers_report.py scrape URL OUT              save GET URL/metrics (10 s timeout)
  peers_report.py cpu OUT.json -- CMD ...     run CMD as a child subreaper, reap every descendant,
                                              write its CPU seconds (user, sys) and wall time;
                                              exits with CMD's status
  peers_report.py objectives RUN.json          print "TTFT_MS TPOT_MS", the objectives every client
                                              is given, from a servescope run of the workload
  peers_report.py table DIR TITLE N OUT_LEN IN_LEN FACTOR SLACK_MS [GOODPUT_ASSERT]
                                              side-by-side table of one target (DIR/<client>.*),
                                              with each client's goodput under DIR/slo.txt's
                                              objectives; exit 1 if an assertion fails
  peers_report.py cost DIR                    CPU per streamed token of each client, and the ratios

Client files in DIR: servescope.json (servescope bench --json), vllm.json (vllm bench serve
--save-result), aiperf/profile_export_aiperf.json; <client>.before.prom / .after.prom are the
server's /metrics before and after that client's run.
"""
import ctypes
import json
import math
import os
import re
import resource
import signal
import subprocess
import sys
import time
import urllib.request

CLIENTS = ["servescope", "vllm", "aiperf"]
LABEL = {"servescope": "servescope bench", "vllm": "vllm bench serve", "aiperf": "aiperf profile"}


# ---------------------------------------------------------------- /metrics
def scrape(url, out):
    with urllib.request.urlopen(url.rstrip("/") + "/metrics", timeout=10) as r:
        text = r.read().decode()
    with open(out, "w") as f:
        f.write(text)


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')


def parse_prom(path):
    """{name: {le_or_None: value}} summed over every other label (engine, model_name ...)."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            name, labels, value = m.group(1), m.group(2) or "", m.group(3)
            le = re.search(r'le="([^"]*)"', labels)
            key = le.group(1) if le else None
            try:
                v = float(value)
            except ValueError:
                continue
            d = out.setdefault(name, {})
            d[key] = d.get(key, 0.0) + v
    return out


def delta(before, after, name):
    a = after.get(name)
    if a is None:
        return None
    b = before.get(name, {})
    return {k: v - b.get(k, 0.0) for k, v in a.items()}


def hist(before, after, base):
    """Count, mean and bucket-interpolated p50/p90/p99 (ms) of a histogram's delta over a run."""
    buckets = delta(before, after, base + "_bucket")
    s = delta(before, after, base + "_sum")
    c = delta(before, after, base + "_count")
    if not buckets or not c:
        return None
    count = c[None]
    edges = sorted(((math.inf if k == "+Inf" else float(k)), v) for k, v in buckets.items())
    res = {"count": count, "mean": (s[None] / count * 1000) if count else None}
    for q in (50, 90, 99):
        res[f"p{q}"] = quantile(edges, q / 100.0) if count else None
    return res


def quantile(edges, q):
    # Prometheus histogram_quantile: linear inside the bucket holding rank q*count.
    total = edges[-1][1]
    rank = q * total
    lower, prev = 0.0, 0.0
    for upper, cum in edges:
        if cum >= rank:
            if math.isinf(upper):
                return lower * 1000
            if cum == prev:
                return upper * 1000
            return (lower + (upper - lower) * (rank - prev) / (cum - prev)) * 1000
        lower, prev = upper, cum
    return None


def server_view(d, client):
    bp, ap = f"{d}/{client}.before.prom", f"{d}/{client}.after.prom"
    if not (os.path.exists(bp) and os.path.exists(ap)):
        return None
    b, a = parse_prom(bp), parse_prom(ap)
    prefix = "vllm:" if any(k.startswith("vllm:") for k in a) else "sglang:"
    v = {"engine": prefix[:-1]}
    v["ttft"] = hist(b, a, prefix + "time_to_first_token_seconds")
    v["e2e"] = hist(b, a, prefix + "e2e_request_latency_seconds")
    v["itl"] = hist(b, a, prefix + "inter_token_latency_seconds")
    v["tpot"] = hist(b, a, prefix + "request_time_per_output_token_seconds") or hist(
        b, a, prefix + "time_per_output_token_seconds")
    for key, name in (("gen", "generation_tokens_total"), ("prompt", "prompt_tokens_total")):
        x = delta(b, a, prefix + name)
        v[key] = x[None] if x else None
    return v


# ---------------------------------------------------------------- clients' own files
def pct(obj, p50, p90, p99):
    return {"p50": obj.get(p50), "p90": obj.get(p90), "p99": obj.get(p99)}


def load_client(d, client):
    try:
        if client == "servescope":
            p = json.load(open(f"{d}/servescope.json"))["points"][0]
            ot = p["output_tokens"]["reported"]
            it = p["input_tokens"]["reported"]
            g = lambda k: {q: p[k].get(q) for q in ("p50", "p90", "p99")} if p.get(k) else None
            return {"done": p["requests_completed"], "out": round(ot["mean"] * ot["count"]),
                    "in": round(it["mean"] * it["count"]) if it.get("count") else None,
                    "ttft": g("ttft_ms"), "itl": g("itl_ms"), "tpot": g("tpot_ms"),
                    "e2e": g("e2e_ms"), "chunk": g("itl_per_event_ms")}
        if client == "vllm":
            j = json.load(open(f"{d}/vllm.json"))
            f = lambda m: pct(j, f"p50_{m}_ms", f"p90_{m}_ms", f"p99_{m}_ms")
            return {"done": j["completed"], "out": j["total_output_tokens"],
                    "in": j["total_input_tokens"], "ttft": f("ttft"), "itl": f("itl"),
                    "tpot": f("tpot"), "e2e": f("e2el"), "chunk": f("itl")}
        if client == "aiperf":
            j = json.load(open(f"{d}/aiperf/profile_export_aiperf.json"))
            f = lambda m: pct(j[m], "p50", "p90", "p99") if j.get(m) else None
            return {"done": round(j["request_count"]["avg"]),
                    "out": round(j["total_output_tokens"]["avg"]),
                    "in": round(j["total_usage_prompt_tokens"]["avg"])
                    if j.get("total_usage_prompt_tokens") else None,
                    "ttft": f("time_to_first_token"), "itl": None,
                    "tpot": f("inter_token_latency"), "e2e": f("request_latency"),
                    "chunk": f("inter_chunk_latency")}
    except (OSError, KeyError, TypeError, ValueError, IndexError) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return None


# ---------------------------------------------------------------- goodput
def objectives(run):
    """TPOT at 1.5 x the run's p90, TTFT at 3 x its p90 + 20 ms: loose enough for the clients'
    own overheads (tens of microseconds a token, milliseconds a request) and the run-to-run
    noise of two shared cores, so a client that counts goodput otherwise stands out."""
    p = json.load(open(run))["points"][0]
    ttft = 3 * p["ttft_ms"]["p90"] + 20
    tpot = 1.5 * p["tpot_ms"]["p90"]
    print(f"{ttft:.2f} {tpot:.3f}")
    return 0


def wilson(good, n, z=1.96):
    """The Wilson 95% interval of a proportion good / n."""
    if n <= 0:
        return (0.0, 1.0)
    p = good / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def load_goodput(d, client):
    """(good requests, completed, goodput req/s) as the client itself reports them."""
    try:
        if client == "servescope":
            p = json.load(open(f"{d}/servescope.json"))["points"][0]
            s = p["slo"]
            return s["met"], s["requests"], s["goodput_requests_per_s"]
        if client == "vllm":
            j = json.load(open(f"{d}/vllm.json"))
            good = round(j["request_goodput"] * j["duration"])
            return good, j["completed"], j["request_goodput"]
        if client == "aiperf":
            j = json.load(open(f"{d}/aiperf/profile_export_aiperf.json"))
            return (round(j["good_request_count"]["avg"]), round(j["request_count"]["avg"]),
                    j["goodput"]["avg"])
    except (OSError, KeyError, TypeError, ValueError, IndexError):
        return None
    return None


def goodput_table(d, failures, check, late):
    """Each client's goodput; the attainment intervals must overlap, except a client whose own
    latencies already disagree with the server's (its goodput is judged on those)."""
    if not os.path.exists(f"{d}/slo.txt"):
        return
    ttft, tpot = open(f"{d}/slo.txt").read().split()
    print(f"\nGoodput under ttft:{ttft}ms and tpot:{tpot}ms, each client's own figure "
          "(vllm: request_goodput x duration; aiperf: good_request_count; goodput per second "
          "over each client's own duration, aiperf's including its start-up):\n")
    print("| client | met the objectives | attainment (Wilson 95%) | goodput req/s |")
    print("|---|---|---|---|")
    seen = {}
    for c in CLIENTS:
        g = load_goodput(d, c)
        if g is None:
            print(f"| {LABEL[c]} | no goodput in its result |||")
            failures.append(f"{c}: no goodput figure") if check else None
            continue
        good, n, rate = g
        lo, hi = wilson(good, n)
        note = (" (not compared: its TTFT disagrees with the server's, above: it read its streams "
                "late)") if c in late else ""
        if not note:
            seen[c] = (lo, hi)
        print(f"| {LABEL[c]}{note} | {good} of {n} | {100 * good / max(n, 1):.1f}% "
              f"({100 * lo:.1f}–{100 * hi:.1f}%) | {rate:.2f} |")
    if not check:
        return
    names = list(seen)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (alo, ahi), (blo, bhi) = seen[a], seen[b]
            if ahi < blo or bhi < alo:
                failures.append(f"goodput: {a}'s attainment interval {100 * alo:.1f}–{100 * ahi:.1f}% "
                                f"and {b}'s {100 * blo:.1f}–{100 * bhi:.1f}% do not overlap")


def fmt3(x):
    if not x:
        return "—"
    return "/".join("—" if x.get(q) is None else f"{x[q]:.1f}" for q in ("p50", "p90", "p99"))


def fmtm(x):
    if not x or x.get("mean") is None:
        return "—"
    return f"{x['mean']:.1f} ({fmt3(x)})"


def table(d, title, n, out_len, in_len, factor, slack, goodput_assert="1"):
    n, out_len, in_len, factor, slack = int(n), int(out_len), int(in_len), float(factor), float(slack)
    print(f"\n### {title}\n")
    print("| client | done | out tok | in tok (client) | TTFT ms p50/p90/p99 | ITL ms p50/p90/p99 "
          "(per token) | TPOT ms p50/p90/p99 | per-chunk gap ms p50/p90/p99 | E2E ms p50/p90/p99 |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows, servers, failures = {}, {}, []
    for c in CLIENTS:
        r = load_client(d, c)
        rows[c] = r
        if r is None or "error" in r:
            print(f"| {LABEL[c]} | did not run: {r and r.get('error')} |||||||")
            failures.append(f"{c}: no result ({r and r.get('error')})")
            continue
        print(f"| {LABEL[c]} | {r['done']} | {r['out']} | {r['in']} | {fmt3(r['ttft'])} | "
              f"{fmt3(r['itl'])} | {fmt3(r['tpot'])} | {fmt3(r['chunk'])} | {fmt3(r['e2e'])} |")
    print("\nThe server's /metrics over each client's run (delta of the histograms; mean, then "
          "bucket-interpolated p50/p90/p99, ms):\n")
    print("| run | requests | generation tok | prompt tok | TTFT mean (p50/p90/p99) | "
          "ITL mean (p50/p90/p99) | TPOT mean (p50/p90/p99) | E2E mean (p50/p90/p99) |")
    print("|---|---|---|---|---|---|---|---|")
    for c in CLIENTS:
        s = server_view(d, c)
        servers[c] = s
        if s is None:
            print(f"| during {LABEL[c]} | no scrape |||||||")
            continue
        cnt = s["e2e"]["count"] if s.get("e2e") else None
        print(f"| during {LABEL[c]} ({s['engine']}) | {cnt:.0f} | {s['gen']:.0f} | "
              f"{s['prompt']:.0f} | {fmtm(s['ttft'])} | {fmtm(s['itl'])} | {fmtm(s['tpot'])} | "
              f"{fmtm(s['e2e'])} |")

    def close(a, b):
        return a is not None and b is not None and (
            abs(a - b) <= slack or max(a, b) <= factor * max(min(a, b), 1e-9))

    ok = [c for c in CLIENTS if rows[c] and "error" not in rows[c]]
    late = set()  # clients whose own latencies disagree with the server's
    for c in ok:
        r = rows[c]
        if r["done"] != n:
            failures.append(f"{c}: {r['done']} requests completed, expected {n}")
        if r["out"] != n * out_len:
            failures.append(f"{c}: {r['out']} output tokens, expected {n * out_len}")
        s = servers.get(c)
        if s:
            if s.get("e2e") is None or round(s["e2e"]["count"]) != n:
                failures.append(f"server during {c}: {s.get('e2e') and s['e2e']['count']} requests, "
                                f"expected {n}")
            if s.get("gen") is not None and round(s["gen"]) != n * out_len:
                failures.append(f"server during {c}: {s['gen']:.0f} generation tokens, expected "
                                f"{n * out_len}")
            for metric in ("ttft", "e2e"):
                a = (r.get(metric) or {}).get("p50")
                b = (s.get(metric) or {}).get("mean")
                if not close(a, b):
                    failures.append(f"{c}: {metric} median {a} ms vs the server's mean {b} ms: "
                                    f"more than x{factor} and {slack} ms apart")
                    late.add(c)
            # The tail too: a client whose own TTFT p90 is far above the server's TTFT mean read
            # its streams late (a starved event loop), and its goodput says so, not the server.
            p90 = (r.get("ttft") or {}).get("p90")
            if not close(p90, (s.get("ttft") or {}).get("mean")):
                late.add(c)
    # servescope's id prompts: the server counted exactly --input-len per request.
    s = servers.get("servescope")
    if s and s.get("prompt") is not None and round(s["prompt"]) != n * in_len:
        failures.append(f"server during servescope: {s['prompt']:.0f} prompt tokens, expected "
                        f"{n * in_len} (token-id prompts)")
    for metric in ("ttft", "e2e"):
        for i, a in enumerate(ok):
            for b in ok[i + 1:]:
                x, y = rows[a][metric]["p50"], rows[b][metric]["p50"]
                if not close(x, y):
                    failures.append(f"{metric} median {a} {x:.1f} ms vs {b} {y:.1f} ms: more than "
                                    f"x{factor} and {slack} ms apart")
    outs = {c: rows[c]["out"] for c in ok}
    if len(set(outs.values())) > 1:
        failures.append(f"output tokens differ across clients: {outs}")
    goodput_table(d, failures, goodput_assert != "0", late)
    print(f"\nAssertions (counts exact; TTFT/E2E medians within x{factor:g} or {slack:g} ms of each "
          f"other and of the server's means): " + ("all hold" if not failures else "FAILED"))
    for f in failures:
        print(f"  - {f}")
    return 1 if failures else 0


# ---------------------------------------------------------------- CPU cost
def cpu(out, cmd):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphaned descendants are reaped here
    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    rc = None
    while True:
        try:
            pid, status = os.waitpid(-1, 0)  # every descendant, so RUSAGE_CHILDREN counts all
        except ChildProcessError:
            break
        if pid == child.pid:
            rc = os.waitstatus_to_exitcode(status)
            child.returncode = rc
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as f:
        json.dump({"user_s": ru.ru_utime, "sys_s": ru.ru_stime, "wall_s": wall, "rc": rc,
                   "cmd": cmd}, f)
    return rc if rc is not None and rc >= 0 else 1


def cost(d):
    rows = {}
    for c in CLIENTS:
        runs = {}
        for size in ("small", "big"):
            try:
                t = json.load(open(f"{d}/{size}/{c}.cpu.json"))
                r = load_client(f"{d}/{size}", c)
                runs[size] = (t["user_s"] + t["sys_s"], r["out"], t["wall_s"], r["done"])
            except (OSError, KeyError, TypeError, ValueError):
                runs[size] = None
        rows[c] = runs
    print("\n| client | run | requests | output tokens | CPU s (user+sys) | wall s | "
          "CPU µs per token (total) |")
    print("|---|---|---|---|---|---|---|")
    marginal = {}
    for c in CLIENTS:
        for size in ("small", "big"):
            r = rows[c][size]
            if r is None:
                print(f"| {LABEL[c]} | {size} | did not run |||||")
                continue
            print(f"| {LABEL[c]} | {size} | {r[3]} | {r[1]} | {r[0]:.2f} | {r[2]:.1f} | "
                  f"{r[0] / max(r[1], 1) * 1e6:.1f} |")
        s, b = rows[c]["small"], rows[c]["big"]
        if s and b and b[1] > s[1]:
            marginal[c] = (b[0] - s[0]) / (b[1] - s[1]) * 1e6
    print("\nMarginal CPU per streamed token, (CPU big − CPU small) / (tokens big − tokens small), "
          "which leaves out start-up (Python imports, tokenizer load, aiperf's services):\n")
    for c in CLIENTS:
        v = marginal.get(c)
        print(f"- {LABEL[c]}: " + (f"{v:.1f} µs/token" if v is not None else "—"))
    if "servescope" in marginal and marginal["servescope"] > 0:
        base = marginal["servescope"]
        parts = [f"{marginal[c] / base:.1f}" if c in marginal else "—" for c in CLIENTS]
        print(f"\nRatio servescope : vllm bench : aiperf (marginal) = {' : '.join(parts)}")
    tot = {c: rows[c]["big"][0] / max(rows[c]["big"][1], 1) for c in CLIENTS if rows[c]["big"]}
    if "servescope" in tot and tot["servescope"] > 0:
        parts = [f"{tot[c] / tot['servescope']:.1f}" if c in tot else "—" for c in CLIENTS]
        print(f"Ratio servescope : vllm bench : aiperf (whole big run, start-up included) = "
              f"{' : '.join(parts)}")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "scrape":
        scrape(argv[1], argv[2])
        return 0
    if len(argv) >= 4 and argv[0] == "cpu" and argv[2] == "--":
        return cpu(argv[1], argv[3:])
    if len(argv) in (8, 9) and argv[0] == "table":
        return table(*argv[1:])
    if len(argv) == 2 and argv[0] == "objectives":
        return objectives(argv[1])
    if len(argv) == 2 and argv[0] == "cost":
        return cost(argv[1])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
