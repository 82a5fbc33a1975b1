#include "report/logs_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/format.h"

namespace servescope {

namespace {

constexpr std::size_t kChartWidth = 60;
constexpr std::size_t kEvidenceShown = 8;

std::string line_ref(std::uint64_t line) {
  return line == 0 ? std::string() : "line " + with_thousands(static_cast<long long>(line));
}

std::string duration(double s) {
  if (s < 0)
    return "";
  const long long t = std::llround(s);
  if (t < 60)
    return fmt::format("{} s", t);
  if (t < 3600)
    return fmt::format("{}m {:02}s", t / 60, t % 60);
  return fmt::format("{}h {:02}m", t / 3600, (t % 3600) / 60);
}

std::string evidence_range(const VersionEvidence& e) {
  if (e.from_date.empty() && e.until_date.empty())
    return "(no bound)";
  if (e.until_date.empty())
    return "≥ " + e.from_date;
  if (e.from_date.empty())
    return "≤ " + e.until_date;
  return e.from_date + " … " + e.until_date;
}

void version_section(const LogFacts& facts, std::string& out) {
  const VersionInference& v = facts.version();
  std::string head = "main " + v.range_text();
  if (!v.printed_version.empty())
    head += fmt::format(" · prints version {}", v.printed_version);
  head += fmt::format(" · {} observation{}", v.evidence.size(), v.evidence.size() == 1 ? "" : "s");
  if (!v.consistent)
    head += " · some contradict (patched tree or cherry-picks?)";
  out += fmt::format("  version   {}\n", head);
  // The evidence that sets the bounds first, then conflicts, then the rest.
  std::vector<const VersionEvidence*> order;
  auto rank = [&](const VersionEvidence& e) {
    if (e.conflicting)
      return 1;
    if ((!e.from_date.empty() && e.from_date == v.from_date) ||
        (!e.until_date.empty() && e.until_date == v.until_date))
      return 0;
    return 2;
  };
  for (const VersionEvidence& e : v.evidence)
    order.push_back(&e);
  std::stable_sort(
      order.begin(), order.end(),
      [&](const VersionEvidence* a, const VersionEvidence* b) { return rank(*a) < rank(*b); });
  std::vector<std::vector<std::string>> rows;
  std::size_t shown = 0;
  for (const VersionEvidence* ep : order) {
    const VersionEvidence& e = *ep;
    if (shown++ >= kEvidenceShown) {
      rows.push_back(
          {"", fmt::format("… {} more (--json lists all)", v.evidence.size() - kEvidenceShown),
           ""});
      break;
    }
    rows.push_back(
        {(e.conflicting ? "✗ " : "  ") + evidence_range(e), e.observation, line_ref(e.line)});
  }
  out += render_columns(rows, "            ");
}

void items(const std::vector<LogSummary::Item>& list, std::string& out) {
  std::vector<std::vector<std::string>> rows;
  for (const LogSummary::Item& i : list)
    rows.push_back({i.name, i.value, line_ref(i.line)});
  out += render_columns(rows);
}

void timeline_section(const LogFacts& facts, std::string& out) {
  const Timeline* t = facts.timeline();
  if (t == nullptr || t->samples() == 0) {
    out += "\nTimeline\n  no Prefill/Decode batch lines\n";
    return;
  }
  std::string span = t->span_s() >= 1 ? duration(t->span_s()) : std::string();
  out += fmt::format("\nTimeline{}: {} decode + {} prefill lines{}{}\n",
                     t->rank().empty() ? "" : " (" + t->rank() + ")",
                     with_thousands(static_cast<long long>(t->decode_samples())),
                     with_thousands(static_cast<long long>(t->prefill_samples())),
                     span.empty() ? "" : " over " + span,
                     facts.timelines().size() > 1
                         ? fmt::format(" · {} ranks print batch lines", facts.timelines().size())
                         : "");
  const std::vector<TimelinePoint> points = t->points();
  std::vector<double> running, queue, usage, tput, mamba;
  for (const TimelinePoint& p : points) {
    running.push_back(static_cast<double>(p.running_req));
    queue.push_back(static_cast<double>(p.queue_req));
    usage.push_back(p.token_usage);
    tput.push_back(p.gen_throughput_tok_per_s);
    mamba.push_back(p.mamba_usage);
  }
  std::vector<std::vector<std::string>> rows;
  auto peak = [](const TimelinePeak& pk, const char* fmt_str) {
    if (pk.value < 0)
      return std::string("");
    return fmt::format(fmt::runtime(fmt_str), pk.value) + "  " + line_ref(pk.line);
  };
  rows.push_back(
      {"running requests", sparkline(running, kChartWidth), peak(t->peak_running(), "max {:.0f}")});
  rows.push_back(
      {"queued requests", sparkline(queue, kChartWidth), peak(t->peak_queue(), "max {:.0f}")});
  rows.push_back(
      {"token usage", sparkline(usage, kChartWidth), peak(t->peak_token_usage(), "max {:.2f}")});
  if (t->decode_samples() > 0)
    rows.push_back({"gen throughput", sparkline(tput, kChartWidth, true),
                    peak(t->peak_gen_throughput(), "max {:.1f} tok/s")});
  if (std::any_of(mamba.begin(), mamba.end(), [](double m) { return m >= 0; }))
    rows.push_back({"mamba usage", sparkline(mamba, kChartWidth), ""});
  out += render_columns(rows);
  if (points.size() > 1 && !points.front().time.empty())
    out += fmt::format("  {}{}\n", std::string(18, ' '),
                       points.front().time + " → " + points.back().time);
}

}  // namespace

std::string sparkline(const std::vector<double>& values, std::size_t width, bool mean) {
  static constexpr const char* kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (values.empty() || width == 0)
    return "";
  const std::size_t cols = std::min(width, values.size());
  std::vector<double> col(cols, -1);
  for (std::size_t c = 0; c < cols; ++c) {
    const std::size_t begin = c * values.size() / cols;
    const std::size_t end = std::max(begin + 1, (c + 1) * values.size() / cols);
    double acc = -1;
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (values[i] < 0)
        continue;
      acc = std::max(acc, values[i]);
      sum += values[i];
      ++n;
    }
    col[c] = n == 0 ? -1 : (mean ? sum / static_cast<double>(n) : acc);
  }
  const double top = *std::max_element(col.begin(), col.end());
  std::string out;
  for (double v : col) {
    if (v < 0) {
      out += ' ';
    } else if (top <= 0) {
      out += kBars[0];
    } else {
      const auto level = static_cast<std::size_t>(std::lround(v / top * 7.0));
      out += kBars[std::min<std::size_t>(level, 7)];
    }
  }
  return out;
}

std::string render_logs_text(const LogFacts& facts, const std::string& file_name) {
  const LogSummary& s = facts.summary();
  std::string out = fmt::format("{} log · {}\n", facts.engine(), file_name);
  std::string model = s.model.empty() ? "(not printed)" : s.model;
  if (!s.model_class.empty())
    model += " (" + s.model_class + ")";
  out += fmt::format("  model     {}\n", model);
  out += fmt::format("  gpu       {}\n", s.gpu.empty() ? "(not printed)" : s.gpu);
  std::string parallel;
  for (const auto& [name, n] : {std::pair{"tp", s.tp}, {"dp", s.dp}, {"pp", s.pp}, {"ep", s.ep}}) {
    if (n > 0)
      parallel += fmt::format("{}{} {}", parallel.empty() ? "" : " · ", name, n);
  }
  out += fmt::format("  parallel  {}\n", parallel.empty() ? "(not printed)" : parallel);
  version_section(facts, out);

  out += fmt::format("\nCapacity{}\n", s.rank.empty() ? "" : " (" + s.rank + ")");
  if (s.capacity.empty())
    out += "  no startup capacity lines\n";
  else
    items(s.capacity, out);
  if (!s.problems.empty()) {
    out += "\nProblems\n";
    items(s.problems, out);
  }
  if (!s.notes.empty()) {
    out += "\nSettings the engine adjusted\n";
    std::vector<std::vector<std::string>> rows;
    for (const LogSummary::Item& i : s.notes)
      rows.push_back(
          {line_ref(i.line), i.value.size() > 110 ? i.value.substr(0, 107) + "..." : i.value});
    out += render_columns(rows);
  }
  timeline_section(facts, out);

  const LineCounts& c = facts.counts();
  out += fmt::format(
      "\nLines  {} read · {} with facts · {} known · {} unknown · {} unknown capacity-looking\n",
      with_thousands(static_cast<long long>(c.lines)),
      with_thousands(static_cast<long long>(c.fact_lines)),
      with_thousands(static_cast<long long>(c.known)),
      with_thousands(static_cast<long long>(c.unknown)),
      with_thousands(static_cast<long long>(c.unknown_capacity)));
  for (const UnknownLine& u : c.unknown_capacity_samples)
    out += fmt::format("  ? {}: {}\n", line_ref(u.line),
                       u.text.size() > 110 ? u.text.substr(0, 107) + "..." : u.text);
  std::vector<std::string> oddities;
  if (c.truncated_last_line)
    oddities.push_back("the last line has no newline (cut?)");
  if (c.overlong > 0)
    oddities.push_back(fmt::format("{} overlong lines cut", c.overlong));
  if (c.invalid_utf8 > 0)
    oddities.push_back(fmt::format("{} lines with invalid UTF-8", c.invalid_utf8));
  for (const auto& [kind, n] : facts.dropped()) {
    if (kind != "decode_batch" && kind != "prefill_batch")
      oddities.push_back(fmt::format("{} {} facts not kept", n, kind));
  }
  for (std::size_t i = 0; i < oddities.size(); ++i)
    out += (i == 0 ? "  " : " · ") + oddities[i] + (i + 1 == oddities.size() ? "\n" : "");
  return out;
}

}  // namespace servescope
