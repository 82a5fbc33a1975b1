#include "engines/log_grammar.h"

namespace servescope {

bool RankTags::is_primary() const {
  return tp <= 0 && dp <= 0 && pp <= 0 && ep <= 0;
}

const Value* Fact::find(std::string_view name) const {
  for (const Field& f : fields) {
    if (f.name == name)
      return &f.value;
  }
  return nullptr;
}

std::optional<std::int64_t> Fact::integer(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || !v->is_int())
    return std::nullopt;
  return v->as_int();
}

std::optional<double> Fact::number(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || !v->is_number())
    return std::nullopt;
  return v->as_number();
}

std::optional<std::string> Fact::text(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || !v->is_string())
    return std::nullopt;
  return v->as_string();
}

const IntList* Fact::int_list(std::string_view name) const {
  const Value* v = find(name);
  if (v == nullptr || !v->is_list())
    return nullptr;
  return &v->as_list();
}

void Fact::set(std::string_view name, Value value) {
  for (Field& f : fields) {
    if (f.name == name) {
      f.value = std::move(value);
      return;
    }
  }
  fields.push_back(Field{std::string(name), std::move(value)});
}

std::string VersionInference::range_text() const {
  if (from_date.empty() && until_date.empty())
    return "unknown";
  if (until_date.empty())
    return "≥ " + from_date;
  if (from_date.empty())
    return "≤ " + until_date;
  if (from_date == until_date)
    return from_date;
  return from_date + " … " + until_date;
}

namespace {

// Whether the evidence admits date `x` ("" stands for the beginning of time).
bool admits(const VersionEvidence& e, const std::string& x) {
  const bool after_from = e.from_date.empty() || (!x.empty() && e.from_date <= x);
  const bool before_until = e.until_date.empty() || x.empty() || x <= e.until_date;
  return after_from && before_until;
}

}  // namespace

void VersionInference::resolve_range() {
  // Candidates: every lower bound and the beginning of time.
  std::vector<std::string> candidates = {""};
  for (const VersionEvidence& e : evidence) {
    if (!e.from_date.empty())
      candidates.push_back(e.from_date);
  }
  int best = -1;
  std::string best_x;
  for (const std::string& x : candidates) {
    int score = 0;
    for (const VersionEvidence& e : evidence) {
      if (admits(e, x))
        score += e.weight;
    }
    // Ties go to the later date: newer logs are the common case for a tool in use.
    if (score > best || (score == best && x > best_x)) {
      best = score;
      best_x = x;
    }
  }
  for (VersionEvidence& e : evidence) {
    if (e.from_date.empty() && e.until_date.empty())
      continue;
    if (!admits(e, best_x)) {
      e.conflicting = true;
      consistent = false;
      continue;
    }
    if (!e.from_date.empty() && (from_date.empty() || e.from_date > from_date))
      from_date = e.from_date;
    if (!e.until_date.empty() && (until_date.empty() || e.until_date < until_date))
      until_date = e.until_date;
  }
}

const Fact* first_on_primary_rank(const std::vector<Fact>& facts, std::string_view kind) {
  const Fact* any = nullptr;
  for (const Fact& f : facts) {
    if (f.kind != kind)
      continue;
    if (f.rank.is_primary())
      return &f;
    if (any == nullptr)
      any = &f;
  }
  return any;
}

}  // namespace servescope
