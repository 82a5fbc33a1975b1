#include "report/html_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace servescope {
namespace {

constexpr double kWidth = 640, kHeight = 280;
constexpr double kLeft = 64, kRight = 16, kTop = 16, kBottom = 44;

/// "Nice" tick step for a range split in about `count` steps: 1, 2 or 5 × 10^k.
double nice_step(double range, int count) {
  if (range <= 0)
    return 1;
  const double raw = range / count;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

std::string tick_text(double v) {
  const double mag = std::fabs(v);
  if (mag >= 1e6)
    return fmt::format("{:g}M", v / 1e6);
  if (mag >= 1e4)
    return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string meta(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "<dl class=\"meta\">\n";
  for (const auto& [k, v] : rows) {
    if (!v.empty())
      out += "<dt>" + html_escape(k) + "</dt><dd>" + v + "</dd>\n";
  }
  return out + "</dl>\n";
}

std::string script_json(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

std::string line_chart_svg(const LineChart& chart) {
  const bool log_x =
      chart.log_x && !chart.x.empty() && *std::min_element(chart.x.begin(), chart.x.end()) > 0;
  auto fx = [&](double v) { return log_x ? std::log10(v) : v; };
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_max = 0;
  for (double v : chart.x) {
    x_min = std::min(x_min, fx(v));
    x_max = std::max(x_max, fx(v));
  }
  for (const ChartSeries& s : chart.series) {
    for (double v : s.values) {
      if (std::isfinite(v))
        y_max = std::max(y_max, v);
    }
  }
  if (!std::isfinite(x_min)) {
    x_min = 0;
    x_max = 1;
  }
  if (x_max == x_min) {
    x_min -= 1;
    x_max += 1;
  }
  const double y_step = nice_step(y_max > 0 ? y_max : 1, 4);
  const double y_top = std::max(y_step, std::ceil(y_max / y_step) * y_step);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double v) { return kLeft + (fx(v) - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double v) { return kTop + plot_h - v / y_top * plot_h; };

  std::string svg = fmt::format(
      "<svg class=\"chart-svg\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n", kWidth,
      kHeight, html_escape(chart.title));
  for (double y = 0; y <= y_top + y_step / 2; y += y_step) {
    svg += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" />"
        "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        num(kLeft), num(py(y)), num(kWidth - kRight), num(py(y)), num(kLeft - 6), num(py(y) + 4),
        tick_text(y));
  }
  for (double v : chart.x) {
    svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       num(px(v)), num(kTop + plot_h + 16), tick_text(v));
  }
  svg += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" />"
      "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" />\n",
      num(kLeft), num(kTop + plot_h), num(kWidth - kRight), num(kTop));
  svg += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     num(kLeft + plot_w / 2), num(kHeight - 6),
                     html_escape(chart.x_label + (log_x ? " (log scale)" : "")));
  svg += fmt::format(
      "<text class=\"label\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {0})\">{1}</text>\n",
      num(kTop + plot_h / 2), html_escape(chart.y_label));
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const ChartSeries& series = chart.series[s];
    std::string points;
    std::string dots;
    for (std::size_t i = 0; i < chart.x.size() && i < series.values.size(); ++i) {
      if (!std::isfinite(series.values[i]))
        continue;
      points += fmt::format("{},{} ", num(px(chart.x[i])), num(py(series.values[i])));
      dots += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"><title>{}: {}</title></circle>",
                          num(px(chart.x[i])), num(py(series.values[i])), html_escape(series.label),
                          number_text(series.values[i], 3));
    }
    svg += fmt::format("<g class=\"series s{}{}\"><polyline points=\"{}\" />{}</g>\n", s % 6,
                       series.dashed ? " dashed" : "", points, dots);
  }
  svg += "</svg>\n";
  std::string legend = "<figcaption class=\"legend\">";
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    legend +=
        fmt::format("<span class=\"key s{}{}\"><i></i>{}</span> ", s % 6,
                    chart.series[s].dashed ? " dashed" : "", html_escape(chart.series[s].label));
  }
  legend += "</figcaption>\n";
  return svg + legend;
}

nlohmann::json line_chart_spec(const LineChart& chart) {
  nlohmann::json series = nlohmann::json::array();
  for (const ChartSeries& s : chart.series) {
    nlohmann::json values = nlohmann::json::array();
    for (double v : s.values)
      values.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
    series.push_back({{"label", s.label}, {"values", values}, {"dashed", s.dashed}});
  }
  return {{"title", chart.title}, {"x_label", chart.x_label}, {"y_label", chart.y_label},
          {"x", chart.x},         {"series", series},         {"log_x", chart.log_x}};
}

std::string memory_bar_html(const MemoryBreakdown& memory) {
  if (memory.extent <= 0)
    return "<p class=\"muted\">No memory budget in this document.</p>\n";
  auto pct = [&](double gib) { return fmt::format("{:.3f}%", gib / memory.extent * 100); };
  std::string bar = "<div class=\"membar\" role=\"img\" aria-label=\"memory budget per GPU\">";
  for (const MemoryPart& p : memory.rows) {
    const bool stacked = !p.total && p.item != memory.extent_item;
    if (!stacked)
      continue;
    bar += fmt::format(
        "<div class=\"seg src-{}\" style=\"width:{}\" title=\"{} — {} GiB ({})\"><span>{} "
        "{}</span></div>",
        html_escape(p.source), pct(p.gib), html_escape(p.item), number_text(p.gib, 2),
        html_escape(p.source), html_escape(p.item), number_text(p.gib, 2));
  }
  if (memory.extent > memory.stacked + 1e-9) {
    bar += fmt::format(
        "<div class=\"seg rest\" style=\"width:{}\" title=\"rest of {} — {} GiB\"><span>rest "
        "{}</span></div>",
        pct(memory.extent - memory.stacked), html_escape(memory.extent_item),
        number_text(memory.extent - memory.stacked, 2),
        number_text(memory.extent - memory.stacked, 2));
  }
  bar += "</div>\n";
  std::string brackets;
  for (const MemoryPart& p : memory.rows) {
    if (!p.total)
      continue;
    brackets += fmt::format(
        "<div class=\"bracket\" style=\"margin-left:{};width:{}\"><span>{} = {} GiB "
        "({})</span></div>\n",
        pct(p.offset), pct(p.gib), html_escape(p.item), number_text(p.gib, 2),
        html_escape(p.source));
  }
  if (!memory.extent_item.empty()) {
    brackets +=
        fmt::format("<div class=\"bracket\" style=\"width:100%\"><span>{} = {} GiB</span></div>\n",
                    html_escape(memory.extent_item), number_text(memory.extent, 2));
  }
  return bar + brackets;
}

std::string waterfall_svg(double a, double b, const std::string& a_text, const std::string& b_text,
                          const std::vector<WaterfallBar>& steps) {
  constexpr double w = 640, row = 26, label_w = 200;
  double top = std::max({a, b, 0.0});
  double low = std::min({a, b, 0.0});
  for (const WaterfallBar& s : steps) {
    top = std::max({top, s.from, s.to});
    low = std::min({low, s.from, s.to});
  }
  const double span = top - low > 0 ? top - low : 1;
  auto px = [&](double v) { return label_w + (v - low) / span * (w - label_w - 90); };
  std::string svg = fmt::format(
      "<svg class=\"waterfall\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"waterfall\">\n", w,
      row * static_cast<double>(steps.size() + 2) + 8);
  auto bar = [&](int i, double from, double to, const std::string& cls, const std::string& label,
                 const std::string& value) {
    const double x0 = px(std::min(from, to)), x1 = px(std::max(from, to));
    const double y = 4 + i * row;
    svg += fmt::format(
        "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" />"
        "<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>\n",
        num(label_w - 6), num(y + 16), html_escape(label), cls, num(x0), num(y + 3),
        num(std::max(1.0, x1 - x0)), num(row - 8), num(x1 + 4), num(y + 16), html_escape(value));
  };
  bar(0, 0, a, "wf-a", "A", a_text);
  int i = 1;
  for (const WaterfallBar& s : steps) {
    const double d = s.to - s.from;
    bar(i++, s.from, s.to, d >= 0 ? "wf-up" : "wf-down",
        s.label.size() > 34 ? s.label.substr(0, 33) + "…" : s.label,
        (d >= 0 ? "+" : "−") + number_text(std::fabs(d), std::fabs(d) < 10 ? 2 : 0));
  }
  bar(i, 0, b, "wf-b", "B", b_text);
  svg += "</svg>\n";
  return svg;
}

std::string interval_svg(double low, double high, double predicted, double logged, bool match) {
  constexpr double w = 180, h = 18, pad = 6;
  double lo = std::min({low, high, predicted, logged});
  double hi = std::max({low, high, predicted, logged});
  if (hi - lo <= std::fabs(hi) * 1e-9) {
    lo -= std::max(1.0, std::fabs(lo) * 0.01);
    hi += std::max(1.0, std::fabs(hi) * 0.01);
  }
  auto px = [&](double v) { return pad + (v - lo) / (hi - lo) * (w - 2 * pad); };
  return fmt::format(
      "<svg class=\"interval\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"predicted interval and logged value\">"
      "<line class=\"axis\" x1=\"{2}\" y1=\"9\" x2=\"{3}\" y2=\"9\" />"
      "<rect class=\"iv\" x=\"{4}\" y=\"4\" width=\"{5}\" height=\"10\" />"
      "<line class=\"pred\" x1=\"{6}\" y1=\"2\" x2=\"{6}\" y2=\"16\" />"
      "<circle class=\"{7}\" cx=\"{8}\" cy=\"9\" r=\"4\" /></svg>",
      w, h, num(pad), num(w - pad), num(px(low)), num(std::max(2.0, px(high) - px(low))),
      num(px(predicted)), match ? "logged ok" : "logged miss", num(px(logged)));
}

std::string timeline_svg(const std::vector<TimelineBar>& bars) {
  double total = 0;
  for (const TimelineBar& b : bars)
    total += std::max(0.0, b.seconds);
  if (total <= 0)
    total = 1;
  constexpr double w = 640, row = 22, label_w = 48;
  std::string svg = fmt::format(
      "<svg class=\"timeline\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"experiments over "
      "time\">\n",
      w, row * static_cast<double>(bars.size()) + 24);
  double t = 0;
  auto px = [&](double s) { return label_w + s / total * (w - label_w - 70); };
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = 2 + static_cast<double>(i) * row;
    const double d = std::max(0.0, bars[i].seconds);
    svg += fmt::format(
        "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"tl-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} · {} "
        "s</title></rect><text class=\"value\" x=\"{}\" y=\"{}\">{} s</text>\n",
        num(label_w - 6), num(y + 15), html_escape(bars[i].label), html_escape(bars[i].css_class),
        num(px(t)), num(y + 3), num(std::max(1.0, px(t + d) - px(t))), num(row - 6),
        html_escape(bars[i].label), number_text(d, 1), num(px(t + d) + 4), num(y + 15),
        number_text(d, 1));
    t += d;
  }
  svg += fmt::format(
      "<text class=\"label\" x=\"{}\" y=\"{}\">0 s</text><text class=\"label\" x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">{} s</text>\n",
      num(label_w), num(row * static_cast<double>(bars.size()) + 18), num(px(total)),
      num(row * static_cast<double>(bars.size()) + 18), number_text(total, 1));
  svg += "</svg>\n";
  return svg;
}

}  // namespace servescope
