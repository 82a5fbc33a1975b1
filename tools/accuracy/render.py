#!/usr/bin/env python3
"""Render the accuracy figures of docs/accuracy.md and README.md from measured records.

`make accuracy` runs the oracle tests (and, with SERVESCOPE_CORPUS, the golden ones) with
SERVESCOPE_ACCURACY_OUT=DIR, so each writes its agreement figures as DIR/ID.json
(tests/accuracy_record.h), adds `servescope models --coverage --json` per engine and, with a
corpus, `servescope check CORPUS/raw --json`, then runs this script. Each generated block sits
between `<!-- accuracy:BEGIN name -->` and `<!-- accuracy:END name -->` and ends with the date
and commit it was measured at; a block whose records this run lacks is left as it was (with its
own date), and said so. Standard library only.

usage: render.py RECORDS_DIR COMMIT DATE FILE...
"""

import json
import re
import sys
from pathlib import Path


def load(records: Path) -> dict:
    return {p.stem: json.loads(p.read_text()) for p in sorted(records.glob("*.json"))}


def release_key(release: str):
    return [int(x) if x.isdigit() else x for x in re.split(r"[.]", release)]


def pct(agree: int, total: int) -> str:
    return "—" if total == 0 else f"{100.0 * agree / total:.2f}%"


def oracle_records(recs: dict, oracle: str, part: str = None) -> list:
    out = [
        r
        for r in recs.values()
        if r.get("kind") == "oracle"
        and r.get("oracle") == oracle
        and (part is None or r.get("part") == part)
    ]
    return sorted(out, key=lambda r: release_key(r["release"]))


def block_oracles(recs: dict) -> str:
    rows = []
    for name, oracle, part in (
        ("SGLang settings (`ServerArgs`)", "sglang", ""),
        ("SGLang pools (byte budget → pool)", "sglang", "pool"),
        ("vLLM (`create_engine_config`, KV planning)", "vllm", "vllm"),
        ("vLLM drafters (EngineCore planning)", "vllm drafters", "drafters"),
    ):
        for r in oracle_records(recs, oracle, part):
            apart = sum(n["cases"] for n in r.get("not_compared", []))
            rows.append(
                f"| {name} | {r['release']} | {r['agree']:,} / {r['total']:,} "
                f"({pct(r['agree'], r['total'])}) | {r['gaps']} | {apart or ''} |"
            )
    if not rows:
        return None
    head = (
        "| oracle | release | figures agree | named gaps | cases not compared |\n"
        "|---|---|---|---|---|\n"
    )
    return head + "\n".join(rows) + "\n"


def block_sglang_figures(recs: dict) -> str:
    return figures_table(oracle_records(recs, "sglang", "") + oracle_records(recs, "sglang", "pool"))


def block_vllm_figures(recs: dict) -> str:
    # Eighteen releases do not fit a page: the newest four.
    records = oracle_records(recs, "vllm", "vllm")
    newest = {r["release"] for r in records[-4:]}
    return figures_table([r for r in records if r["release"] in newest])


def figures_table(settings: list) -> str:
    if not settings:
        return None
    releases = sorted({r["release"] for r in settings}, key=release_key)
    cells = {}
    for r in settings:
        for f in r["figures"]:
            cells[(f["figure"], r["release"])] = f
    figures = sorted({f for f, _ in cells})
    out = "| figure | " + " | ".join(releases) + " |\n|---|" + "---|" * len(releases) + "\n"
    for figure in figures:
        row = []
        for rel in releases:
            f = cells.get((figure, rel))
            if f is None:
                row.append("—")
            elif f["agree"] == f["total"]:
                row.append(f"100% ({f['total']:,})")
            else:
                row.append(f"{pct(f['agree'], f['total'])} ({f['agree']:,}/{f['total']:,})")
        out += f"| `{figure}` | " + " | ".join(row) + " |\n"
    return out


def block_layouts(recs: dict) -> str:
    lines = []
    for r in oracle_records(recs, "vllm layouts"):
        lines.append(
            f"- **vLLM {r['release']}**: {r['agree']:,} of {r['total']:,} figures agree "
            f"({pct(r['agree'], r['total'])}), the {r['total'] - r['agree']} others "
            f"{r['gaps']} named gaps; {r['architectures_modelled']} architectures modelled and "
            f"{r['variants']} more configs of them, of the {r['architectures_built']} this "
            "release's model code builds here."
        )
    for r in oracle_records(recs, "sglang layouts"):
        archs = recs.get("sglang-layouts-architectures", {})
        every = f"; {len(archs['exact'])} architectures agree on every figure" if archs else ""
        lines.append(
            f"- **SGLang {r['release']}**: {r['agree']:,} of {r['total']:,} figures agree "
            f"({pct(r['agree'], r['total'])}), {r['gaps']} named gaps{every}."
        )
    return "\n".join(lines) + "\n" if lines else None


def coverage_counts(cov: dict) -> dict:
    counts = {}
    for a in cov["architectures"]:
        counts.setdefault(a["kind"], {"modelled": 0, "gaps": 0, "not-modelled": 0})
        counts[a["kind"]][a["status"]] += 1
    return counts


def block_coverage(recs: dict) -> str:
    lines = []
    for engine, label in (("vllm", "vLLM"), ("sglang", "SGLang")):
        cov = recs.get(f"coverage-{engine}")
        if cov is None:
            continue
        parts = []
        for kind, c in sorted(coverage_counts(cov).items(), reverse=True):
            total = sum(c.values())
            parts.append(
                f"{kind} {c['modelled']} of {total} planned exactly "
                f"({pct(c['modelled'], total)}), {c['gaps']} with named gaps"
            )
        release = cov.get("release", "")
        lines.append(f"- **{label} {release}**: " + "; ".join(parts) + ".")
    return "\n".join(lines) + "\n" if lines else None


def block_coverage_table(recs: dict) -> str:
    rows = []
    for engine, label in (("vllm", "vLLM"), ("sglang", "SGLang")):
        cov = recs.get(f"coverage-{engine}")
        if cov is None:
            continue
        c = coverage_counts(cov)
        text, mm = c.get("text", {}), c.get("multimodal", {})
        cell = lambda k: f"{k.get('modelled', 0)} of {sum(k.values())} ({pct(k.get('modelled', 0), sum(k.values()))})"  # noqa: E731
        rows.append(
            f"| {label} {cov.get('release', '')} | {cell(text)} | {cell(mm)} | "
            f"{text.get('gaps', 0) + mm.get('gaps', 0)} |"
        )
    if not rows:
        return None
    return (
        "| engine | text planned exactly | multimodal planned exactly | with named gaps |\n"
        "|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def block_real_logs(recs: dict) -> str:
    check = recs.get("corpus-check")
    if check is None:
        return None
    t = check["total"]
    text = (
        f"Every raw log of the corpus through `servescope check`: {t['logs']} logs, "
        f"{t['checked_logs']} checked; compared **{t['compared']} of {t['stated']}** stated "
        f"capacity figures ({pct(t['compared'], t['stated'])}), **{t['matched']} / "
        f"{t['compared']} match**."
    )
    if t.get("predicted"):
        text += (
            f" Not compared but predicted over estimates' intervals: {t['predicted']}, "
            f"{t['predicted'] - t['predicted_outside']} inside."
        )
    return text + "\n"


UNCALIBRATED_LEAD = "vLLM uncalibrated (command, model and GPU only) against the v0.19.0 H100 sweep"


def block_uncalibrated(recs: dict, lead: str = UNCALIBRATED_LEAD) -> str:
    u = recs.get("vllm-uncalibrated-v0.19.0-sweep")
    if u is None:
        return None
    return (
        f"{lead}, "
        f"{u['runs']} runs: KV token count median error **{100 * u['kv_tokens_error_median']:.1f}%**, "
        f"worst **{100 * u['kv_tokens_error_worst']:.1f}%**; available KV memory median "
        f"{u['kv_gib_median']:.2f} GiB off, worst {u['kv_gib_worst']:.2f} GiB; terms (medians of "
        f"the absolute error): weights {u['weights_gib_median']:.2f} GiB, activation "
        f"{u['activation_gib_median']:.2f} GiB, non-torch {u['non_torch_gib_median']:.2f} GiB.\n"
    )


def block_headline_oracles(recs: dict) -> str:
    sg = oracle_records(recs, "sglang", "")
    pool = oracle_records(recs, "sglang", "pool")
    vl = oracle_records(recs, "vllm", "vllm")
    if not (sg and vl):
        return None
    sg_text = ", ".join(f"{r['release']} {pct(r['agree'], r['total'])}" for r in sg)
    pool_all = all(r["agree"] == r["total"] for r in pool)
    vl_agree = sum(r["agree"] for r in vl)
    vl_total = sum(r["total"] for r in vl)
    vl_gaps = sum(r["gaps"] for r in vl)
    return (
        f"- **The engines' own code as the oracle**: SGLang's resolved settings {sg_text}; its pool "
        f"figures {'100%' if pool_all else 'see docs/accuracy.md'}; vLLM, {len(vl)} releases "
        f"({vl[0]['release']} … {vl[-1]['release']}): {vl_agree:,} of {vl_total:,} figures agree "
        f"({pct(vl_agree, vl_total)}), {vl_gaps} named gaps. Every other figure is a named gap.\n"
    )


def block_headline_architectures(recs: dict) -> str:
    vl = oracle_records(recs, "vllm layouts")
    sg = oracle_records(recs, "sglang layouts")
    cov_v, cov_s = recs.get("coverage-vllm"), recs.get("coverage-sglang")
    if not (vl and sg and cov_v and cov_s):
        return None
    v, s = vl[-1], sg[-1]
    cv, cs = coverage_counts(cov_v)["text"], coverage_counts(cov_s)["text"]
    mv, ms = coverage_counts(cov_v)["multimodal"], coverage_counts(cov_s)["multimodal"]
    return (
        f"- **Architectures against the engines' model code**: vLLM {v['release']} "
        f"**{v['agree']} of {v['total']} figures agree ({pct(v['agree'], v['total'])})**, SGLang "
        f"{s['release']} **{s['agree']} of {s['total']} ({pct(s['agree'], s['total'])})**; "
        f"`models --coverage` plans exactly {cv['modelled']} of vLLM's {sum(cv.values())} text "
        f"architectures and {mv['modelled']} of its {sum(mv.values())} multimodal ones, "
        f"{cs['modelled']} of SGLang's {sum(cs.values())} and {ms['modelled']} of "
        f"{sum(ms.values())}.\n"
    )


def block_headline_real_logs(recs: dict) -> str:
    text = block_real_logs(recs)
    return None if text is None else "- **Real logs.** " + text


def block_headline_uncalibrated(recs: dict) -> str:
    return block_uncalibrated(recs, f"- **{UNCALIBRATED_LEAD}**")


def pct_or_dash(v: float) -> str:
    return "—" if v is None or v < 0 else f"{100.0 * v:.1f}%"


def block_simulate_published(recs: dict) -> str:
    """simulate against the published serving results (tests/twin/published_results_test.cc)."""
    cal = recs.get("simulate-published-calibrated")
    unc = recs.get("simulate-published-uncalibrated")
    if not (cal and unc):
        return None
    out = (
        f"Calibrated from one point of each of {cal['sweeps']} sweeps (its middle load), "
        f"{cal['predicted']} other points predicted: median error **TPOT "
        f"{pct_or_dash(cal['tpot'])}, output throughput {pct_or_dash(cal['throughput'])}**, "
        f"TTFT {pct_or_dash(cal['ttft'])}.\n\n"
        "Uncalibrated (the cost defaults of `data/cost-defaults.tsv`), per engine and GPU "
        "family: the median error on the corpus, and what the defaults state for sweeps their "
        "fit did not see (two folds by sweep):\n\n"
        "| engine | GPU family | points | TPOT | output tok/s | TTFT | stated for unseen sweeps "
        "(TPOT / tok/s / TTFT) | factors |\n|---|---|---|---|---|---|---|---|\n"
    )
    for r in unc["rows"]:
        row = r["defaults_row"]
        stated = (
            f"{pct_or_dash(r['stated_tpot'])} / {pct_or_dash(r['stated_throughput'])} / "
            f"{pct_or_dash(r['stated_ttft'])}"
        )
        if row == "*":
            stated += " (the engine's fit over every family)"
        out += (
            f"| {r['engine']} | {r['family']} | {r['points']} | {pct_or_dash(r['tpot'])} | "
            f"{pct_or_dash(r['throughput'])} | {pct_or_dash(r['ttft'])} | {stated} | "
            f"`{r['factors']}` |\n"
        )
    return out


def block_headline_simulate(recs: dict) -> str:
    cal = recs.get("simulate-published-calibrated")
    if not cal:
        return None
    return (
        f"- **simulate against published GPU results**: calibrated from one point of a sweep, "
        f"the other {cal['predicted']} points of {cal['sweeps']} sweeps within a median "
        f"**{pct_or_dash(cal['tpot'])} on TPOT and {pct_or_dash(cal['throughput'])} on output "
        f"throughput** (TTFT {pct_or_dash(cal['ttft'])}); uncalibrated errors per GPU family in "
        "[docs/accuracy.md](docs/accuracy.md#simulate-against-published-results).\n"
    )


BLOCKS = {
    "oracles": block_oracles,
    "sglang-figures": block_sglang_figures,
    "vllm-figures": block_vllm_figures,
    "layouts": block_layouts,
    "coverage": block_coverage,
    "coverage-table": block_coverage_table,
    "real-logs": block_real_logs,
    "uncalibrated": block_uncalibrated,
    "headline-real-logs": block_headline_real_logs,
    "headline-oracles": block_headline_oracles,
    "headline-architectures": block_headline_architectures,
    "headline-uncalibrated": block_headline_uncalibrated,
    "simulate-published": block_simulate_published,
    "headline-simulate": block_headline_simulate,
}

MARKED = re.compile(
    r"(<!-- accuracy:BEGIN (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- accuracy:END (?P=name) -->)",
    re.S,
)


def render(text: str, recs: dict, stamp: str, report: list) -> str:
    def one(m):
        name = m.group("name")
        make = BLOCKS.get(name)
        if make is None:
            raise SystemExit(f"render.py: unknown block '{name}'")
        body = make(recs)
        if body is None:
            report.append(f"kept {name}: no records of it in this run")
            return m.group(0)
        report.append(f"rendered {name}")
        return m.group(1) + body + stamp + "\n" + m.group(4)

    return MARKED.sub(one, text)


def main(argv: list) -> int:
    if len(argv) < 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    records, commit, date, files = Path(argv[1]), argv[2], argv[3], argv[4:]
    recs = load(records)
    if not recs:
        print(f"render.py: no records in {records}: run `make accuracy`", file=sys.stderr)
        return 2
    stamp = f"<sub>`make accuracy`, {date}, commit {commit}</sub>"
    for name in files:
        path = Path(name)
        report = []
        path.write_text(render(path.read_text(), recs, stamp, report))
        for line in report:
            print(f"{name}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
