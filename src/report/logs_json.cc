#include "report/logs_json.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "report/plan_json.h"

namespace servescope {

namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

// Whether any of the 8 bytes of `w` needs escaping: below 0x20, '"' or '\\'.
bool needs_escape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  const std::uint64_t below = (w - kOnes * 0x20) & ~w & kHigh;
  return (below | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'))) != 0;
}

void append_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t start = 0;
  std::size_t i = 0;
  // Runs of bytes that need no escape, 8 at a time (most of a log line).
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (needs_escape(w))
      break;
  }
  for (; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    out.append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
  }
  out.append(s.data() + start, s.size() - start);
  out += '"';
}

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(p - buf));
}

void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  // Engines print two decimals ("0.42", "3456.78"): when v is the double nearest such a
  // decimal, that decimal (trailing zeros cut) is its shortest form; write it directly.
  if (std::fabs(v) < 1e9) {
    const double scaled = std::nearbyint(v * 100.0);
    if (scaled / 100.0 == v) {
      const auto cents = static_cast<std::int64_t>(scaled);
      const std::int64_t whole = (cents < 0 ? -cents : cents) / 100;
      const int frac = static_cast<int>((cents < 0 ? -cents : cents) % 100);
      if (cents < 0)
        out += '-';
      append_int(out, whole);
      out += '.';
      out += static_cast<char>('0' + frac / 10);
      if (frac % 10 != 0)
        out += static_cast<char>('0' + frac % 10);
      return;
    }
  }
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string_view text(buf, static_cast<std::size_t>(p - buf));
  out += text;
  // Keep doubles recognisable as such: "1" → "1.0".
  if (text.find_first_of(".eE") == std::string_view::npos)
    out += ".0";
}

void append_value(std::string& out, const Value& v) {
  if (v.is_none()) {
    out += "null";
  } else if (v.is_bool()) {
    out += v.as_bool() ? "true" : "false";
  } else if (v.is_int()) {
    append_int(out, v.as_int());
  } else if (v.is_double()) {
    append_double(out, v.as_number());
  } else if (v.is_string()) {
    append_string(out, v.as_string());
  } else {
    out += '[';
    bool first = true;
    for (std::int64_t x : v.as_list()) {
      if (!first)
        out += ',';
      first = false;
      append_int(out, x);
    }
    out += ']';
  }
}

nlohmann::json optional_gauge(double v) {
  return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v);
}

nlohmann::json peak_json(const TimelinePeak& p) {
  if (p.value < 0)
    return nullptr;
  return {{"value", p.value}, {"line", p.line}, {"time", p.time}};
}

nlohmann::json items_json(const std::vector<LogSummary::Item>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const LogSummary::Item& i : items)
    out.push_back({{"name", i.name}, {"value", i.value}, {"line", i.line}, {"kind", i.kind}});
  return out;
}

nlohmann::json nullable(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

void append_fact_json(std::string& out, const Fact& f) {
  out += "{\"kind\":";
  append_string(out, f.kind);
  out += ",\"line\":";
  append_int(out, static_cast<std::int64_t>(f.line));
  out += ",\"time\":";
  if (f.timestamp.empty())
    out += "null";
  else
    append_string(out, f.timestamp);
  out += ",\"rank\":{\"label\":";
  append_string(out, f.rank.label);
  const std::pair<const char*, int> tags[] = {
      {"tp", f.rank.tp}, {"dp", f.rank.dp}, {"pp", f.rank.pp}, {"ep", f.rank.ep}};
  for (const auto& [name, index] : tags) {
    if (index < 0)
      continue;
    out += ",\"";
    out += name;
    out += "\":";
    append_int(out, index);
  }
  out += "},\"fields\":{";
  for (std::size_t i = 0; i < f.fields.size(); ++i) {
    if (i > 0)
      out += ',';
    // A name printed twice on one line keeps both values: the second becomes name_2.
    int repeat = 1;
    const std::string& name = f.fields[i].name;
    for (std::size_t j = 0; j < i; ++j) {
      const std::string& other = f.fields[j].name;
      if (other.size() == name.size() && !name.empty() && other[0] == name[0] &&
          other.back() == name.back() && other == name)
        ++repeat;
    }
    if (repeat == 1) {
      append_string(out, f.fields[i].name);
    } else {
      append_string(out, f.fields[i].name + "_" + std::to_string(repeat));
    }
    out += ':';
    append_value(out, f.fields[i].value);
  }
  out += "},\"raw\":";
  append_string(out, f.raw);
  out += ",\"partial\":";
  out += f.partial ? "true" : "false";
  out += '}';
}

LogsJsonWriter::LogsJsonWriter(std::FILE* out, std::string file_name, bool with_facts)
    : out_(out), file_name_(std::move(file_name)), with_facts_(with_facts) {
  buf_.reserve(kFlushBytes + 65536);
}

LogsJsonWriter::~LogsJsonWriter() = default;

void LogsJsonWriter::head() {
  if (started_)
    return;
  started_ = true;
  buf_ += "{\"format\":\"servescope.logs/1\",\"file\":";
  append_string(buf_, file_name_);
  buf_ += ",\"facts\":[";
}

void LogsJsonWriter::flush() {
  if (!buf_.empty())
    std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
}

void LogsJsonWriter::on_fact(const Fact& fact) {
  if (!with_facts_)
    return;
  head();
  if (!first_fact_)
    buf_ += ",\n";
  else
    buf_ += '\n';
  first_fact_ = false;
  append_fact_json(buf_, fact);
  if (buf_.size() >= kFlushBytes)
    flush();
}

void LogsJsonWriter::finish(const LogFacts& facts) {
  head();
  buf_ += "\n]";
  nlohmann::json tail = logs_tail_to_json(facts);
  tail.update(extra_);
  for (auto it = tail.begin(); it != tail.end(); ++it) {
    buf_ += ",\n";
    append_string(buf_, it.key());
    buf_ += ':';
    buf_ += it.value().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  buf_ += "}\n";
  flush();
  std::fflush(out_);
}

nlohmann::json logs_tail_to_json(const LogFacts& facts) {
  nlohmann::json out = nlohmann::json::object();
  out["engine"] = std::string(facts.engine());

  const VersionInference& v = facts.version();
  nlohmann::json evidence = nlohmann::json::array();
  for (const VersionEvidence& e : v.evidence) {
    evidence.push_back({{"observation", e.observation},
                        {"seen", e.seen},
                        {"line", e.line},
                        {"from", nullable(e.from_date)},
                        {"until", nullable(e.until_date)},
                        {"rule", e.rule},
                        {"weight", e.weight},
                        {"conflicting", e.conflicting}});
  }
  out["inferred_version"] = {{"from", nullable(v.from_date)},
                             {"until", nullable(v.until_date)},
                             {"range", v.range_text()},
                             {"consistent", v.consistent},
                             {"printed_version", nullable(v.printed_version)},
                             {"evidence", evidence}};

  const LogSummary& s = facts.summary();
  out["summary"] = {{"model", nullable(s.model)},
                    {"model_class", nullable(s.model_class)},
                    {"gpu", nullable(s.gpu)},
                    {"tp", s.tp},
                    {"dp", s.dp},
                    {"pp", s.pp},
                    {"ep", s.ep},
                    {"rank", s.rank},
                    {"capacity", items_json(s.capacity)},
                    {"problems", items_json(s.problems)},
                    {"notes", items_json(s.notes)}};

  nlohmann::json timelines = nlohmann::json::array();
  for (const Timeline& t : facts.timelines()) {
    nlohmann::json points = nlohmann::json::array();
    for (const TimelinePoint& p : t.points()) {
      points.push_back(
          {{"first_line", p.first_line},
           {"last_line", p.last_line},
           {"time", nullable(p.time)},
           {"offset_s", optional_gauge(p.offset_s)},
           {"samples", p.samples},
           {"decode_samples", p.decode_samples},
           {"running_req",
            p.running_req < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.running_req)},
           {"queue_req", p.queue_req < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.queue_req)},
           {"token_usage", optional_gauge(p.token_usage)},
           {"gen_throughput_tok_per_s", optional_gauge(p.gen_throughput_tok_per_s)},
           {"mamba_usage", optional_gauge(p.mamba_usage)}});
    }
    timelines.push_back({{"rank", t.rank()},
                         {"samples", t.samples()},
                         {"decode_samples", t.decode_samples()},
                         {"prefill_samples", t.prefill_samples()},
                         {"span_s", optional_gauge(t.span_s())},
                         {"peaks",
                          {{"running_req", peak_json(t.peak_running())},
                           {"queue_req", peak_json(t.peak_queue())},
                           {"token_usage", peak_json(t.peak_token_usage())},
                           {"gen_throughput_tok_per_s", peak_json(t.peak_gen_throughput())}}},
                         {"points", points}});
  }
  out["timelines"] = timelines;

  const LineCounts& c = facts.counts();
  nlohmann::json samples = nlohmann::json::array();
  for (const UnknownLine& u : c.unknown_capacity_samples)
    samples.push_back({{"line", u.line}, {"text", u.text}});
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& [kind, n] : facts.counts_by_kind())
    by_kind[kind] = n;
  nlohmann::json dropped = nlohmann::json::object();
  for (const auto& [kind, n] : facts.dropped())
    dropped[kind] = n;
  out["counts"] = {{"bytes", c.bytes},
                   {"lines", c.lines},
                   {"fact_lines", c.fact_lines},
                   {"facts", c.facts},
                   {"known", c.known},
                   {"unknown", c.unknown},
                   {"unknown_capacity", c.unknown_capacity},
                   {"overlong", c.overlong},
                   {"invalid_utf8", c.invalid_utf8},
                   {"control_chars", c.control_chars},
                   {"truncated_last_line", c.truncated_last_line},
                   {"unknown_capacity_samples", samples},
                   {"facts_by_kind", by_kind},
                   {"dropped_by_kind", dropped}};
  return out;
}

}  // namespace servescope
