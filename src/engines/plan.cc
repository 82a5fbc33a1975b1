#include "engines/plan.h"

#include <algorithm>

namespace servescope {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

bool Plan::has_output(std::string_view id) const {
  return std::find(outputs.begin(), outputs.end(), id) != outputs.end() &&
         graph.find(id) != nullptr;
}

bool Plan::has_error() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::kError; });
}

std::vector<const Finding*> Plan::unified_memory_findings() const {
  std::vector<const Finding*> out;
  for (const Finding& f : findings) {
    if (f.code == "unified-memory" || f.code.rfind("integrated-", 0) == 0)
      out.push_back(&f);
  }
  return out;
}

}  // namespace servescope
