#include "engines/architecture_coverage.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "catalog/embedded_data.h"
#include "catalog/model_layouts.h"
#include "catalog/recurrent_layout.h"
#include "core/text.h"
#include "engines/pypi_releases.h"

namespace servescope {
namespace {

std::string_view first_line(std::string_view text) {
  const auto nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  if (!line.empty() && line.front() == '#')
    line.remove_prefix(std::min<std::size_t>(2, line.size()));
  return line;
}

// The releases the table was read from (its "# releases read:" line), oldest first.
std::vector<std::string> releases_read(std::string_view text) {
  constexpr std::string_view kMark = "# releases read: ";
  for (std::string_view line : split(text, '\n')) {
    if (line.rfind(kMark, 0) == 0) {
      std::vector<std::string> out;
      for (std::string_view r : split(line.substr(kMark.size()), ' ')) {
        if (!r.empty())
          out.emplace_back(r);
      }
      return out;
    }
  }
  return {};
}

bool at_or_before(std::string_view a, std::string_view b) {
  return release_numbers(a) <= release_numbers(b);
}

struct LayoutGap {
  std::string engine, architecture, cause;
};

const std::vector<LayoutGap>& layout_gaps() {
  static const std::vector<LayoutGap> kGaps = [] {
    std::vector<LayoutGap> out;
    for (const auto& cols : embedded_tsv("model-layout-gaps.tsv")) {
      if (cols.size() >= 4)
        out.push_back(
            {std::string(cols[0]), std::string(cols[1]), fmt::format("{}: {}", cols[2], cols[3])});
    }
    return out;
  }();
  return kGaps;
}

}  // namespace

const RegisteredArchitecture* ArchitectureRegistry::find(std::string_view architecture) const {
  for (const RegisteredArchitecture& a : architectures) {
    if (a.architecture == architecture)
      return &a;
  }
  return nullptr;
}

std::vector<std::string> registry_engines() {
  std::vector<std::string> out;
  for (const EmbeddedFile& f : embedded_files()) {
    const auto slash = f.path.find('/');
    if (slash != std::string_view::npos && f.path.substr(slash + 1) == "architectures.tsv")
      out.emplace_back(f.path.substr(0, slash));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// One engine's data/<engine>/architectures.tsv, parsed once (views into the embedded bytes).
struct RegistryTable {
  std::string path;
  std::string_view header;
  std::vector<std::string> releases;  // read, oldest first
  std::vector<std::vector<std::string_view>> rows;
  std::unordered_map<std::string_view, std::vector<std::size_t>> rows_of;  // by architecture
};

const RegistryTable* registry_table(std::string_view engine) {
  static const std::map<std::string, RegistryTable, std::less<>> kTables = [] {
    std::map<std::string, RegistryTable, std::less<>> out;
    for (const std::string& e : registry_engines()) {
      RegistryTable t;
      t.path = fmt::format("{}/architectures.tsv", e);
      const std::string_view text = *find_embedded_file(t.path);
      t.header = first_line(text);
      t.releases = releases_read(text);
      if (t.releases.empty())
        throw std::logic_error("data/" + t.path + " names no release it was read from");
      t.rows = tsv_rows(text);
      for (std::size_t i = 0; i < t.rows.size(); ++i) {
        if (t.rows[i].size() < 5)
          throw std::logic_error("data/" + t.path + ": a row without five columns");
        t.rows_of[t.rows[i][0]].push_back(i);
      }
      out.emplace(e, std::move(t));
    }
    return out;
  }();
  const auto it = kTables.find(engine);
  return it == kTables.end() ? nullptr : &it->second;
}

}  // namespace

Result<ArchitectureRegistry> architecture_registry(std::string_view engine,
                                                   std::string_view version) {
  const RegistryTable* table = registry_table(engine);
  if (table == nullptr)
    return fail(fmt::format("no model registry table for engine '{}' (sglang or vllm)", engine));
  const std::vector<std::string>& releases = table->releases;
  // The release read at or before `version`: registries only grow between the releases read.
  std::string chosen = releases.back();
  if (version.find('-') != std::string_view::npos) {
    return fail(
        fmt::format("{} {}: the model registry is read per release; give one (e.g. {}), "
                    "not a main-branch date",
                    engine, version, releases.back()));
  }
  if (!version.empty()) {
    if (!at_or_before(releases.front(), version)) {
      return fail(fmt::format(
          "{} {}: the model registry table starts at {} (`python3 tools/engine-sync/registry.py "
          "{} --from {}` reads older releases)",
          engine, version, releases.front(), engine, version));
    }
    for (const std::string& r : releases) {
      if (at_or_before(r, version))
        chosen = r;
    }
  }
  ArchitectureRegistry out;
  out.engine = std::string(engine);
  out.release = chosen;
  out.header = std::string(table->header);
  for (const auto& cols : table->rows) {
    if (at_or_before(cols[3], chosen) && at_or_before(chosen, cols[4])) {
      out.architectures.push_back(
          {std::string(cols[0]), std::string(cols[1]), std::string(cols[2])});
    }
  }
  return out;
}

std::string unregistered_architecture(std::string_view engine, std::string_view release,
                                      std::string_view architecture) {
  const RegistryTable* table = registry_table(engine);
  if (table == nullptr || release.empty() || architecture.empty())
    return {};
  if (std::find(table->releases.begin(), table->releases.end(), release) == table->releases.end())
    return {};
  std::string listed;
  if (const auto it = table->rows_of.find(architecture); it != table->rows_of.end()) {
    for (std::size_t i : it->second) {
      const auto& cols = table->rows[i];
      if (at_or_before(cols[3], release) && at_or_before(release, cols[4]))
        return {};
      listed = fmt::format("; {} {} … {} list it", engine, cols[3], cols[4]);
    }
  }
  // vllm model_executor/models/registry.py::_ModelRegistry._raise_for_unsupported and SGLang
  // srt/models/registry.py::_ModelRegistry._raise_for_unsupported word it so.
  return fmt::format(
      "Model architectures ['{}'] are not supported for now: {} {}'s model registry does not "
      "list it{}; the engine serves it only through its Transformers backend, where transformers "
      "implements the model",
      architecture, engine, release, listed);
}

std::string layout_gap_note(std::string_view engine, std::string_view architecture) {
  std::vector<std::string> causes;
  for (const LayoutGap& g : layout_gaps()) {
    if (g.architecture == architecture && (g.engine == "*" || g.engine == engine))
      causes.push_back(g.cause);
  }
  if (causes.empty())
    return {};
  return fmt::format(
      "servescope's layout of {} does not agree with {}'s own model code everywhere "
      "(data/model-layout-gaps.tsv): {}",
      architecture, engine, fmt::join(causes, "; "));
}

std::string_view coverage_status_name(CoverageStatus status) {
  switch (status) {
    case CoverageStatus::kModelled:
      return "modelled";
    case CoverageStatus::kGaps:
      return "gaps";
    case CoverageStatus::kNotModelled:
      return "not-modelled";
  }
  return "?";
}

std::string transformers_model_type(std::string_view architecture) {
  static const std::vector<std::pair<std::string, std::string>> kTypes = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& cols : embedded_tsv("architecture-model-types.tsv")) {
      if (cols.size() >= 2)
        out.emplace_back(std::string(cols[0]), std::string(cols[1]));
    }
    return out;
  }();
  for (const auto& [arch, type] : kTypes) {
    if (arch == architecture)
      return type;
  }
  return {};
}

std::string registered_model_type(std::string_view architecture) {
  std::string type = transformers_model_type(architecture);
  return type.empty() ? engine_model_type(architecture) : type;
}

std::vector<ArchitectureCoverage> architecture_coverage(const ArchitectureRegistry& registry) {
  std::vector<ArchitectureCoverage> out;
  for (const RegisteredArchitecture& a : registry.architectures) {
    if (a.kind != "text" && a.kind != "multimodal")
      continue;
    ArchitectureCoverage c;
    c.registered = a;
    c.model_type = registered_model_type(a.architecture);
    const LayoutRow* row = layout_row(a.architecture, c.model_type);
    if (row == nullptr) {
      c.reason = c.model_type.empty()
                     ? "its config comes with the model's own code (no model_type in transformers "
                       "or the engine's config registry) and no layout row names the architecture"
                     : fmt::format("model_type '{}' has no layout row", c.model_type);
      if (const std::string kinds = engine_layer_kinds(a.architecture); !kinds.empty())
        c.reason += fmt::format(" (vLLM builds it with {} layers)", kinds);
      out.push_back(std::move(c));
      continue;
    }
    c.family = std::string(family_name(row->family));
    const std::string reads_as = row->reads_as.empty() ? c.model_type : row->reads_as;
    if (registry.engine == "sglang" && recurrent_attention_free(reads_as)) {
      // sglang_planner.cc refuses them: SGLang's pools without attention are not read yet.
      c.reason =
          "attention-free: SGLang's pools for a model without attention are not modelled "
          "(vLLM's layout is)";
      out.push_back(std::move(c));
      continue;
    }
    c.status = CoverageStatus::kModelled;
    if (std::find(row->checked.begin(), row->checked.end(), registry.engine) ==
        row->checked.end()) {
      c.status = CoverageStatus::kGaps;
      c.reason = fmt::format("the {} layout is checked against {}'s model code only, not {}'s",
                             c.family, fmt::join(row->checked, " and "), registry.engine);
    }
    for (const LayoutGap& g : layout_gaps()) {
      if (g.architecture == a.architecture && (g.engine == "*" || g.engine == registry.engine)) {
        c.status = CoverageStatus::kGaps;
        c.reason += (c.reason.empty() ? "" : "; ") + g.cause;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace servescope
