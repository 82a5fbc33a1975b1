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

}  // namespace servescope
