// `servescope report`'s Markdown: the HTML report's content as GitHub-flavoured Markdown
// (tables, the derivation as nested lists, Mermaid for the bisect timeline and diff causes).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "report/report_document.h"

namespace servescope {

std::string render_markdown_report(const nlohmann::json& doc, ReportKind kind);
/// The report for `doc`, its kind detected from its fields.
Result<std::string> render_markdown_report(const nlohmann::json& doc);

}  // namespace servescope
