#include "twin/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace {

std::optional<std::int64_t> json_length(const nlohmann::json& j,
                                        std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = j.find(k);
    if (it != j.end() && it->is_number_integer() && it->get<std::int64_t>() >= 0)
      return it->get<std::int64_t>();
  }
  return std::nullopt;
}

constexpr char kSpecHelp[] = "a number, uniform:A:B, normal:MEAN:SD or a JSONL file";

}  // namespace

Result<std::vector<LengthPair>> read_length_rows(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    return text.error();
  std::vector<LengthPair> rows;
  std::size_t line_no = 0;
  for (std::string_view line : split(*text, '\n')) {
    ++line_no;
    line = trim(line);
    if (line.empty())
      continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    LengthPair p;
    bool ok = false;
    if (j.is_array() && j.size() == 2 && j[0].is_number_integer() && j[1].is_number_integer()) {
      p = {j[0].get<std::int64_t>(), j[1].get<std::int64_t>()};
      ok = p.input >= 0 && p.output >= 0;
    } else if (j.is_object()) {
      auto in =
          json_length(j, {"input", "input_len", "prompt_len", "input_tokens", "prompt_tokens"});
      auto out = json_length(j, {"output", "output_len", "output_tokens", "completion_tokens"});
      if (in && out) {
        p = {*in, *out};
        ok = true;
      }
    }
    if (!ok)
      return fail(
          fmt::format("{}:{}: expected {{\"input\": N, \"output\": M}} or [N, M] with "
                      "non-negative integers",
                      path, line_no));
    rows.push_back(p);
  }
  if (rows.empty())
    return fail(fmt::format("{}: no length rows (one JSON object per line)", path));
  return rows;
}

LengthSpec LengthSpec::fixed(std::int64_t n) {
  LengthSpec s;
  s.kind_ = Kind::kFixed;
  s.a_ = static_cast<double>(n);
  return s;
}

Result<LengthSpec> LengthSpec::parse(std::string_view spec, std::string_view option) {
  spec = trim(spec);
  LengthSpec s;
  if (auto n = parse_int(spec)) {
    if (*n < 1)
      return fail(fmt::format("{} {}: a length must be at least 1", option, spec));
    return fixed(*n);
  }
  const auto parts = split(spec, ':');
  if (parts.size() == 3 && (parts[0] == "uniform" || parts[0] == "normal")) {
    const auto a = parse_double(parts[1]);
    const auto b = parse_double(parts[2]);
    if (!a || !b)
      return fail(fmt::format("{} {}: {}:A:B needs two numbers", option, spec, parts[0]));
    if (parts[0] == "uniform") {
      if (*a < 1 || *b < *a)
        return fail(fmt::format("{} {}: uniform:A:B needs 1 ≤ A ≤ B", option, spec));
      s.kind_ = Kind::kUniform;
    } else {
      if (*a < 1 || *b < 0)
        return fail(fmt::format("{} {}: normal:MEAN:SD needs MEAN ≥ 1 and SD ≥ 0", option, spec));
      s.kind_ = Kind::kNormal;
    }
    s.a_ = *a;
    s.b_ = *b;
    return s;
  }
  if (is_regular_file(std::string(spec))) {
    auto rows = read_length_rows(std::string(spec));
    if (!rows)
      return rows.error();
    s.kind_ = Kind::kFile;
    s.path_ = std::string(spec);
    s.rows_ = std::move(*rows);
    return s;
  }
  return fail(fmt::format("{} {}: expected {} (no such file)", option, spec, kSpecHelp));
}

std::int64_t LengthSpec::sample(Random& random, bool output_column) {
  switch (kind_) {
    case Kind::kFixed:
      return static_cast<std::int64_t>(a_);
    case Kind::kUniform:
      return random.uniform_int(static_cast<std::int64_t>(a_), static_cast<std::int64_t>(b_));
    case Kind::kNormal:
      return std::max<std::int64_t>(1, std::llround(random.normal(a_, b_)));
    case Kind::kFile: {
      std::size_t& next = output_column ? next_output_ : next_input_;
      const LengthPair& p = rows_[next++ % rows_.size()];
      return std::max<std::int64_t>(output_column ? 0 : 1, output_column ? p.output : p.input);
    }
  }
  return 1;
}

std::string LengthSpec::describe() const {
  switch (kind_) {
    case Kind::kFixed:
      return fmt::format("{}", static_cast<std::int64_t>(a_));
    case Kind::kUniform:
      return fmt::format("uniform:{}:{}", a_, b_);
    case Kind::kNormal:
      return fmt::format("normal:{}:{}", a_, b_);
    case Kind::kFile:
      return fmt::format("{} ({} rows)", path_, rows_.size());
  }
  return "";
}

Result<ArrivalProcess> ArrivalProcess::parse(std::string_view spec) {
  spec = trim(spec);
  ArrivalProcess a;
  if (spec == "poisson") {
    a.kind_ = Kind::kPoisson;
  } else if (spec == "constant") {
    a.kind_ = Kind::kConstant;
  } else if (spec.rfind("gamma:", 0) == 0) {
    const auto k = parse_double(spec.substr(6));
    if (!k || *k <= 0)
      return fail(fmt::format("--arrival {}: gamma:K needs a shape K > 0", spec));
    a.kind_ = Kind::kGamma;
    a.shape_ = *k;
  } else {
    return fail(fmt::format("--arrival {}: expected poisson, constant or gamma:K", spec));
  }
  return a;
}

double ArrivalProcess::next_gap(Random& random, double rate) const {
  const double mean = 1.0 / rate;
  switch (kind_) {
    case Kind::kPoisson:
      return random.exponential(mean);
    case Kind::kConstant:
      return mean;
    case Kind::kGamma:
      return random.gamma(shape_, mean);
  }
  return mean;
}

std::string ArrivalProcess::describe() const {
  switch (kind_) {
    case Kind::kPoisson:
      return "poisson";
    case Kind::kConstant:
      return "constant";
    case Kind::kGamma:
      return fmt::format("gamma:{}", shape_);
  }
  return "";
}

Result<std::vector<double>> parse_number_list(std::string_view text, std::string_view option) {
  std::vector<double> out;
  for (std::string_view part : split(text, ',')) {
    const auto v = parse_double(trim(part));
    if (!v || !(*v > 0) || !std::isfinite(*v))
      return fail(
          fmt::format("{} {}: expected positive numbers separated by commas", option, text));
    out.push_back(*v);
  }
  if (out.empty())
    return fail(fmt::format("{}: expected at least one value", option));
  return out;
}

}  // namespace servescope
