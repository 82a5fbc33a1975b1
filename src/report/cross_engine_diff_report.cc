#include "report/cross_engine_diff_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/format.h"

namespace servescope {
namespace {

std::string term_text(const AccountTerm& t) {
  std::string v;
  if (t.kind == AccountTermKind::kFraction) {
    v = fmt::format("{:.4g}", t.value);
  } else if (t.kind == AccountTermKind::kBytesPerToken) {
    v = fmt::format("{} B", with_thousands(std::llround(t.value)));
  } else if (t.value == 0 && !t.note.empty()) {
    v = "0 *";
  } else {
    v = fmt::format("{:.2f} GiB", t.value);
  }
  return t.estimated ? v + " ~" : v;
}

std::string signed_tokens(double x) {
  const long long n = std::llround(x);
  if (n == 0)
    return "0";
  return (n > 0 ? "+" : "−") + with_thousands(n > 0 ? n : -n);
}

std::string ratio_text(double a, double b) {
  if (a <= 0)
    return "";
  return fmt::format(" ({:.2f}×)", b / a);
}

nlohmann::json term_json(const AccountTerm& t) {
  nlohmann::json j = {{"value", t.value}, {"label", t.label}, {"estimated", t.estimated}};
  if (!t.node.empty())
    j["node"] = t.node;
  if (!t.note.empty())
    j["note"] = t.note;
  return j;
}

}  // namespace

std::string render_cross_engine_diff_text(const CrossEngineDiff& d) {
  const std::string& ea = d.engine_a;
  const std::string& eb = d.engine_b;
  std::string out = fmt::format("A: {} {}\nB: {} {}\n\n", ea, d.a.version, eb, d.b.version);
  const double delta = d.tokens_b - d.tokens_a;
  out += fmt::format("KV capacity per GPU: {} tokens ({}) vs {} ({}): B has {} tokens{}\n",
                     with_thousands(std::llround(d.tokens_a)), d.a.account.tokens_output,
                     with_thousands(std::llround(d.tokens_b)), d.b.account.tokens_output,
                     signed_tokens(delta), ratio_text(d.tokens_a, d.tokens_b));
  // The answer in one line: the terms that move the most, largest first.
  std::vector<const CrossTermStep*> big;
  for (const CrossTermStep& s : d.steps) {
    if (std::abs(s.tokens_delta) >= 0.5 && std::abs(s.tokens_delta) >= 0.1 * std::abs(delta))
      big.push_back(&s);
  }
  std::sort(big.begin(), big.end(), [](const CrossTermStep* x, const CrossTermStep* y) {
    return std::abs(x->tokens_delta) > std::abs(y->tokens_delta);
  });
  if (!big.empty()) {
    std::string parts;
    for (const CrossTermStep* s : big)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", account_term_name(s->kind),
                           signed_tokens(s->tokens_delta));
    out += "  mostly: " + parts + "\n";
  }
  out += "\n";

  std::vector<std::vector<std::string>> rows;
  rows.push_back({"term", ea, eb, "moves B's tokens by"});
  for (const CrossTermStep& s : d.steps) {
    rows.push_back({std::string(account_term_name(s.kind)), term_text(s.a), term_text(s.b),
                    signed_tokens(s.tokens_delta)});
  }
  rows.push_back({"= KV budget", fmt::format("{:.2f} GiB", d.budget_gib_a),
                  fmt::format("{:.2f} GiB", d.budget_gib_b), ""});
  rows.push_back({"page rounding, caps, headroom", signed_tokens(d.residual_a),
                  signed_tokens(d.residual_b), signed_tokens(d.residual_b - d.residual_a)});
  rows.push_back({"= KV tokens", with_thousands(std::llround(d.tokens_a)),
                  with_thousands(std::llround(d.tokens_b)), signed_tokens(delta)});
  out += render_columns(rows);
  out +=
      "  Terms are swapped from A's value to B's in this order; each row is what its swap "
      "moves.\n";

  if (d.request_limit_a > 0 || d.request_limit_b > 0) {
    out += fmt::format(
        "\nRunning-request limit: {} {} ({}) vs {} {} ({})\n", d.a.account.request_limit_output,
        with_thousands(std::llround(d.request_limit_a)), ea, d.b.account.request_limit_output,
        with_thousands(std::llround(d.request_limit_b)), eb);
  }

  // Terms of one engine that share a note are named together.
  std::vector<std::string> notes;
  for (const auto& [engine, plan] : {std::pair{&ea, &d.a}, std::pair{&eb, &d.b}}) {
    std::vector<std::pair<std::string, std::string>> grouped;  // note, terms
    for (const AccountTerm& t : plan->account.terms) {
      if (t.note.empty())
        continue;
      auto it = std::find_if(grouped.begin(), grouped.end(),
                             [&](const auto& g) { return g.first == t.note; });
      if (it == grouped.end())
        grouped.emplace_back(t.note, std::string(account_term_name(t.kind)));
      else
        it->second += ", " + std::string(account_term_name(t.kind));
    }
    for (const auto& [note, terms] : grouped)
      notes.push_back(fmt::format("{} {}: {}", *engine, terms, note));
  }
  notes.insert(notes.end(), d.notes.begin(), d.notes.end());
  if (!notes.empty()) {
    out += "\n* and notes\n";
    for (const std::string& n : notes)
      out += "  " + n + "\n";
  }
  out += "\n~ an estimate. `servescope explain` shows either side's derivation in full.\n";
  return out;
}

nlohmann::json cross_engine_diff_to_json(const CrossEngineDiff& d) {
  auto side = [](const std::string& engine, const Plan& p, double tokens, double modelled,
                 double budget, double residual, double limit) {
    nlohmann::json j = {{"engine", engine},
                        {"version", p.version},
                        {"tokens_output", p.account.tokens_output},
                        {"kv_tokens", tokens},
                        {"modelled_tokens", modelled},
                        {"kv_budget_gib", budget},
                        {"residual_tokens", residual}};
    if (!p.account.request_limit_output.empty()) {
      j["request_limit_output"] = p.account.request_limit_output;
      j["request_limit"] = limit;
    }
    return j;
  };
  nlohmann::json terms = nlohmann::json::array();
  for (const CrossTermStep& s : d.steps) {
    terms.push_back(
        {{"term", account_term_name(s.kind)},
         {"unit", s.kind == AccountTermKind::kFraction
                      ? ""
                      : (s.kind == AccountTermKind::kBytesPerToken ? "bytes/token" : "GiB")},
         {"a", term_json(s.a)},
         {"b", term_json(s.b)},
         {"tokens_delta", s.tokens_delta}});
  }
  return {{"kind", "cross-engine"},
          {"a", side(d.engine_a, d.a, d.tokens_a, d.modelled_a, d.budget_gib_a, d.residual_a,
                     d.request_limit_a)},
          {"b", side(d.engine_b, d.b, d.tokens_b, d.modelled_b, d.budget_gib_b, d.residual_b,
                     d.request_limit_b)},
          {"tokens_delta", d.tokens_b - d.tokens_a},
          {"terms", terms},
          {"notes", d.notes}};
}

}  // namespace servescope
