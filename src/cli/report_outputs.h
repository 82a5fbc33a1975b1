// --html FILE and --markdown FILE on the commands with a --json document: the command produces
// its JSON, and `servescope report`'s renderers turn it into the files.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace servescope {

struct ReportOutputs {
  std::string html;      // FILE for the HTML report ("" none, "-" stdout)
  std::string markdown;  // FILE for the Markdown report
  bool any() const { return !html.empty() || !markdown.empty(); }
};

void add_report_outputs(CLI::App& app, ReportOutputs& outputs);

/// Renders `doc` to each requested file; an error names the file.
Status write_reports(const ReportOutputs& outputs, const nlohmann::json& doc);

}  // namespace servescope
