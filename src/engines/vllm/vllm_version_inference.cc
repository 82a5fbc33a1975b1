#include "engines/vllm/vllm_version_inference.h"

#include <fmt/format.h>

#include <string_view>

#include "core/text.h"
#include "engines/pypi_releases.h"
#include "engines/vllm/vllm_rules.h"

namespace servescope::vllm {

namespace {

// "0.6.6.post1" → {0, 6, 6}; empty when not a version.
std::vector<int> version_numbers(std::string_view v) {
  std::vector<int> out;
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V'))
    v.remove_prefix(1);
  int current = -1;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      if (current > 99999)
        break;  // no release part is this long (found by log_parser_fuzz: int overflow)
      current = (current < 0 ? 0 : current * 10) + (c - '0');
    } else if (c == '.' && current >= 0) {
      out.push_back(current);
      current = -1;
    } else {
      break;
    }
  }
  if (current >= 0)
    out.push_back(current);
  if (out.size() > 3)
    out.resize(3);
  return out;
}

bool is_dev(std::string_view v) {
  return v.find("dev") != std::string_view::npos || v.find('+') != std::string_view::npos;
}

// The build date setuptools-scm writes into a development version's local part
// ("0.1.dev1+g4d2a68d64.d20260816" → "2026-08-16"), or "".
std::string scm_build_date(std::string_view v) {
  const auto plus = v.find('+');
  if (plus == std::string_view::npos)
    return "";
  for (std::string_view part : split(v.substr(plus + 1), '.')) {
    if (part.size() == 9 && part[0] == 'd' &&
        part.substr(1).find_first_not_of("0123456789") == std::string_view::npos)
      return fmt::format("{}-{}-{}", part.substr(1, 4), part.substr(5, 2), part.substr(7, 2));
  }
  return "";
}

struct Recorder {
  std::vector<VersionEvidence>& out;
  void seen(const Fact& f, std::string observation, std::string from, std::string until,
            std::string rule, int weight = 2) {
    out.push_back(VersionEvidence{std::move(observation), true, f.line, std::move(from),
                                  std::move(until), std::move(rule), weight, false});
  }
};

// The printed version placed in the release table.
void printed_version(const Fact& f, const std::string& version, Recorder& ev) {
  const std::vector<int> n = version_numbers(version);
  if (n.empty())
    return;
  const std::string source =
      f.text("source").value_or(f.kind == "engine_config" ? "engine config" : "text");
  const std::string what = fmt::format("vllm {} ({})", version, source);
  const std::string built = scm_build_date(version);
  // setuptools-scm's fallback when a checkout has no release tag in reach (a shallow clone):
  // "0.1.devN+gHASH.dDATE" names no release; only its build date bounds the code.
  if (is_dev(version) && n.size() >= 2 && n[0] == 0 && n[1] <= 1) {
    ev.seen(f, what, "", built,
            built.empty()
                ? std::string("a development build whose version names no release "
                              "(setuptools-scm's 0.1.devN): no bound")
                : fmt::format("a development build whose version names no release "
                              "(setuptools-scm's 0.1.devN), built {}: its commit is older",
                              built),
            1);
    return;
  }
  const auto& table = vllm_releases();
  const VllmRelease* exact = nullptr;
  const VllmRelease* below = nullptr;
  const VllmRelease* above = nullptr;
  for (const VllmRelease& r : table) {
    const std::vector<int> rn = version_numbers(r.name);
    if (rn == n && (r.name == version || version.rfind(r.name, 0) == 0))
      exact = &r;
    else if (rn < n)
      below = &r;
    else if (rn > n && above == nullptr)
      above = &r;
  }
  if (exact != nullptr && !is_dev(version)) {
    ev.seen(f, what, exact->date, exact->date,
            fmt::format("release {} is main {} (data/vllm/releases.csv: {})", exact->name,
                        exact->date, exact->evidence),
            1);
    return;
  }
  if (exact != nullptr) {
    ev.seen(f, what, exact->date, built,
            fmt::format("a build after release {} (main {}){}", exact->name, exact->date,
                        built.empty() ? std::string() : ", built " + built),
            1);
    return;
  }
  if (const PypiRelease* p = find_pypi_release("vllm", version); p != nullptr && !is_dev(version)) {
    // Published: its code is on main before its upload.
    ev.seen(f, what, below != nullptr ? below->date : "", p->date,
            fmt::format("release {} was uploaded to PyPI on {} (data/vllm/pypi-releases.csv); "
                        "its branch was cut before",
                        p->name, p->date),
            1);
    return;
  }
  ev.seen(f, what, below != nullptr ? below->date : "", above != nullptr ? above->date : "",
          fmt::format("between the releases of data/vllm/releases.csv{}{}",
                      below != nullptr ? " after " + below->name : "",
                      above != nullptr ? " before " + above->name : ""),
          1);
}

}  // namespace

VersionInference infer_vllm_version(const std::vector<Fact>& facts) {
  VersionInference out;
  Recorder ev{out.evidence};
  bool printed = false;
  bool v0_seen = false;
  bool estimate_seen = false;
  for (const Fact& f : facts) {
    if (f.kind == "engine_version" || (f.kind == "engine_config" && f.has("version")) ||
        (f.kind == "launch_command" && f.has("image_version"))) {
      const std::string version = f.text("version").value_or(f.text("image_version").value_or(""));
      if (out.printed_version.empty())
        out.printed_version = version;
      if (!printed) {
        printed_version(f, version, ev);
        printed = true;
      }
    }
    if (!v0_seen && ((f.kind == "engine_config" && f.text("engine") == "V0") ||
                     (f.kind == "gpu_blocks" && f.text("source") == "executor") ||
                     (f.kind == "memory_profile" && f.text("form") == "v0-results"))) {
      v0_seen = true;
      ev.seen(f, "V0 engine line forms (" + f.kind + ")", "", "2025-09-30",
              "the V0 engine (LLMEngine, '# GPU blocks') was removed before v0.11.0 (October "
              "2025)",
              1);
    }
    if (f.kind == "engine_config") {
      if (f.has("compilation_config.level") && !f.has("compilation_config.mode"))
        ev.seen(f, "compilation_config has level, not mode", "", "2025-11-26",
                "compilation_config.level replaced by mode with the optimization levels "
                "(#26847, 2025-11-27)");
      if (f.has("compilation_config.mode"))
        ev.seen(f, "compilation_config has mode", "2025-11-27", "",
                "compilation_config.mode added with the optimization levels (#26847, "
                "2025-11-27)");
    }
    if (!estimate_seen && (f.kind == "cuda_graph_estimate" || f.kind == "cuda_graph_profile")) {
      estimate_seen = true;
      ev.seen(f, "the CUDA-graph memory estimate is logged", "2026-03-07", "",
              "GPUModelRunner.profile_cudagraph_memory added (#30515, 2026-03-07)");
    }
    if (f.kind == "cuda_graph_profiling") {
      if (f.find("subtracted") != nullptr && f.find("subtracted")->is_bool() &&
          f.find("subtracted")->as_bool())
        ev.seen(f, "'CUDA graph memory profiling is enabled (default since v0.21.0)'", "2026-04-21",
                "", "the profiling became the default (#38284, 2026-04-21)");
      else
        ev.seen(f, "'CUDA graph memory profiling will be enabled by default'", "2026-03-07",
                "2026-04-20",
                "opt-in notice from #30515 (2026-03-07) until the default switch (#38284, "
                "2026-04-21)");
    }
  }

  out.resolve_range();
  return out;
}

}  // namespace servescope::vllm
