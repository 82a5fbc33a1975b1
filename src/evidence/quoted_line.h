// A log line as people quote it — in a Markdown blockquote (`> `, nested), a bullet list, a
// table row (`| … |`), an inline code span, indented as a code block — reduced to the line the
// engine printed. Prefixes a collector adds (journald, `docker compose logs`, kubectl
// timestamps, Ray's `(RayWorkerWrapper pid=…)`) stay: the grammars find their lines after them.
#pragma once

#include <string_view>

namespace servescope {

/// The engine's line inside `line` (a view into it); `line` itself when it is not quoted.
std::string_view unquote_log_line(std::string_view line);

}  // namespace servescope
