#include "report/explain_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <unordered_set>

#include "report/format.h"

namespace servescope {

namespace {

bool is_unset_default(const Node& n) {
  return n.inputs.empty() && n.origin == Origin::kEngineDefault &&
         (n.value.is_none() || (n.value.is_bool() && !n.value.as_bool()));
}

}  // namespace

std::string render_explain_tree(const Derivation& graph, const std::string& output_id,
                                const ExplainOptions& options) {
  std::string out;
  std::unordered_set<std::string> shown;
  std::function<void(const std::string&, const std::string&, bool, int)> visit =
      [&](const std::string& id, const std::string& prefix, bool last, int depth) {
        const Node* n = graph.find(id);
        const bool root = depth == 0;
        const std::string branch = root ? "" : (last ? "└─ " : "├─ ");
        const std::string child_prefix = root ? "" : prefix + (last ? "   " : "│  ");
        std::string value = format_value(n->value, n->unit);
        if (!shown.insert(id).second) {
          out += fmt::format("{}{}{} = {}  (see above)\n", prefix, branch, id, value);
          return;
        }
        const bool leaf = n->inputs.empty();
        std::string tag = leaf ? fmt::format("[{}: {}]", origin_name(n->origin), n->source)
                               : fmt::format("[{} · {}]", n->rule, n->source);
        out += fmt::format("{}{}{} = {}  {}\n", prefix, branch, id, value, tag);
        const std::string detail_prefix = child_prefix + (leaf ? "   " : "│  ");
        if (!n->why.empty())
          out += fmt::format("{}{}\n", detail_prefix, n->why);
        if (options.max_depth > 0 && depth >= options.max_depth) {
          if (!leaf)
            out += fmt::format("{}└─ … {} input(s) below --depth {}\n", child_prefix,
                               n->inputs.size(), options.max_depth);
          return;
        }
        std::vector<std::string> inputs;
        std::vector<std::string> hidden;
        for (const std::string& in : n->inputs) {
          const Node* child = graph.find(in);
          if (child == nullptr)
            continue;
          if (!options.show_unset_defaults && is_unset_default(*child)) {
            hidden.push_back(in.rfind("arg.", 0) == 0 ? in.substr(4) : in);
          } else {
            inputs.push_back(in);
          }
        }
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          visit(inputs[i], child_prefix, i + 1 == inputs.size() && hidden.empty(), depth + 1);
        }
        if (!hidden.empty()) {
          out += fmt::format("{}└─ unset, at the engine's default: {}\n", child_prefix,
                             fmt::join(hidden, ", "));
        }
      };
  if (graph.find(output_id) == nullptr)
    return fmt::format("{}: not computed in this plan\n", output_id);
  visit(output_id, "", true, 0);
  return out;
}

}  // namespace servescope
