// `explain`: the derivation of one output as an indented tree down to its leaves.
#pragma once

#include <string>

#include "core/derivation.h"

namespace servescope {

/// Each node once: a node reached again is shown as "(see above)".
std::string render_explain_tree(const Derivation& graph, const std::string& output_id);

}  // namespace servescope
