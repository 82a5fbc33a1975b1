// `bench --compare A.json B.json` as a page: its --json document (load/run_compare.h) rendered
// as Markdown and, through html_sections.h, as HTML — each difference with its 95% interval
// drawn against zero.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace servescope {

/// The comparison document as Markdown (`bench --compare --markdown`, `servescope report`).
std::string compare_markdown(const nlohmann::json& doc);

}  // namespace servescope
