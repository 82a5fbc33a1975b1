#include "load/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace servescope {
namespace {

std::optional<double> parse_number(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  const std::size_t end = s.find_first_of(" \t\r");
  s = s.substr(0, end);
  if (s == "+Inf" || s == "Inf")
    return std::numeric_limits<double>::infinity();
  if (s == "-Inf")
    return -std::numeric_limits<double>::infinity();
  if (s == "NaN")
    return std::nullopt;
  // from_chars for double is in libstdc++ 11+.
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p == s.data())
    return std::nullopt;
  return v;
}

// Calls fn(name, labels, value_text) for each sample line.
template <class Fn>
void each_sample(std::string_view text, Fn&& fn) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos)
      eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line.front() == '#')
      continue;
    const std::size_t name_end = line.find_first_of("{ \t");
    if (name_end == std::string_view::npos)
      continue;
    const std::string_view name = line.substr(0, name_end);
    std::string_view labels;
    std::string_view rest = line.substr(name_end);
    if (rest.front() == '{') {
      // Label values may hold '}' inside quotes.
      bool quoted = false;
      std::size_t k = 1;
      for (; k < rest.size(); ++k) {
        const char c = rest[k];
        if (c == '\\' && quoted) {
          ++k;
          continue;
        }
        if (c == '"')
          quoted = !quoted;
        else if (c == '}' && !quoted)
          break;
      }
      if (k >= rest.size())
        continue;
      labels = rest.substr(1, k - 1);
      rest = rest.substr(k + 1);
    }
    fn(name, labels, rest);
  }
}

std::optional<double> le_label(std::string_view labels) {
  const std::size_t at = labels.find("le=\"");
  if (at == std::string_view::npos || (at > 0 && labels[at - 1] != ',' && labels[at - 1] != ' '))
    return std::nullopt;
  const std::size_t start = at + 4;
  const std::size_t end = labels.find('"', start);
  if (end == std::string_view::npos)
    return std::nullopt;
  return parse_number(labels.substr(start, end - start));
}

}  // namespace

std::optional<double> prometheus_sum(std::string_view text, std::string_view name) {
  std::optional<double> total;
  each_sample(text, [&](std::string_view n, std::string_view, std::string_view value) {
    if (n != name)
      return;
    if (auto v = parse_number(value))
      total = total.value_or(0) + *v;
  });
  return total;
}

PromHistogram prometheus_histogram(std::string_view text, std::string_view name) {
  PromHistogram h;
  const std::string bucket = std::string(name) + "_bucket";
  const std::string count = std::string(name) + "_count";
  const std::string sum = std::string(name) + "_sum";
  each_sample(text, [&](std::string_view n, std::string_view labels, std::string_view value) {
    if (n == bucket) {
      auto le = le_label(labels);
      auto v = parse_number(value);
      if (le && v) {
        h.buckets[*le] += *v;
        h.found = true;
      }
    } else if (n == count) {
      if (auto v = parse_number(value))
        h.count += *v;
    } else if (n == sum) {
      if (auto v = parse_number(value))
        h.sum += *v;
    }
  });
  return h;
}

std::optional<double> histogram_delta_median(const PromHistogram& before,
                                             const PromHistogram& after) {
  const double n = after.count - before.count;
  if (n <= 0 || after.buckets.empty())
    return std::nullopt;
  const double half = n / 2;
  double prev_le = 0, prev_cum = 0;
  for (const auto& [le, cum_after] : after.buckets) {
    auto it = before.buckets.find(le);
    const double cum = cum_after - (it == before.buckets.end() ? 0 : it->second);
    if (cum >= half) {
      if (std::isinf(le))
        return prev_le;  // beyond the last finite bound: its lower edge
      const double in_bucket = cum - prev_cum;
      const double frac = in_bucket > 0 ? (half - prev_cum) / in_bucket : 0;
      return prev_le + (le - prev_le) * frac;
    }
    prev_le = le;
    prev_cum = cum;
  }
  return std::nullopt;
}

}  // namespace servescope
