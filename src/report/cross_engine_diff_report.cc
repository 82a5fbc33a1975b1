#include "report/cross_engine_diff_report.h"

#include <fmt/format.h>

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
  if (n == 0) return "0";
  return (n > 0 ? "+" : "−") + with_thousands(n > 0 ? n : -n);
}

std::string ratio_text(double a, double b) {
  if (a <= 0) return "";
  return fmt::format(" ({:.2f}×)", b / a);
}

nlohmann::json term_json(const AccountTerm& t) {
  nlohmann::json j = {{"value", t.value}, {"label", t.label}, {"estimated", t.estimated}};
  if (!t.node.empty()) j["node"] = t.node;
  if (!t.note.empty()) j["note"] = t.note;
  return j;
}

}  // namespace

std::string render_cross_engine_diff_text(const CrossEngineDiff& d) {
  const std::string& ea = d.engine_a;
  const std::string& eb = d.engine_b;
  std::string out = fmt::format("A: {} {}\nB: {} {}\n\n", ea, d.a.version, eb, d.b.version);
  const double delta = d.tokens_b - d.tokens_a;
  out += fmt::format("KV capacity per GPU: {} tokens ({}) vs {} ({}): B has {} tokens{}\n\n",
                     with_thousands(std::llround(d.tokens_a)), d.a.account.tokens_output,
                     with_thousands(std::llround(d.tokens_b)), d.b.account.tokens_output,
                     signed_tokens(delta), ratio_text(d.tokens_a, d.tokens_b));

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
  out += "  Terms are swapped from A's value to B's in this order; each row is what its swap "
         "moves.\n";

  if (d.request_limit_a > 0 || d.request_limit_b > 0) {
    out += fmt::format("\nRunning-request limit: {} {} ({}) vs {} {} ({})\n",
                       d.a.account.request_limit_output,
                       with_thousands(std::llround(d.request_limit_a)), ea,
                       d.b.account.request_limit_output,
                       with_thousands(std::llround(d.request_limit_b)), eb);
  }

  std::vector<std::string> notes;
  for (const auto& [engine, plan] : {std::pair{&ea, &d.a}, std::pair{&eb, &d.b}}) {
    for (const AccountTerm& t : plan->account.terms) {
      if (!t.note.empty())
        notes.push_back(fmt::format("{} {}: {}", *engine, account_term_name(t.kind), t.note));
    }
  }
  notes.insert(notes.end(), d.notes.begin(), d.notes.end());
  if (!notes.empty()) {
    out += "\n* and notes\n";
    for (const std::string& n : notes) out += "  " + n + "\n";
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
    terms.push_back({{"term", account_term_name(s.kind)},
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
