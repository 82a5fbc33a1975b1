#include "catalog/gpu_evidence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>

#include "core/text.h"

namespace servescope {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The cells between '|' of a table line ("|   0  NVIDIA ... Off |  ... |"); empty when the
// line is not one. Leading text before the first '|' (a quote mark, a line number) is ignored.
std::vector<std::string_view> cells(std::string_view line) {
  const std::size_t first = line.find('|');
  if (first == std::string_view::npos)
    return {};
  std::vector<std::string_view> out;
  std::size_t start = first + 1;
  while (start <= line.size()) {
    const std::size_t bar = line.find('|', start);
    if (bar == std::string_view::npos)
      break;
    out.push_back(line.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

// Whitespace-separated words.
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])))
      ++j;
    if (j > i)
      out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::int64_t> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 9)
    return std::nullopt;
  std::int64_t v = 0;
  for (char c : digits) {
    if (!is_digit(c))
      return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// The numbers written directly before `unit` ("1341MiB / 16303MiB" -> 1341, 16303).
std::vector<std::int64_t> numbers_before(std::string_view s, std::string_view unit) {
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  while ((pos = s.find(unit, pos)) != std::string_view::npos) {
    std::size_t b = pos;
    while (b > 0 && is_digit(s[b - 1]))
      --b;
    if (auto v = small_number(s.substr(b, pos - b)))
      out.push_back(*v);
    pos += unit.size();
  }
  return out;
}

// "|   0  NVIDIA GeForce RTX 5080        Off |": the index and the name.
std::optional<std::pair<int, std::string>> gpu_cell(std::string_view cell) {
  const std::vector<std::string_view> w = words(cell);
  if (w.size() < 3 || (w.back() != "On" && w.back() != "Off"))
    return std::nullopt;
  auto index = small_number(w.front());
  if (!index || w.front().size() > 3)
    return std::nullopt;
  const std::size_t from = cell.find(w[1]);
  const std::size_t to = cell.rfind(w.back());
  if (from == std::string_view::npos || to == std::string_view::npos || to <= from)
    return std::nullopt;
  return std::make_pair(static_cast<int>(*index), std::string(trim(cell.substr(from, to - from))));
}

bool looks_like_gpu_name(std::string_view name, const GpuCatalog& catalog) {
  const std::string lower = to_lower(trim(name));
  for (std::string_view p : {"nvidia", "tesla", "quadro", "geforce", "amd", "radeon", "orin"}) {
    if (lower.rfind(p, 0) == 0)
      return true;
  }
  return !lower.empty() && lower.size() < 80 && static_cast<bool>(catalog.find(name));
}

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out;
  for (std::string_view f : split(line, ','))
    out.emplace_back(trim(f));
  return out;
}

void read_table(const std::vector<std::string_view>& lines, std::vector<EvidenceGpu>* out) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string_view> row = cells(lines[i]);
    if (row.size() < 3)
      continue;
    auto gpu = gpu_cell(row[0]);
    if (!gpu)
      continue;
    EvidenceGpu e;
    e.index = gpu->first;
    e.name = gpu->second;
    e.form = "nvidia-smi table";
    if (i + 1 < lines.size()) {
      const std::vector<std::string_view> next = cells(lines[i + 1]);
      if (next.size() >= 2) {
        const std::vector<std::int64_t> watts = numbers_before(next[0], "W");
        if (watts.size() == 2)
          e.power_cap_w = static_cast<double>(watts[1]);
        const std::vector<std::int64_t> mib = numbers_before(next[1], "MiB");
        if (mib.size() == 2)
          e.total_mib = mib[1];
        else if (next[1].find("Not Supported") != std::string_view::npos)
          e.memory_not_supported = true;
      }
    }
    out->push_back(std::move(e));
  }
}

void read_csv_and_list(const std::vector<std::string_view>& lines, const GpuCatalog& catalog,
                       std::vector<EvidenceGpu>* out) {
  constexpr std::size_t kNone = std::string::npos;
  bool header = false;
  std::size_t mem_col = kNone;
  std::size_t power_col = kNone;
  for (std::string_view raw : lines) {
    const std::string_view line = trim(raw);
    if (line.find('|') != std::string_view::npos)
      continue;
    // nvidia-smi -L: "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"
    if (line.rfind("GPU ", 0) == 0 && line.find(": ") != std::string_view::npos) {
      const std::size_t colon = line.find(": ");
      auto index = small_number(trim(line.substr(4, colon - 4)));
      std::string_view name = line.substr(colon + 2);
      const std::size_t uuid = name.find(" (UUID");
      if (index && uuid != std::string_view::npos) {
        EvidenceGpu e;
        e.index = static_cast<int>(*index);
        e.name = std::string(trim(name.substr(0, uuid)));
        e.form = "nvidia-smi -L";
        out->push_back(std::move(e));
      }
      continue;
    }
    if (line.find(',') == std::string_view::npos)
      continue;
    const std::vector<std::string> f = split_csv_line(line);
    if (!f.empty() && to_lower(f[0]) == "name") {  // the header of --format=csv
      header = true;
      mem_col = kNone;
      power_col = kNone;
      for (std::size_t c = 0; c < f.size(); ++c) {
        const std::string h = to_lower(f[c]);
        if (h.rfind("memory.total", 0) == 0)
          mem_col = c;
        if (h.rfind("power.limit", 0) == 0 || h.rfind("enforced.power.limit", 0) == 0)
          power_col = c;
      }
      continue;
    }
    if (f.empty() || !looks_like_gpu_name(f[0], catalog))
      continue;
    EvidenceGpu e;
    e.name = f[0];
    e.form = "--query-gpu csv";
    // Without a header the memory is the first field after the name with "MiB".
    std::size_t mc = mem_col;
    for (std::size_t c = 1; !header && mc == kNone && c < f.size(); ++c) {
      if (f[c].size() > 4 && f[c].substr(f[c].size() - 4) == " MiB")
        mc = c;  // the first field with the unit: memory.total comes before memory.used
    }
    if (mc < f.size()) {
      const std::string& cell = f[mc];
      if (cell.find("N/A") != std::string::npos || cell.find("Not Supported") != std::string::npos)
        e.memory_not_supported = true;
      else if (auto v = small_number(trim(std::string_view(cell).substr(0, cell.find(' ')))))
        e.total_mib = *v;
    }
    if (power_col < f.size()) {
      const std::string& cell = f[power_col];
      if (auto v = small_number(trim(std::string_view(cell).substr(0, cell.find('.')))))
        e.power_cap_w = static_cast<double>(*v);
    }
    out->push_back(std::move(e));
  }
}

void match(EvidenceGpu* e, const GpuCatalog& catalog) {
  auto m = catalog.find(e->name);
  if (m) {
    e->match = m->spec;
    e->note = m->note;
    // The paste's memory against the catalog's: a variant or an ECC setting shows here.
    if (e->total_mib && *e->total_mib != m->spec->memory_mib) {
      const double ratio =
          static_cast<double>(*e->total_mib) / static_cast<double>(m->spec->memory_mib);
      e->note += fmt::format("{}the paste says {} MiB, the catalog {} MiB ({})",
                             e->note.empty() ? "" : "; ", *e->total_mib, m->spec->memory_mib,
                             ratio > 0.9 && ratio < 1.1
                                 ? "an ECC setting or driver difference; the paste's figure "
                                   "is the one to plan with"
                                 : "a different variant of the GPU?");
    }
  } else {
    e->note = m.message();
    const std::string prefix = "--gpu ";
    if (e->note.rfind(prefix, 0) == 0)
      e->note.erase(0, prefix.size());
  }
  if (!e->total_mib)
    e->lacks.push_back(e->memory_not_supported ? "total memory (not reported: unified memory)"
                                               : "total memory");
  if (!e->power_cap_w)
    e->lacks.push_back("power cap");
  e->lacks.insert(e->lacks.end(),
                  {"compute capability", "memory bandwidth", "TFLOPS", "interconnect"});
}

}  // namespace

std::vector<EvidenceGpu> read_gpu_evidence(std::string_view text, const GpuCatalog& catalog) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  std::vector<EvidenceGpu> out;
  read_table(lines, &out);
  read_csv_and_list(lines, catalog, &out);
  for (EvidenceGpu& e : out)
    match(&e, catalog);
  return out;
}

std::string describe_evidence(const EvidenceGpu& gpu) {
  std::string line = gpu.index ? fmt::format("GPU {}: {}", *gpu.index, gpu.name) : gpu.name;
  if (gpu.total_mib)
    line += fmt::format(", {} MiB", *gpu.total_mib);
  else if (gpu.memory_not_supported)
    line += ", memory not reported";
  if (gpu.power_cap_w)
    line += fmt::format(", {:.0f} W", *gpu.power_cap_w);
  line += fmt::format(" ({})", gpu.form);
  if (gpu.match) {
    line += fmt::format(" -> {}", gpu.match->key);
    if (!gpu.note.empty())
      line += fmt::format(" [{}]", gpu.note);
    line += fmt::format("; the paste lacks {} (the catalog has them)", fmt::join(gpu.lacks, ", "));
  } else {
    line += fmt::format(" -> no catalog entry: {}; the paste lacks {}", gpu.note,
                        fmt::join(gpu.lacks, ", "));
  }
  return line;
}

}  // namespace servescope
