#include "engines/sglang/sglang_inputs.h"

#include <fmt/format.h>

#include "core/text.h"
#include "engines/sglang/sglang_flags.h"

namespace servescope::sglang {

const FlagSetting* SglangInputs::setting_for(std::string_view field) const {
  const FlagSetting* found = nullptr;
  for (const FlagSetting& f : command_.flags) {
    const FlagSpec* spec = find_capacity_flag(f.name);
    if (spec != nullptr && spec->field == field)
      found = &f;
  }
  return found;
}

void SglangInputs::record(std::string_view field, Value value, std::string unit,
                          const FlagSetting* from, std::string_view default_note) {
  Node node;
  node.id = "arg." + std::string(field);
  node.value = std::move(value);
  node.unit = std::move(unit);
  if (from != nullptr) {
    node.origin = Origin::kFlag;
    node.source = fmt::format("argv[{}] {}", from->argv_index, from->as_typed());
    if (const FlagSpec* spec = find_capacity_flag(from->name);
        spec && !spec->deprecated_for.empty()) {
      node.why = fmt::format("{} is deprecated; SGLang reads it as {}", from->spelled,
                             spec->deprecated_for);
    }
  } else {
    node.origin = Origin::kEngineDefault;
    node.source = fmt::format("ServerArgs.{} default{}", field,
                              default_note.empty() ? "" : fmt::format(" ({})", default_note));
  }
  graph_.add(std::move(node));
}

std::int64_t SglangInputs::integer(std::string_view field, std::int64_t default_value,
                                   std::string unit) {
  const FlagSetting* f = setting_for(field);
  std::int64_t v = default_value;
  if (f != nullptr)
    v = parse_int(f->value()).value_or(default_value);
  record(field, v, std::move(unit), f, "");
  return v;
}

std::optional<std::int64_t> SglangInputs::optional_integer(std::string_view field,
                                                           std::string unit) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), std::move(unit), nullptr, "None");
    return std::nullopt;
  }
  auto v = parse_int(f->value());
  record(field, v ? Value(static_cast<std::int64_t>(*v)) : Value(), std::move(unit), f, "");
  return v ? std::optional<std::int64_t>(*v) : std::nullopt;
}

double SglangInputs::real(std::string_view field, double default_value, std::string unit) {
  const FlagSetting* f = setting_for(field);
  double v = default_value;
  if (f != nullptr)
    v = parse_double(f->value()).value_or(default_value);
  record(field, v, std::move(unit), f, "");
  return v;
}

std::optional<double> SglangInputs::optional_real(std::string_view field, std::string unit) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), std::move(unit), nullptr, "None");
    return std::nullopt;
  }
  auto v = parse_double(f->value());
  record(field, v ? Value(*v) : Value(), std::move(unit), f, "");
  return v;
}

bool SglangInputs::boolean(std::string_view field) {
  const FlagSetting* f = setting_for(field);
  record(field, f != nullptr, "", f, "False");
  return f != nullptr;
}

std::string SglangInputs::text(std::string_view field, std::string_view default_value) {
  auto v = optional_text(field);
  if (!v) {
    record(field, std::string(default_value), "", nullptr, "");
    return std::string(default_value);
  }
  return *v;
}

std::optional<std::string> SglangInputs::optional_text(std::string_view field) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), "", nullptr, "None");
    return std::nullopt;
  }
  const FlagSpec* spec = find_capacity_flag(f->name);
  std::string v = spec != nullptr && spec->const_value ? *spec->const_value : f->value();
  record(field, v, "", f, "");
  return v;
}

std::optional<std::vector<std::int64_t>> SglangInputs::int_list(std::string_view field) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), "", nullptr, "None");
    return std::nullopt;
  }
  std::vector<std::int64_t> out;
  for (const std::string& s : f->values)
    out.push_back(parse_int(s).value_or(0));
  record(field, IntList(out), "", f, "");
  return out;
}

}  // namespace servescope::sglang
