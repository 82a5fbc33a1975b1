// Reading fields of JSON documents users hand over (a bench result, a fit result, a saved
// calibration) without trusting their types: a field of another type reads as absent, never
// throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/file.h"

namespace servescope {

/// j[key] when j is an object holding a number there, else `fallback`.
inline double json_num(const nlohmann::json& j, const char* key, double fallback = 0) {
  if (!j.is_object())
    return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

/// j[key] when j is an object holding a boolean there, else `fallback`.
inline bool json_bool(const nlohmann::json& j, const char* key, bool fallback) {
  if (!j.is_object())
    return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

/// j[key] when j is an object holding an object there, else an empty object.
inline const nlohmann::json& json_obj(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!j.is_object())
    return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

/// j[key] when j is an object holding an array there, else an empty array.
inline const nlohmann::json& json_arr(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  if (!j.is_object())
    return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

/// j[key] as text: a string as it is, null or absent as "", anything else as its JSON.
inline std::string json_str(const nlohmann::json& j, const char* key) {
  if (!j.is_object())
    return "";
  const auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

/// A JSON file users hand over; the error names the option, the path and what is wrong.
inline Result<nlohmann::json> read_json_file(const std::string& path, const std::string& option) {
  auto text = read_file(path);
  if (!text)
    return fail(option + " " + text.message());
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return fail(option + " " + path + ": not valid JSON");
  return doc;
}

}  // namespace servescope
