#include "load/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "twin/random.h"

namespace servescope {
namespace {

constexpr std::int64_t kMaxTokens = 10'000'000;  // a row past this is not a request

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '"'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '"'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == sep) {
      out.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool read_int(std::string_view s, std::int64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Days from 1970-01-01 to a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "2023-11-16 18:15:46.6805900" (or with a T) in seconds since 1970; false when it is not one.
bool read_datetime(std::string_view s, double& seconds) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return false;
  std::int64_t y, mo, d, h, mi, se;
  if (!read_int(s.substr(0, 4), y) || !read_int(s.substr(5, 2), mo) ||
      !read_int(s.substr(8, 2), d) || !read_int(s.substr(11, 2), h) ||
      !read_int(s.substr(14, 2), mi) || !read_int(s.substr(17, 2), se))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
    return false;
  double fraction = 0;
  std::string_view rest = s.substr(19);
  if (!rest.empty() && rest.back() == 'Z')
    rest.remove_suffix(1);
  if (!rest.empty()) {
    if (rest.front() != '.' || rest.size() < 2)
      return false;
    double scale = 0.1;
    for (char c : rest.substr(1)) {
      if (c < '0' || c > '9')
        return false;
      fraction += (c - '0') * scale;
      scale /= 10;
    }
  }
  seconds =
      static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) + fraction;
  return true;
}

Status check_lengths(const TraceRow& row, const std::string& where) {
  if (row.input_tokens < 1 || row.input_tokens > kMaxTokens || row.output_tokens < 1 ||
      row.output_tokens > kMaxTokens)
    return fail(
        fmt::format("{}: input and output lengths must be 1 to {} tokens", where, kMaxTokens));
  return ok_status();
}

Result<TraceRow> mooncake_row(std::string_view line, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail(where + ": not a JSON object; each line is one request");
  for (const char* key : {"timestamp", "input_length", "output_length"}) {
    if (!j.contains(key) || !j[key].is_number())
      return fail(fmt::format("{}: \"{}\" is missing or not a number", where, key));
  }
  TraceRow row;
  row.at_s = j["timestamp"].get<double>() / 1000.0;
  if (!std::isfinite(row.at_s))
    return fail(where + ": \"timestamp\" is not a number of milliseconds");
  row.input_tokens = static_cast<std::int64_t>(
      std::clamp(j["input_length"].get<double>(), -1.0, static_cast<double>(kMaxTokens) + 1));
  row.output_tokens = static_cast<std::int64_t>(
      std::clamp(j["output_length"].get<double>(), -1.0, static_cast<double>(kMaxTokens) + 1));
  if (Status st = check_lengths(row, where); !st)
    return st.error();
  if (j.contains("hash_ids")) {
    const nlohmann::json& ids = j["hash_ids"];
    if (!ids.is_array())
      return fail(where + ": \"hash_ids\" must be a list of block ids");
    for (const nlohmann::json& id : ids) {
      if (!id.is_number_unsigned())
        return fail(where + ": \"hash_ids\" holds something that is not a block id");
      row.block_ids.push_back(id.get<std::uint64_t>());
    }
  }
  return row;
}

struct CsvColumns {
  std::size_t at = 0, input = 1, output = 2;
};

Result<CsvColumns> azure_header(std::string_view line, const std::string& where) {
  CsvColumns c;
  const auto cells = split(line, ',');
  bool at = false, in = false, out = false;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    std::string name(cells[i]);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (name == "timestamp")
      c.at = i, at = true;
    else if (name == "contexttokens")
      c.input = i, in = true;
    else if (name == "generatedtokens")
      c.output = i, out = true;
  }
  if (!at || !in || !out)
    return fail(where +
                ": a CSV trace needs the columns TIMESTAMP, ContextTokens and "
                "GeneratedTokens (Azure's LLM inference trace)");
  return c;
}

Result<TraceRow> azure_row(std::string_view line, const CsvColumns& c, const std::string& where) {
  const auto cells = split(line, ',');
  if (cells.size() <= std::max({c.at, c.input, c.output}))
    return fail(where + ": fewer cells than the header names");
  TraceRow row;
  if (!read_datetime(cells[c.at], row.at_s))
    return fail(fmt::format("{}: TIMESTAMP \"{}\" is not a date and time (2023-11-16 18:15:46.68)",
                            where, cells[c.at]));
  if (!read_int(cells[c.input], row.input_tokens) || !read_int(cells[c.output], row.output_tokens))
    return fail(where + ": ContextTokens and GeneratedTokens must be whole numbers");
  if (Status st = check_lengths(row, where); !st)
    return st.error();
  return row;
}

}  // namespace

Result<Trace> parse_trace(std::string_view text, const std::string& name) {
  Trace trace;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return fail(fmt::format("--trace {}: the file holds no requests", name));
  const bool jsonl = text[first] == '{';
  trace.format = jsonl ? "Mooncake JSONL" : "Azure CSV";
  std::optional<CsvColumns> columns;
  std::size_t number = 0, start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (trim(line).empty())
      continue;
    const std::string where = fmt::format("--trace {}:{}", name, number);
    Result<TraceRow> row = fail("");
    if (jsonl) {
      row = mooncake_row(line, where);
    } else if (!columns) {
      auto header = azure_header(line, where);
      if (!header)
        return header.error();
      columns = *header;
      continue;
    } else {
      row = azure_row(line, *columns, where);
    }
    if (!row)
      return row.error();
    if (!trace.rows.empty() && row->at_s < trace.rows.back().at_s)
      return fail(where + ": the timestamp goes back; a trace lists requests in time order");
    trace.rows.push_back(std::move(*row));
  }
  if (trace.rows.empty())
    return fail(fmt::format("--trace {}: the file holds no requests", name));
  const double origin = trace.rows.front().at_s;
  for (TraceRow& r : trace.rows)
    r.at_s -= origin;
  return trace;
}

Result<Trace> read_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(fmt::format("--trace {}: cannot open the file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_trace(text.str(), path);
}

std::vector<PromptItem> trace_prompts(const Trace& trace, std::size_t count, std::uint64_t round,
                                      std::uint64_t seed, bool token_ids) {
  std::vector<PromptItem> items;
  items.reserve(count);
  for (std::size_t i = 0; i < count && !trace.rows.empty(); ++i) {
    const TraceRow& row = trace.rows[i % trace.rows.size()];
    PromptItem item;
    item.input_tokens = row.input_tokens;
    item.output_tokens = row.output_tokens;
    std::int64_t left = row.input_tokens;
    // Each block id's tokens come from a stream of its own: the same in every row that names it.
    for (std::uint64_t id : row.block_ids) {
      if (left <= 0)
        break;
      const std::int64_t n = std::min(left, kTraceBlockTokens);
      Random block(seed ^ (id * 0x9E3779B97F4A7C15ULL) ^ (round * 0xC2B2AE3D27D4EB4FULL));
      if (token_ids) {
        const auto ids = synthetic_token_ids(n, block);
        item.token_ids.insert(item.token_ids.end(), ids.begin(), ids.end());
      } else {
        item.prompt += synthetic_prompt(n, block);
      }
      left -= n;
    }
    if (left > 0) {  // past the named blocks: the row's own tokens
      Random own(seed ^ ((i + 1) * 0xD6E8FEB86659FD93ULL) ^ (round * 0xC2B2AE3D27D4EB4FULL) ^ 1);
      if (token_ids) {
        const auto ids = synthetic_token_ids(left, own);
        item.token_ids.insert(item.token_ids.end(), ids.begin(), ids.end());
      } else {
        item.prompt += synthetic_prompt(left, own);
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<PointPlan> trace_points(const Trace& trace, const std::vector<double>& speeds,
                                    std::size_t rows, const PointPlan& base) {
  rows = std::min(rows, trace.rows.size());
  std::vector<PointPlan> points;
  if (rows == 0)
    return points;
  const double span = trace.rows[rows - 1].at_s;
  for (double speed : speeds) {
    PointPlan p = base;
    p.closed_loop = false;
    p.requests = static_cast<std::int64_t>(rows);
    p.warmup = 0;
    p.arrivals_s.clear();
    for (std::size_t i = 0; i < rows; ++i)
      p.arrivals_s.push_back(trace.rows[i].at_s / speed);
    // The mean rate over the replay (rows − 1 gaps); a trace of one row or one instant has none.
    p.rate = span > 0 ? static_cast<double>(rows - 1) / span * speed : 0;
    p.arrival_label = fmt::format("trace ×{:g}", speed);
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace servescope
