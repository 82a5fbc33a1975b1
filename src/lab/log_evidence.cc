#include "lab/log_evidence.h"

#include <fstream>

#include "core/text.h"
#include "evidence/log_reader.h"

namespace servescope {

LogEvidence read_log_evidence(const std::string& run_dir, const std::vector<std::string>& files,
                              const Engine* engine) {
  LogEvidence out;
  for (const std::string& file : files) {
    LogReadOptions options;
    options.engine = engine;
    auto facts = read_log_file(run_dir + "/" + file, options);
    if (!facts || facts->engine().empty())
      continue;
    out.engine = std::string(facts->engine());
    const Engine* reader = engine;
    if (reader == nullptr) {
      auto found = find_engine(out.engine);
      if (!found)
        continue;
      reader = *found;
    }
    auto raw_of = [&](std::uint64_t line) {
      for (const Fact& f : facts->all()) {
        if (f.line == line)
          return f.raw;
      }
      return std::string();
    };
    if (auto scenario = reader->scenario_from_log(facts->all())) {
      for (const LoggedFigure& fig : scenario->figures) {
        if (!fig.value.is_number() || out.figures.count(fig.output) > 0)
          continue;
        out.figures[fig.output] = fig.value.as_number();
        out.figure_lines[fig.output] = {file, fig.line, fig.raw, fig.output};
      }
    }
    for (const LogSummary::Item& item : facts->summary().problems) {
      std::string text = raw_of(item.line);
      if (text.empty())
        text = item.name + ": " + item.value;
      out.problems.push_back({file, item.line, std::move(text), item.name});
    }
    break;
  }
  return out;
}

std::vector<EvidenceLine> tail_lines(const std::string& run_dir, const std::string& file,
                                     std::size_t count) {
  std::ifstream in(run_dir + "/" + file);
  std::vector<EvidenceLine> lines;
  std::string line;
  std::uint64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty())
      continue;
    if (line.size() > 400)
      line.resize(400);
    lines.push_back({file, number, line, "output"});
    if (lines.size() > count)
      lines.erase(lines.begin());
  }
  return lines;
}

}  // namespace servescope
