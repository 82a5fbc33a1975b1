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

}  // namespace servescope
