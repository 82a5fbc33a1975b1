#include "report/explain_text.h"

#include <fmt/format.h>

#include <functional>
#include <unordered_set>

#include "report/format.h"

namespace servescope {

std::string render_explain_tree(const Derivation& graph, const std::string& output_id) {
  std::string out;
  std::unordered_set<std::string> shown;
  std::function<void(const std::string&, const std::string&, bool, bool)> visit =
      [&](const std::string& id, const std::string& prefix, bool last, bool root) {
        const Node* n = graph.find(id);
        const std::string branch = root ? "" : (last ? "└─ " : "├─ ");
        const std::string child_prefix = root ? "" : prefix + (last ? "   " : "│  ");
        if (n == nullptr) {
          out += fmt::format("{}{}{}  (not computed in this plan)\n", prefix, branch, id);
          return;
        }
        std::string value = format_value(n->value, n->unit);
        std::string tag = n->inputs.empty() ? fmt::format("[{}]", origin_name(n->origin)) : fmt::format("[{}]", n->rule);
        if (!shown.insert(id).second) {
          out += fmt::format("{}{}{} = {}  (see above)\n", prefix, branch, id, value);
          return;
        }
        out += fmt::format("{}{}{} = {}  {}\n", prefix, branch, id, value, tag);
        const std::string detail_prefix = child_prefix + (n->inputs.empty() ? "   " : "│  ");
        if (!n->why.empty()) out += fmt::format("{}{}\n", detail_prefix, n->why);
        if (!n->source.empty()) out += fmt::format("{}{}\n", detail_prefix, n->source);
        std::vector<std::string> inputs;
        for (const std::string& in : n->inputs) {
          if (graph.find(in) != nullptr) inputs.push_back(in);
        }
        for (std::size_t i = 0; i < inputs.size(); ++i) visit(inputs[i], child_prefix, i + 1 == inputs.size(), false);
      };
  visit(output_id, "", true, true);
  return out;
}

}  // namespace servescope
