// `explain`: the derivation of one output as an indented tree down to its leaves.
#pragma once

#include <string>

#include "core/derivation.h"

namespace servescope {

struct ExplainOptions {
  bool show_unset_defaults = false;  // leaves that are flags left unset (None/False)
  int max_depth = 0;                 // 0: down to the leaves
};

/// Each node once: a node reached again is shown as "(see above)". Unset flags at their
/// defaults are summarised in one line per parent unless `show_unset_defaults`.
std::string render_explain_tree(const Derivation& graph, const std::string& output_id,
                                const ExplainOptions& options = {});

}  // namespace servescope
