// Pieces of the HTML reports drawn in C++: escaping, and the charts as inline SVG (the line
// charts are also handed to uPlot as JSON specs when the binary has it built in; the SVG stays
// as the fallback and for printing).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_document.h"

namespace servescope {

/// & < > " ' escaped for text and attribute values.
std::string html_escape(std::string_view text);
/// A definition list of (label, HTML value) rows; a row with an empty value is left out.
std::string meta(const std::vector<std::pair<std::string, std::string>>& rows);
/// JSON that can sit inside <script type="application/json">: every '<' as \u003c.
std::string script_json(const nlohmann::json& j);

struct ChartSeries {
  std::string label;
  std::vector<double> values;  // one per x; NaN: no value there
  bool dashed = false;
};
struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<double> x;
  std::vector<ChartSeries> series;
  bool log_x = false;
};

/// The chart as an SVG with axes, ticks, a legend and one polyline (and dots) per series.
std::string line_chart_svg(const LineChart& chart);
/// The chart for the page's uPlot script: {"title","x_label","y_label","x","series":[...]}.
nlohmann::json line_chart_spec(const LineChart& chart);

/// The memory budget as a stacked bar (CSS widths, one segment per part, coloured by source)
/// with a bracket under it for each total.
std::string memory_bar_html(const MemoryBreakdown& memory);

/// A step of a waterfall: the value before and after the change `label` names.
struct WaterfallBar {
  std::string label;
  double from = 0, to = 0;
};

/// One moved output as a waterfall: A's bar, a step per change (labelled with it), B's bar.
std::string waterfall_svg(double a, double b, const std::string& a_text, const std::string& b_text,
                          const std::vector<WaterfallBar>& steps);

/// A predicted interval [low, high] with the predicted and the logged value marked.
std::string interval_svg(double low, double high, double predicted, double logged, bool match);

/// Experiments laid end to end on a time axis: (label, seconds, css class) per bar.
struct TimelineBar {
  std::string label;
  double seconds = 0;
  std::string css_class;  // "good", "bad", "culprit", "failed"
};
std::string timeline_svg(const std::vector<TimelineBar>& bars);

}  // namespace servescope
