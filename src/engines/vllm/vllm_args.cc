#include "engines/vllm/vllm_args.h"

#include <fmt/format.h>

#include "core/text.h"
#include "engines/vllm/vllm_command.h"
#include "engines/vllm/vllm_flags.h"

namespace servescope::vllm {
namespace {

using nlohmann::json;

// The JSON key path of a dotted setting ("--compilation-config.pass_config.x" → "pass_config.x").
std::string dotted_path(const FlagSetting& f) {
  const std::string& s = f.spelled;
  auto dot = s.find('.');
  return dot == std::string::npos ? std::string() : s.substr(dot + 1);
}

// FlexibleArgumentParser.parse_args: a dotted value is parsed as JSON, else kept as a string;
// `key+ a,b` appends list items.
json dotted_value(std::string path, const std::string& text) {
  json value;
  if (!path.empty() && path.back() == '+') {
    value = json::array();
    for (std::string_view item : split(text, ','))
      value.push_back(std::string(item));
  } else {
    try {
      value = json::parse(text);
    } catch (const json::exception&) {  // parse errors and out-of-range numbers
      value = text;
    }
  }
  return value;
}

void merge(json& into, const json& update) {
  for (auto it = update.begin(); it != update.end(); ++it) {
    if (it->is_object() && into.contains(it.key()) && into[it.key()].is_object()) {
      merge(into[it.key()], *it);
    } else if (it->is_array() && into.contains(it.key()) && into[it.key()].is_array()) {
      for (const json& e : *it)
        into[it.key()].push_back(e);
    } else {
      into[it.key()] = *it;
    }
  }
}

const FlagSpec* spec_of(const FlagSetting& f) {
  return find_capacity_flag(f.name);
}

}  // namespace

Value json_to_value(const json& j) {
  if (j.is_boolean())
    return j.get<bool>();
  if (j.is_number_integer())
    return j.get<std::int64_t>();
  if (j.is_number())
    return j.get<double>();
  if (j.is_string())
    return j.get<std::string>();
  if (j.is_array()) {
    IntList out;
    for (const json& e : j) {
      if (!e.is_number_integer())
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out.push_back(e.get<std::int64_t>());
    }
    return out;
  }
  if (j.is_null())
    return Value();
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const FlagSetting* VllmArgs::setting_for(std::string_view field) const {
  const FlagSetting* found = nullptr;
  for (const FlagSetting& f : command_.flags) {
    const FlagSpec* spec = spec_of(f);
    if (spec != nullptr && spec->field == field)
      found = &f;
  }
  return found;
}

std::string VllmArgs::typed(std::string_view field) const {
  const FlagSetting* f = setting_for(field);
  return f == nullptr ? std::string() : f->as_typed();
}

void VllmArgs::record(std::string_view field, Value value, std::string unit,
                      const FlagSetting* from, std::string_view default_note) {
  Node node;
  node.id = "arg." + std::string(field);
  node.value = std::move(value);
  node.unit = std::move(unit);
  if (from != nullptr) {
    node.origin = Origin::kFlag;
    node.source = fmt::format("argv[{}] {}", from->argv_index, from->as_typed());
  } else {
    node.origin = Origin::kEngineDefault;
    node.source = fmt::format("EngineArgs.{} default{}", field,
                              default_note.empty() ? "" : fmt::format(" ({})", default_note));
  }
  graph_.add(std::move(node));
}

std::int64_t VllmArgs::integer(std::string_view field, std::int64_t default_value,
                               std::string unit) {
  const FlagSetting* f = setting_for(field);
  std::int64_t v = default_value;
  if (f != nullptr)
    v = parse_human_readable_int(f->value()).value_or(default_value);
  record(field, v, std::move(unit), f, "");
  return v;
}

std::optional<std::int64_t> VllmArgs::optional_integer(std::string_view field, std::string unit) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), std::move(unit), nullptr, "None");
    return std::nullopt;
  }
  std::optional<long long> v;
  if (field == "max_model_len" && (f->value() == "-1" || to_lower(f->value()) == "auto")) {
    v = -1;
  } else {
    v = parse_human_readable_int(f->value());
  }
  record(field, v ? Value(static_cast<std::int64_t>(*v)) : Value(), std::move(unit), f, "");
  if (!v)
    return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

double VllmArgs::real(std::string_view field, double default_value, std::string unit) {
  const FlagSetting* f = setting_for(field);
  double v = default_value;
  if (f != nullptr)
    v = parse_double(f->value()).value_or(default_value);
  record(field, v, std::move(unit), f, "");
  return v;
}

std::optional<bool> VllmArgs::optional_boolean(std::string_view field) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), "", nullptr, "None");
    return std::nullopt;
  }
  const FlagSpec* spec = spec_of(*f);
  bool v = true;
  if (spec != nullptr && spec->const_value)
    v = *spec->const_value == "true";
  record(field, v, "", f, "");
  return v;
}

std::string VllmArgs::text(std::string_view field, std::string_view default_value) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, std::string(default_value), "", nullptr, "");
    return std::string(default_value);
  }
  record(field, f->value(), "", f, "");
  return f->value();
}

std::optional<std::string> VllmArgs::optional_text(std::string_view field) {
  const FlagSetting* f = setting_for(field);
  if (f == nullptr) {
    record(field, Value(), "", nullptr, "None");
    return std::nullopt;
  }
  record(field, f->value(), "", f, "");
  return f->value();
}

std::optional<std::vector<std::int64_t>> VllmArgs::int_list(std::string_view field) {
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

Result<json> VllmArgs::json_flag(std::string_view field) const {
  json whole;  // the last whole-JSON value
  json dotted = json::object();
  bool any_dotted = false;
  for (const FlagSetting& f : command_.flags) {
    const FlagSpec* spec = spec_of(f);
    if (spec == nullptr || spec->field != field)
      continue;
    const std::string path = dotted_path(f);
    if (path.empty()) {
      try {
        whole = json::parse(f.value());
      } catch (const json::parse_error& e) {
        return fail(fmt::format("{} {}: not valid JSON at byte {}", f.spelled, f.value(), e.byte));
      } catch (const json::exception&) {
        return fail(fmt::format("{} {}: a JSON number is out of range", f.spelled, f.value()));
      }
      if (!whole.is_object()) {
        return fail(fmt::format("{} {}: expected a JSON object such as '{{\"key\": value}}'",
                                f.spelled, f.value()));
      }
      continue;
    }
    any_dotted = true;
    json nested = dotted_value(path, f.value());
    std::string key_path = path.back() == '+' ? path.substr(0, path.size() - 1) : path;
    auto keys = split(key_path, '.');
    for (auto it = keys.rbegin(); it != keys.rend(); ++it)
      nested = json{{std::string(*it), nested}};
    merge(dotted, nested);
  }
  // The dotted parts are appended after every other argument, so argparse keeps them.
  return any_dotted ? dotted : whole;
}

std::optional<json> VllmArgs::json_value(std::string_view field, std::string_view path,
                                         std::string unit) {
  auto whole = json_flag(field);
  const std::string id = std::string(field) + "." + std::string(path);
  const json* at = whole && !whole->is_null() ? &*whole : nullptr;
  for (std::string_view key : split(path, '.')) {
    if (at == nullptr || !at->is_object() || !at->contains(std::string(key))) {
      at = nullptr;
      break;
    }
    at = &(*at)[std::string(key)];
  }
  const FlagSetting* from = setting_for(field);
  if (at == nullptr) {
    record(id, Value(), std::move(unit), nullptr, "None");
    return std::nullopt;
  }
  record(id, json_to_value(*at), std::move(unit), from, "");
  return *at;
}

std::optional<std::string> VllmArgs::env(std::string_view name, std::string_view default_note) {
  Node node;
  node.id = "env." + std::string(name);
  node.origin = Origin::kEnvironment;
  auto it = environment_.find(std::string(name));
  std::optional<std::string> out;
  if (it != environment_.end()) {
    out = it->second;
    node.value = it->second;
    node.source = fmt::format("{}={}", name, it->second);
  } else {
    node.origin = Origin::kEngineDefault;
    node.source = fmt::format("vllm/envs.py default ({})", default_note);
  }
  graph_.add(std::move(node));
  return out;
}

}  // namespace servescope::vllm
