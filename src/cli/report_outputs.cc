#include "cli/report_outputs.h"

#include <fstream>
#include <iostream>

#include "report/html_report.h"
#include "report/markdown_report.h"

namespace servescope {
namespace {

Status write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return ok_status();
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out)
    return fail("cannot write " + path + ": check that its folder exists and is writable");
  return ok_status();
}

}  // namespace

void add_report_outputs(CLI::App& app, ReportOutputs& outputs) {
  app.add_option("--html", outputs.html,
                 "Also write the result as a self-contained HTML report to FILE (- for stdout)");
  app.add_option("--markdown", outputs.markdown,
                 "Also write the result as a Markdown report to FILE (- for stdout)");
}

Status write_reports(const ReportOutputs& outputs, const nlohmann::json& doc) {
  if (!outputs.html.empty()) {
    auto page = render_html_report(doc);
    if (!page)
      return page.error();
    if (Status st = write_text(outputs.html, *page); !st)
      return st;
  }
  if (!outputs.markdown.empty()) {
    auto text = render_markdown_report(doc);
    if (!text)
      return text.error();
    if (Status st = write_text(outputs.markdown, *text); !st)
      return st;
  }
  return ok_status();
}

}  // namespace servescope
