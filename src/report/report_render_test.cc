// servescope report: kinds detected from the --json documents, the Markdown carries the
// documents' numbers, the HTML is well formed, self-contained, and inlines uPlot when built in.
// Fixtures: tests/report/*.json, the --json output of each command (report/README.md says how).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "report/html_parts.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_assets.h"
#include "report/report_document.h"

namespace servescope {
namespace {

nlohmann::json fixture(const std::string& name) {
  std::ifstream in(std::string(SERVESCOPE_SOURCE_DIR) + "/tests/report/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

const std::vector<std::pair<std::string, ReportKind>>& fixtures() {
  static const std::vector<std::pair<std::string, ReportKind>> kAll = {
      {"plan-vllm.json", ReportKind::kPlan},  {"plan-sglang.json", ReportKind::kPlan},
      {"check.json", ReportKind::kCheck},     {"diff.json", ReportKind::kDiff},
      {"bench.json", ReportKind::kBench},     {"bisect.json", ReportKind::kBisect},
      {"explain.json", ReportKind::kExplain}, {"why.json", ReportKind::kWhy},
      {"logs.json", ReportKind::kLogs},       {"fit.json", ReportKind::kFit},
      {"bench-slo.json", ReportKind::kBench}, {"compare.json", ReportKind::kCompare}};
  return kAll;
}

/// Balanced tags: every element opened is closed in order, except void elements and "/>".
/// Returns "" when balanced, else where it is not.
std::string unbalanced_tag(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col"};
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = html.find('<', at)) != std::string::npos) {
    if (html.compare(at, 4, "<!--") == 0) {
      at = html.find("-->", at);
      if (at == std::string::npos)
        return "unclosed comment";
      continue;
    }
    const std::size_t end = html.find('>', at);
    if (end == std::string::npos)
      return "unclosed tag at " + std::to_string(at);
    const std::string tag = html.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty() || tag[0] == '!')
      continue;
    const bool closing = tag[0] == '/';
    std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" \n/", closing ? 1 : 0) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "nothing" : open.back()) + ">";
      open.pop_back();
    } else if (tag.back() != '/' && kVoid.count(name) == 0) {
      open.push_back(name);
      if (name == "script" || name == "style") {  // raw text up to the closing tag
        at = html.find("</" + name, at);
        if (at == std::string::npos)
          return "unclosed <" + name + ">";
      }
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

ReportAssets fake_uplot() {
  return ReportAssets{"9.9.9",
                      "",
                      {{"uPlot.iife.min.js", "var uPlot=function(){/*FAKE-UPLOT*/};"},
                       {"uPlot.min.css", ".uplot{/*FAKE-CSS*/}"},
                       {"LICENSE", "The MIT License"}}};
}

TEST(ReportKind, IsToldFromEachDocumentsFields) {
  for (const auto& [name, kind] : fixtures()) {
    auto got = detect_report_kind(fixture(name));
    ASSERT_TRUE(got) << name << ": " << got.message();
    EXPECT_EQ(*got, kind) << name;
  }
  EXPECT_FALSE(detect_report_kind(nlohmann::json{{"hello", 1}}));
  EXPECT_FALSE(detect_report_kind(nlohmann::json::array()));
}

TEST(MemoryBreakdown, VllmRequestedIsTheSumOfItsPartsAndTheDeviceIsTheBar) {
  const MemoryBreakdown m = memory_breakdown(fixture("plan-vllm.json")["memory"]);
  ASSERT_EQ(m.rows.size(), 7u);
  EXPECT_EQ(m.extent_item, "device total T (cudaMemGetInfo)");
  EXPECT_TRUE(m.rows[1].total);  // requested R = W + A + N + G + KV
  for (std::size_t i = 2; i < 7; ++i) {
    EXPECT_FALSE(m.rows[i].total) << m.rows[i].item;
    EXPECT_EQ(m.rows[i].total_of, m.rows[1].item);
  }
  EXPECT_NEAR(m.stacked, m.rows[1].gib, 0.01);
  EXPECT_NEAR(m.extent, 79.189453125, 1e-9);
  EXPECT_NEAR(m.rows[6].offset, m.stacked - m.rows[6].gib, 1e-9);  // KV last in the stack
}

TEST(MemoryBreakdown, SglangNestsFreeAfterLoadInsideFreeBeforeLoad) {
  const MemoryBreakdown m = memory_breakdown(fixture("plan-sglang.json")["memory"]);
  ASSERT_EQ(m.rows.size(), 6u);
  EXPECT_TRUE(m.rows[1].total);   // P = weights + A
  EXPECT_FALSE(m.rows[2].total);  // weights
  EXPECT_TRUE(m.rows[3].total);   // A = slack + KV
  EXPECT_EQ(m.rows[5].total_of, m.rows[3].item);
  EXPECT_NEAR(m.stacked, m.rows[2].gib + m.rows[4].gib + m.rows[5].gib, 1e-9);
  EXPECT_NEAR(m.rows[3].offset, m.rows[2].gib, 1e-9);  // A starts after the weights
}

TEST(MarkdownReport, PlanHasTheBudgetOutputsFindingsAndNestedDerivation) {
  const nlohmann::json doc = fixture("plan-vllm.json");
  const std::string md = render_markdown_report(doc, ReportKind::kPlan);
  for (const char* heading :
       {"## Memory budget per GPU", "## Outputs", "## Findings", "## Derivation"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading;
  EXPECT_NE(md.find("| `gpu_kv_cache_size_tokens` | 394,512 |"), std::string::npos);
  EXPECT_NE(md.find("| KV cache | 54.180 | rule | part of requested R"), std::string::npos);
  // The derivation is a nested list: an output at depth 0, its inputs indented under it.
  EXPECT_NE(md.find("- `max_model_len` = **40,960** tokens · rule V1.2 · "
                    "`vllm/config/model.py::ModelConfig.get_and_verify_max_len`"),
            std::string::npos);
  const std::regex nested(
      R"re(\n( *)- `max_model_len` = \*\*40,960\*\*[^\n]*\n\1  - `arg.max_model_len` = \*\*—\*\* tokens)re");
  EXPECT_TRUE(std::regex_search(md, nested)) << md;
  EXPECT_NE(md.find("estimated-input"), std::string::npos);
}

TEST(MarkdownReport, CheckShowsPredictedIntervalLoggedAndTheLogLine) {
  const std::string md = render_markdown_report(fixture("check.json"), ReportKind::kCheck);
  EXPECT_NE(md.find("**5 matched, 0 mismatched**"), std::string::npos);
  EXPECT_NE(
      md.find("| `gpu_kv_cache_size_tokens` | 1,677,696 | 1,677,696 … 1,677,696 | 1,677,696 | ✓ "
              "| `tests/real/logs/kv1-len2048-bsdefault-seqs16-bf16hd80.log:47` |"),
      std::string::npos)
      << md;
}

TEST(MarkdownReport, DiffHasEachMovedOutputAndAMermaidFlow) {
  const std::string md = render_markdown_report(fixture("diff.json"), ReportKind::kDiff);
  EXPECT_NE(md.find("## 9 moved outputs"), std::string::npos);
  EXPECT_NE(md.find("| `gpu_kv_cache_size_tokens` | 394,512 | 650,656 | + --gpu-memory-utilization "
                    "0.8, + --kv-cache-dtype fp8 (together) | V5.1 → V3.2"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("```mermaid\nflowchart LR\n  a0[\"gpu_kv_cache_size_tokens: 394,512\"] -->|\"+ "
                    "--gpu-memory-utilization 0.8, + --kv-cache-dtype fp8\"| b0[\"650,656\"]"),
            std::string::npos)
      << md;
}

TEST(MarkdownReport, BenchHasOneRowPerPointAndTheServerView) {
  const std::string md = render_markdown_report(fixture("bench.json"), ReportKind::kBench);
  EXPECT_NE(md.find("| 16 | 1,176.33 | 75,285.1 | 3.31 / 3.44 / 3.48 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 | 1 | 1 | 0 | — | /metrics |"), std::string::npos) << md;
}

TEST(MarkdownReport, BisectMarksTheCulpritAndDrawsAGantt) {
  const std::string md = render_markdown_report(fixture("bisect.json"), ReportKind::kBisect);
  EXPECT_NE(md.find("- **--block-size 16**"), std::string::npos);
  EXPECT_NE(md.find("| **3** | `--block-size 16` **culprit** | failed_start | reproduces |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("```mermaid\ngantt\n"), std::string::npos);
  EXPECT_NE(md.find("  exp 3 --block-size 16 :crit, e3, "), std::string::npos) << md;
}

TEST(HtmlReport, TheBalanceCheckerCatchesAnUnclosedOrCrossedTag) {
  EXPECT_EQ(unbalanced_tag("<p><b>x</b></p><br><circle r=\"1\" />"), "");
  EXPECT_NE(unbalanced_tag("<div><span></div></span>"), "");
  EXPECT_NE(unbalanced_tag("<details><summary>x</summary>"), "");
}

TEST(HtmlReport, EveryKindIsWellFormedWithAndWithoutTheLibrary) {
  for (const auto& [name, kind] : fixtures()) {
    for (const ReportAssets& assets : {ReportAssets{}, fake_uplot()}) {
      const std::string page = render_html_report(fixture(name), kind, assets);
      EXPECT_EQ(unbalanced_tag(page), "") << name;
      EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << name;
      EXPECT_NE(page.find("prefers-color-scheme:dark"), std::string::npos);
      EXPECT_NE(page.find("@media print"), std::string::npos);
    }
  }
}

TEST(HtmlReport, FetchesNothingWhenOpened) {
  const std::regex external(R"re((src|href)\s*=\s*["']?\s*(https?:)?//)re", std::regex::icase);
  const std::regex imported(R"re(@import|url\(\s*["']?(https?:)?//|<link\b)re", std::regex::icase);
  for (const auto& [name, kind] : fixtures()) {
    for (const ReportAssets& assets : {ReportAssets{}, fake_uplot(), report_assets()}) {
      const std::string page = render_html_report(fixture(name), kind, assets);
      EXPECT_FALSE(std::regex_search(page, external)) << name;
      EXPECT_FALSE(std::regex_search(page, imported)) << name;
    }
  }
  // The check itself can fail.
  EXPECT_TRUE(std::regex_search(std::string("<script src=\"https://cdn/x.js\">"), external));
}

TEST(HtmlReport, PlanShowsEveryMemoryItemWithItsSourceAndTheRuleTree) {
  const std::string page =
      render_html_report(fixture("plan-vllm.json"), ReportKind::kPlan, ReportAssets{});
  EXPECT_NE(page.find("class=\"seg src-estimate\""), std::string::npos);
  EXPECT_NE(page.find("title=\"KV cache — 54.18 GiB (rule)\""), std::string::npos);
  EXPECT_NE(page.find("requested R = ceil(T·U) = 72.85 GiB (rule)"), std::string::npos);
  EXPECT_NE(page.find("<details id=\"n-max-model-len\"><summary><code>max_model_len</code> = "
                      "<strong>40,960</strong> tokens <span class=\"rule\">V1.2</span>"),
            std::string::npos);
}

TEST(HtmlReport, BisectHighlightsTheCulpritRowAndCheckTheIntervals) {
  const std::string bisect =
      render_html_report(fixture("bisect.json"), ReportKind::kBisect, ReportAssets{});
  EXPECT_NE(bisect.find("<tr class=\"culprit\"><td>3</td>"), std::string::npos);
  EXPECT_NE(bisect.find("class=\"tl-culprit\""), std::string::npos);
  const std::string check =
      render_html_report(fixture("check.json"), ReportKind::kCheck, ReportAssets{});
  EXPECT_NE(check.find("<svg class=\"interval\""), std::string::npos);
  EXPECT_NE(check.find("kv1-len2048-bsdefault-seqs16-bf16hd80.log:47"), std::string::npos);
}

TEST(HtmlReport, BisectOnASchedulerSaysWhereEachExperimentRanAndHowLongItQueued) {
  nlohmann::json doc = fixture("bisect.json");
  EXPECT_EQ(render_html_report(doc, ReportKind::kBisect, ReportAssets{}).find("queued s"),
            std::string::npos);  // local runs: no such columns
  auto& first = doc["experiments"][0];
  first["launcher"] = "slurm";
  first["job_id"] = "4711";
  first["node"] = "gpu07";
  first["queued_seconds"] = 93.25;
  first["reattached"] = true;
  const std::string html = render_html_report(doc, ReportKind::kBisect, ReportAssets{});
  EXPECT_NE(html.find("<th>queued s</th>"), std::string::npos);
  EXPECT_NE(html.find("slurm job 4711 on gpu07 (re-attached)"), std::string::npos);
  EXPECT_NE(html.find("<td>93.2</td>"), std::string::npos);
}

TEST(HtmlReport, InlinesTheChartingLibraryOrSaysItDrewSvg) {
  const nlohmann::json bench = fixture("bench.json");
  const std::string with = render_html_report(bench, ReportKind::kBench, fake_uplot());
  EXPECT_NE(with.find("FAKE-UPLOT"), std::string::npos);
  EXPECT_NE(with.find("FAKE-CSS"), std::string::npos);
  EXPECT_NE(with.find("id=\"chart-specs\""), std::string::npos);
  EXPECT_EQ(with.find("id=\"svg-fallback\""), std::string::npos);
  const std::string without = render_html_report(bench, ReportKind::kBench, ReportAssets{});
  EXPECT_EQ(without.find("id=\"uplot-js\""), std::string::npos);
  EXPECT_NE(without.find("id=\"svg-fallback\""), std::string::npos);
  EXPECT_NE(without.find("<svg class=\"chart-svg\""), std::string::npos);
}

TEST(ReportDocument, ExplainIsToldByItsNodesNotByAnyObject) {
  EXPECT_FALSE(detect_report_kind(nlohmann::json::parse(R"({"x": [1, 2]})")));
  EXPECT_FALSE(detect_report_kind(nlohmann::json::parse(R"({"x": [{"id": "a"}]})")));
  EXPECT_FALSE(detect_report_kind(nlohmann::json::object()));
  EXPECT_FALSE(detect_report_kind(nlohmann::json::parse(R"({"format": 1, "summary": {},
                                                            "timelines": []})")));
  EXPECT_EQ(explain_nodes(fixture("explain.json")).size(), 12u);  // shared nodes once
}

TEST(HtmlReport, ExplainIsACollapsibleTreeWithRulesSourcesAndLinksToSharedNodes) {
  const std::string page =
      render_html_report(fixture("explain.json"), ReportKind::kExplain, ReportAssets{});
  EXPECT_NE(page.find("<details id=\"n-batch-defaults-tier\"><summary><code>batch_defaults_tier"
                      "</code> = <strong>large</strong> <span class=\"rule\">V6.1</span> <span "
                      "class=\"srcloc mono\">vllm/engine/arg_utils.py::EngineArgs.get_batch_"
                      "defaults</span>"),
            std::string::npos);
  // max_num_seqs reuses the tier max_num_batched_tokens expanded: a link, not a second copy.
  EXPECT_NE(page.find("<a href=\"#n-batch-defaults-tier\">(derived above)</a>"), std::string::npos);
  EXPECT_EQ(
      page.find("id=\"n-batch-defaults-tier\"", page.find("id=\"n-batch-defaults-tier\"") + 1),
      std::string::npos);
  EXPECT_NE(page.find("<title>servescope explain · max_num_batched_tokens, max_num_seqs</title>"),
            std::string::npos);
}

TEST(MarkdownReport, ExplainIsNestedListsWithRuleIdsAndSources) {
  const std::string md = render_markdown_report(fixture("explain.json"), ReportKind::kExplain);
  const std::regex nested(
      R"re(\n- `max_num_seqs` = \*\*1,024\*\* sequences · rule V6.1 · `vllm/engine/arg_utils.py::[^\n]*\n  - `arg.max_num_seqs` = \*\*—\*\* sequences · engine default)re");
  EXPECT_TRUE(std::regex_search(md, nested)) << md;
  EXPECT_NE(md.find("    - `device_total_memory_gib` = **79.19** GiB · GPU catalog"),
            std::string::npos);
}

TEST(WhyReport, ExperimentsAreATableOfPredictedOutcomesPerHypothesis) {
  const nlohmann::json doc = fixture("why.json");
  const std::string page = render_html_report(doc, ReportKind::kWhy, ReportAssets{});
  EXPECT_NE(page.find("<th>H6</th><th>pairs separated</th>"), std::string::npos);
  EXPECT_EQ(page.find("<th>H7</th>"), std::string::npos);  // the plan covers six
  EXPECT_NE(page.find("H7…H7 are not in the plan"), std::string::npos);
  EXPECT_NE(page.find("<td><span>2048</span></td><td><span class=\"warn\">763</span></td>"),
            std::string::npos);
  // H6 predicts what H1 does for the baseline launch: not marked.
  EXPECT_NE(page.find("<td><span>free memory at free_after_load 13.403 … 13.403 GiB</span></td>"
                      "<td>14</td>"),
            std::string::npos);
  EXPECT_NE(page.find("<td>H3</td><td><code>+ --max-running-requests 26</code></td>"),
            std::string::npos);
  const std::string md = render_markdown_report(doc, ReportKind::kWhy);
  EXPECT_NE(md.find("| launch with + --disable-cuda-graph | + --disable-cuda-graph | 2048 | "
                    "**763** | **26** | **26** | **26** | **48** | 1 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- the plan predicts: 4,096"), std::string::npos);
}

TEST(LogsReport, CapacityFactsAndTheTimelineChartedByLogLine) {
  const nlohmann::json doc = fixture("logs.json");
  const std::string page = render_html_report(doc, ReportKind::kLogs, fake_uplot());
  // Two charts (running/queued, KV usage) whose x values are the points' first log lines.
  const std::size_t at = page.find("id=\"chart-specs\">");
  ASSERT_NE(at, std::string::npos);
  const std::size_t from = at + std::string("id=\"chart-specs\">").size();
  const nlohmann::json specs =
      nlohmann::json::parse(page.substr(from, page.find("</script>", from) - from));
  ASSERT_EQ(specs.size(), 2u);
  const nlohmann::json& points = doc["timelines"][0]["points"];
  ASSERT_EQ(specs[0]["x"].size(), points.size());
  EXPECT_EQ(specs[0]["x"][5].get<double>(), points[5]["first_line"].get<double>());
  EXPECT_EQ(specs[0]["x_label"], "log line");
  EXPECT_EQ(specs[0]["series"][1]["values"][5].get<double>(), points[5]["queue_req"].get<double>());
  EXPECT_EQ(specs[1]["series"][0]["label"], "token usage");
  EXPECT_NE(page.find("32 at line 1035 (2026-12-02 07:17:41)"), std::string::npos);
  EXPECT_NE(page.find("<td>max_running_requests</td><td><span class=\"mono\">4,096</span></td>"
                      "<td><span class=\"mono\">11</span></td>"),
            std::string::npos);
  EXPECT_EQ(page.find("id=\"svg-fallback\""), std::string::npos);
  const std::string svg = render_html_report(doc, ReportKind::kLogs, ReportAssets{});
  EXPECT_NE(svg.find("<svg class=\"chart-svg\""), std::string::npos);
  const std::string md = render_markdown_report(doc, ReportKind::kLogs);
  EXPECT_NE(md.find("| max_running_requests | 4,096 | 11 | `capacity` |"), std::string::npos);
  EXPECT_NE(md.find("| `running_req` | 32 | 1035 | 2026-12-02 07:17:41 |"), std::string::npos);
  EXPECT_NE(md.find("| 17–22 | 2026-12-02 07:17:33 | 1 | 0 | 0 | 3,810.34 |"), std::string::npos)
      << md;
}

TEST(ReportAssets, TheBuildInlinedUplotUnlessItSaidWhyNot) {
  const ReportAssets& assets = report_assets();
  if (!assets.note.empty())
    GTEST_SKIP() << "built without uPlot: " << assets.note;
  ASSERT_TRUE(assets.has_uplot());
  EXPECT_EQ(assets.uplot_version, "1.6.32");  // report/package-lock.json's pin
  const std::string page = render_html_report(fixture("bench.json"), ReportKind::kBench, assets);
  EXPECT_NE(page.find("/*! https://github.com/leeoniya/uPlot (v1.6.32) */"), std::string::npos);
  EXPECT_NE(page.find("new uPlot("), std::string::npos);
}

// bench --slo --repeat 3 (tests/report/bench-slo.json): each point's attainment and goodput, the
// point whose percentile objective was missed marked, and the runs said.
TEST(HtmlReport, BenchShowsTheObjectivesGoodputAndTheMissedPoint) {
  const nlohmann::json doc = fixture("bench-slo.json");
  const std::string html = render_html_report(doc, ReportKind::kBench, fake_uplot());
  EXPECT_NE(html.find("id=\"slo\""), std::string::npos);
  EXPECT_NE(html.find("ttft:2ms, tpot:0.3ms, ttft_p99:5ms"), std::string::npos);
  EXPECT_NE(html.find("32 of 72"), std::string::npos);  // concurrency 4: 44.4%
  EXPECT_NE(html.find("<td>44.4</td>"), std::string::npos);
  EXPECT_NE(html.find("ttft_p99:5ms: 6.9 ms <strong>missed</strong>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"miss\">"), std::string::npos);
  EXPECT_NE(html.find("× 3 runs"), std::string::npos);
  EXPECT_NE(html.find("goodput output tokens/s"), std::string::npos);
  const std::string md = render_markdown_report(doc, ReportKind::kBench);
  EXPECT_NE(md.find("| 4 | 44.4 |"), std::string::npos) << md;
}

// bench --compare (tests/report/compare.json): every difference with its interval drawn, the
// worse ones marked, the same verdicts in Markdown.
TEST(HtmlReport, CompareDrawsEachIntervalAgainstNoChange) {
  const nlohmann::json doc = fixture("compare.json");
  const std::string html = render_html_report(doc, ReportKind::kCompare, fake_uplot());
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("aria-label=\"the change from A to B"), doc["differences"].size());
  std::size_t real = 0, worse = 0;
  for (const auto& d : doc["differences"]) {
    const bool r = d["real_difference"].get<bool>();
    real += r ? 1 : 0;
    const bool lower = d["lower_is_better"].get<bool>();
    worse += r && (lower ? d["change"].get<double>() > 0 : d["change"].get<double>() < 0) ? 1 : 0;
  }
  EXPECT_NE(html.find(std::to_string(real) + " of " + std::to_string(doc["differences"].size()) +
                      " figures differ beyond noise"),
            std::string::npos);
  EXPECT_EQ(count("<tr class=\"miss\">"), worse);
  EXPECT_GT(worse, 0u);
  const std::string md = render_markdown_report(doc, ReportKind::kCompare);
  EXPECT_NE(md.find("| concurrency 4 | requests/s |"), std::string::npos) << md;
  EXPECT_NE(md.find("a real difference (worse)"), std::string::npos) << md;
}

}  // namespace
}  // namespace servescope
