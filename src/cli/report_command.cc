// servescope report RESULT.json (-o FILE.html | -o FILE.md | --html FILE | --markdown FILE)
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "report/report_document.h"

namespace servescope {
namespace {

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

ExitStatus run_report(const CommandArgs& args) {
  CLI::App app(
      "Render the --json output of plan, check, diff, bench or bisect (its DIR/report.json) as a "
      "self-contained HTML page or as Markdown. Reads only that document.",
      "report");
  std::string input;
  std::string output;
  std::string format;
  ReportOutputs outputs;
  app.add_option("RESULT", input, "The JSON document (- for stdin)")->required();
  app.add_option(
      "-o,--output", output,
      "FILE.html or FILE.md (the format from the extension; - for stdout, with --format)");
  app.add_option("--format", format, "html or markdown (default: from -o's extension)")
      ->check(CLI::IsMember({"html", "markdown", "md"}));
  add_report_outputs(app, outputs);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (!output.empty()) {
    std::string as = format;
    if (as.empty()) {
      if (ends_with(output, ".html") || ends_with(output, ".htm"))
        as = "html";
      else if (ends_with(output, ".md") || ends_with(output, ".markdown"))
        as = "markdown";
      else
        return usage_error(fmt::format(
            "cannot tell the format of '{}': name it .html or .md, or add --format html|markdown",
            output));
    }
    (as == "html" ? outputs.html : outputs.markdown) = output;
  }
  if (!outputs.any())
    return usage_error("say where the report goes: -o FILE.html, -o FILE.md, --html or --markdown");

  std::stringstream text;
  if (input == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(input, std::ios::binary);
    if (!in)
      return usage_error(
          fmt::format("cannot read {}: give the file a --json command wrote", input));
    text << in.rdbuf();
  }
  nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded())
    return usage_error(fmt::format("{} is not JSON: give the output of a --json command", input));
  if (auto kind = detect_report_kind(doc); !kind)
    return usage_error(fmt::format("{}: {}", input, kind.message()));
  if (Status st = write_reports(outputs, doc); !st)
    return usage_error(st.message());
  return ExitStatus::kOk;
}

}  // namespace servescope
