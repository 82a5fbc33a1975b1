#include "catalog/gpu_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/csv.h"
#include "core/text.h"

namespace servescope {
namespace {

constexpr std::array<std::string_view, 15> kColumns = {"key",
                                                       "smi_name",
                                                       "memory_mib",
                                                       "compute_capability",
                                                       "arch",
                                                       "mem_bw_tbps",
                                                       "bf16_dense_tflops",
                                                       "fp8_dense_tflops",
                                                       "fp4_dense_tflops",
                                                       "interconnect",
                                                       "interconnect_gbps",
                                                       "tdp_w",
                                                       "integrated",
                                                       "mig",
                                                       "source_note"};

double number_or_zero(const std::string& cell) {
  if (trim(cell).empty())
    return 0.0;
  auto v = parse_double(cell);
  if (!v)
    throw std::invalid_argument(cell);
  return *v;
}

bool starts_with_gfx(std::string_view s) {
  return trim(s).rfind("gfx", 0) == 0;
}

// The name without a trailing "..." (or "…"); `cut_width` is the width the name had before
// the cut, ellipsis included: nvidia-smi cuts only names longer than that.
std::string strip_ellipsis(std::string_view name, bool* truncated, std::size_t* cut_width) {
  name = trim(name);
  for (std::string_view e : {std::string_view("..."), std::string_view("…")}) {
    if (name.size() > e.size() && name.substr(name.size() - e.size()) == e) {
      *truncated = true;
      *cut_width = name.size() - e.size() + (e == "..." ? 3 : 1);
      return std::string(trim(name.substr(0, name.size() - e.size())));
    }
  }
  *truncated = false;
  *cut_width = 0;
  return std::string(name);
}

// Lower case, vendor and brand words dropped, '_' and '-' as spaces: "NVIDIA_GeForce_RTX_4090_D"
// (a kernel config file name), "GeForce RTX 4090 D" and "RTX 4090 D" are one name.
std::vector<std::string> name_words(std::string_view name) {
  std::string s = to_lower(trim(name));
  if (s.rfind("device_name=", 0) == 0)
    s.erase(0, 12);
  for (char& c : s) {
    if (c == '_' || c == '-' || c == '(' || c == ')' || c == ',')
      c = ' ';
  }
  std::vector<std::string> words;
  for (std::string_view w : split(s, ' ')) {
    const std::string t(trim(w));
    if (t.empty() || t == "nvidia" || t == "geforce" || t == "tesla" || t == "amd" || t == "nvgpu")
      continue;
    words.push_back(t);
  }
  return words;
}

std::string joined(const std::vector<std::string>& words, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < words.size(); ++i)
    out += (out.empty() ? "" : " ") + words[i];
  return out;
}

// What a word that one name has and the other lacks says about the GPU.
std::string meaning_of(std::string_view word) {
  if (word == "d")
    return "the China-market 'D' variant (fewer SMs and less compute, same memory)";
  if (word == "laptop" || word == "mobile")
    return "a laptop GPU (less memory, lower power and clocks)";
  if (word == "super")
    return "a SUPER refresh (more SMs, other clocks, sometimes other memory)";
  if (word == "ti")
    return "a Ti model (another SM count, often other memory)";
  if (word == "max" || word == "q")
    return "a power-limited Max-Q model";
  if (word == "3e" || word == "hbm3e")
    return "an HBM3e variant (more memory and bandwidth)";
  if (word == "pcie" || word == "nvl" || word.rfind("sxm", 0) == 0)
    return "another form factor (other power, bandwidth and interconnect)";
  if (word.size() > 2 && word.substr(word.size() - 2) == "gb")
    return "another memory size";
  return "another model";
}

}  // namespace

std::vector<NearMatch> GpuCatalog::near_matches(std::string_view name) const {
  bool truncated = false;
  std::size_t cut_width = 0;
  const std::vector<std::string> want = name_words(strip_ellipsis(name, &truncated, &cut_width));
  struct Scored {
    std::size_t common;
    NearMatch m;
  };
  std::vector<Scored> found;
  if (want.empty())
    return {};
  for (const GpuSpec& g : gpus_) {
    const std::vector<std::string> have = name_words(g.smi_name);
    if (have == want || have.empty())
      continue;
    std::size_t common = 0;
    while (common < want.size() && common < have.size() && want[common] == have[common])
      ++common;
    // The model number must be shared: "RTX 4090" and "RTX 4080" are not near.
    if (common == 0 || common < std::min<std::size_t>(2, std::min(want.size(), have.size())))
      continue;
    std::string differs;
    if (common == have.size()) {  // the wanted name has more words
      const std::string extra = joined(want, common, want.size());
      differs = fmt::format("'{}' in the name: {}", extra, meaning_of(want[common]));
    } else if (common == want.size()) {  // the catalog name has more words
      const std::string extra = joined(have, common, have.size());
      differs = fmt::format("the catalog's name adds '{}': {}", extra, meaning_of(have[common]));
    } else if (want.size() == have.size() && common + 1 == want.size()) {
      differs = fmt::format("'{}' where the catalog has '{}': {}", want[common], have[common],
                            meaning_of(want[common]));
    } else {
      continue;
    }
    found.push_back({common, NearMatch{&g, std::move(differs)}});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Scored& a, const Scored& b) { return a.common > b.common; });
  std::vector<NearMatch> out;
  for (std::size_t i = 0; i < found.size() && i < 3; ++i)
    out.push_back(found[i].m);
  return out;
}

Result<GpuCatalog> GpuCatalog::parse(std::string_view csv_text) {
  auto rows = read_csv(csv_text);
  if (!rows)
    return fail("gpus.csv: " + rows.message());
  if (rows->empty())
    return fail("gpus.csv: empty file");
  const auto& header = rows->front();
  if (header.size() != kColumns.size()) {
    return fail(fmt::format("gpus.csv: expected {} columns, header has {}", kColumns.size(),
                            header.size()));
  }
  for (std::size_t i = 0; i < kColumns.size(); ++i) {
    if (header[i] != kColumns[i]) {
      return fail(
          fmt::format("gpus.csv: column {} is '{}', expected '{}'", i + 1, header[i], kColumns[i]));
    }
  }
  GpuCatalog catalog;
  for (std::size_t r = 1; r < rows->size(); ++r) {
    const auto& row = (*rows)[r];
    if (row.size() == 1 && trim(row[0]).empty())
      continue;
    if (row.size() != kColumns.size()) {
      return fail(fmt::format("gpus.csv line {}: {} fields, expected {}", r + 1, row.size(),
                              kColumns.size()));
    }
    GpuSpec g;
    try {
      g.key = row[0];
      g.smi_name = row[1];
      g.memory_mib = static_cast<std::int64_t>(number_or_zero(row[2]));
      g.compute_capability = row[3];
      g.is_amd = starts_with_gfx(row[3]);
      if (!g.is_amd) {
        auto parts = split(row[3], '.');
        auto major = parse_int(parts[0]);
        auto minor = parts.size() > 1 ? parse_int(parts[1]) : std::optional<long long>(0);
        if (!major || !minor)
          throw std::invalid_argument(row[3]);
        g.cc_major = static_cast<int>(*major);
        g.cc_minor = static_cast<int>(*minor);
      }
      g.arch = row[4];
      g.mem_bw_tbps = number_or_zero(row[5]);
      g.bf16_dense_tflops = number_or_zero(row[6]);
      g.fp8_dense_tflops = number_or_zero(row[7]);
      g.fp4_dense_tflops = number_or_zero(row[8]);
      g.interconnect = row[9];
      g.interconnect_gbps = number_or_zero(row[10]);
      g.tdp_w = number_or_zero(row[11]);
      const std::string integrated(trim(row[12]));
      if (integrated != "0" && integrated != "1" && !integrated.empty())
        return fail(
            fmt::format("gpus.csv line {}: integrated is '{}', expected 0 or 1", r + 1, row[12]));
      g.integrated = integrated == "1";
      g.mig_profiles = row[13];
      g.source_note = row[14];
    } catch (const std::invalid_argument& e) {
      return fail(fmt::format("gpus.csv line {}: '{}' is not a number", r + 1, e.what()));
    }
    if (g.memory_mib <= 0)
      return fail(fmt::format("gpus.csv line {}: memory_mib must be > 0", r + 1));
    catalog.gpus_.push_back(std::move(g));
  }
  return catalog;
}

GpuSpec cpu_host(std::int64_t node_memory_mib) {
  GpuSpec g;
  g.key = "cpu";
  g.smi_name = "CPU";
  g.compute_capability = "cpu";
  g.arch = "CPU";
  g.is_cpu = true;
  g.memory_mib = node_memory_mib;
  g.source_note =
      "The host CPU: an engine's CPU platform sizes the KV cache in the NUMA node's memory.";
  return g;
}

bool names_cpu_host(std::string_view name) {
  return to_lower(trim(name)) == "cpu";
}

Result<DeviceMatch> find_device(std::string_view name, std::optional<double> host_total_gib) {
  if (names_cpu_host(name)) {
    return DeviceMatch{
        cpu_host(host_total_gib ? std::llround(*host_total_gib * 1024) : std::int64_t{0}), {}};
  }
  auto gpu = GpuCatalog::builtin().find(name);
  if (!gpu)
    return gpu.error();
  return DeviceMatch{*gpu->spec, gpu->note};
}

const GpuCatalog& GpuCatalog::builtin() {
  static const GpuCatalog catalog = [] {
    const std::string_view* text = find_embedded_file("gpus.csv");
    if (text == nullptr)
      throw std::logic_error("data/gpus.csv was not embedded");
    auto parsed = GpuCatalog::parse(*text);
    if (!parsed)
      throw std::logic_error(parsed.message());
    return std::move(parsed).value();
  }();
  return catalog;
}

std::vector<std::string> GpuCatalog::keys() const {
  std::vector<std::string> out;
  for (const GpuSpec& g : gpus_)
    out.push_back(g.key);
  return out;
}

Result<GpuMatch> GpuCatalog::find(std::string_view name) const {
  bool truncated = false;
  std::size_t cut_width = 0;
  const std::string wanted = to_lower(strip_ellipsis(name, &truncated, &cut_width));
  if (wanted.empty())
    return fail("--gpu: empty GPU name; give a catalog key such as h100-sxm");
  auto without_vendor = [](std::string s) {
    for (std::string_view p : {std::string_view("nvidia "), std::string_view("tesla ")}) {
      if (s.rfind(p, 0) == 0)
        s.erase(0, p.size());
    }
    return s;
  };
  for (const GpuSpec& g : gpus_) {
    if (to_lower(g.key) == wanted)
      return GpuMatch{&g, {}};
  }
  if (!truncated) {
    for (const GpuSpec& g : gpus_) {
      const std::string smi = to_lower(g.smi_name);
      if (smi == wanted || without_vendor(smi) == without_vendor(wanted))
        return GpuMatch{&g, {}};
    }
    // The same name spelt another way: without "GeForce", with '_' for spaces, ...
    const std::vector<std::string> words = name_words(wanted);
    for (const GpuSpec& g : gpus_) {
      if (!words.empty() && name_words(g.smi_name) == words)
        return GpuMatch{&g, {}};
    }
  }
  if (truncated) {
    // nvidia-smi's table cuts only names longer than its column: a full name that would have
    // fitted (e.g. "NVIDIA GeForce RTX 4090" for "NVIDIA GeForce RTX 4090 ...") is not it.
    std::vector<const GpuSpec*> hits;
    std::vector<const GpuSpec*> too_short;
    for (const GpuSpec& g : gpus_) {
      const std::string smi = to_lower(g.smi_name);
      const bool prefix = smi.rfind(wanted, 0) == 0;
      const bool prefix_no_vendor = without_vendor(smi).rfind(without_vendor(wanted), 0) == 0;
      if (!prefix && !prefix_no_vendor)
        continue;
      const std::size_t shown = prefix ? smi.size() : without_vendor(smi).size();
      (shown > cut_width ? hits : too_short).push_back(&g);
    }
    if (!hits.empty()) {
      GpuMatch m{hits.front(), {}};
      if (hits.size() > 1) {
        std::string others;
        for (std::size_t i = 1; i < hits.size(); ++i)
          others += (i > 1 ? ", " : "") + hits[i]->key;
        m.note = fmt::format(
            "'{}' is cut short and also matches {}; using {} (same memory and "
            "compute capability; pass --gpu KEY to choose)",
            name, others, hits.front()->key);
      }
      return m;
    }
    if (!too_short.empty()) {
      std::vector<std::string> keys;
      for (const GpuSpec* g : too_short)
        keys.push_back(fmt::format("{} ('{}')", g->key, g->smi_name));
      return fail(fmt::format(
          "--gpu '{}': the name is cut short, so the GPU's full name is longer than {} "
          "characters: not {}, whose names would have fitted; the catalog has no such GPU (a "
          "laptop or other variant?); give the full name (nvidia-smi --query-gpu=name "
          "--format=csv) or --gpu KEY",
          name, cut_width, fmt::join(keys, " nor ")));
    }
  }
  const std::vector<NearMatch> near = near_matches(name);
  if (!near.empty()) {
    std::vector<std::string> parts;
    for (const NearMatch& n : near)
      parts.push_back(fmt::format("{} ('{}'; {})", n.spec->key, n.spec->smi_name, n.differs));
    return fail(fmt::format(
        "--gpu '{}': not in the GPU catalog and not replaced by a near-match, a different GPU: "
        "{}; pass --gpu KEY if it is one of these after all (all keys: servescope gpus)",
        name, fmt::join(parts, "; ")));
  }
  auto near_keys = closest(name, keys(), 4);
  return fail(
      fmt::format("--gpu '{}': unknown GPU; closest catalog keys: {} (all keys: "
                  "servescope gpus)",
                  name, fmt::join(near_keys, ", ")));
}

std::vector<GpuSpec> gpus_holding(double gib, bool figure_is_free_memory) {
  // The CUDA context and the driver's reserve take a few hundred MiB before any free-memory
  // figure is printed; a device total (torch's) is at most the NVML total.
  const double need = figure_is_free_memory ? gib + 0.25 : gib - 0.05;
  std::vector<GpuSpec> holding;
  for (const GpuSpec& g : GpuCatalog::builtin().gpus()) {
    // A unified-memory device's total is the host's: a log's memory figure does not point at it.
    if (g.integrated)
      continue;
    if (static_cast<double>(g.memory_mib) / 1024.0 >= need)
      holding.push_back(g);
  }
  if (holding.empty())
    return holding;
  std::stable_sort(holding.begin(), holding.end(),
                   [](const GpuSpec& a, const GpuSpec& b) { return a.memory_mib < b.memory_mib; });
  const double smallest = static_cast<double>(holding.front().memory_mib);
  std::erase_if(holding, [&](const GpuSpec& g) {
    return static_cast<double>(g.memory_mib) > smallest * 1.03;
  });
  return holding;
}

}  // namespace servescope
