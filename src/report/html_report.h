// `servescope report`'s HTML: one self-contained page per --json document (styles, scripts and
// data inlined; nothing fetched when it is opened), light and dark, printable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "report/report_assets.h"
#include "report/report_document.h"

namespace servescope {

/// The page for `doc` of kind `kind`. With uPlot in `assets` its line charts are drawn by uPlot
/// (inlined); without it they stay SVG, and the page says why.
std::string render_html_report(const nlohmann::json& doc, ReportKind kind,
                               const ReportAssets& assets);
/// The page for `doc`, its kind detected and the assets built into this binary.
Result<std::string> render_html_report(const nlohmann::json& doc);

}  // namespace servescope
