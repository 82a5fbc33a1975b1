// Front-end assets for the HTML reports, compiled into the binary at build time from the npm
// package report/package-lock.json pins (cmake/report_assets.cmake). Empty when the build had no
// npm or no registry: the reports then draw their charts as SVG.
#pragma once

#include <string_view>
#include <vector>

namespace servescope {

struct ReportAsset {
  std::string_view name;  // "uPlot.iife.min.js", "uPlot.min.css", "LICENSE"
  std::string_view contents;
};

struct ReportAssets {
  std::string_view uplot_version;  // "1.6.32"; empty: no charting library was built in
  std::string_view note;           // why not, when it is empty and the build knows
  std::vector<ReportAsset> files;

  /// The contents of asset `name`, empty when it was not built in.
  std::string_view find(std::string_view name) const {
    for (const ReportAsset& a : files) {
      if (a.name == name)
        return a.contents;
    }
    return {};
  }
  bool has_uplot() const { return !uplot_version.empty() && !find("uPlot.iife.min.js").empty(); }
};

const ReportAssets& report_assets();

}  // namespace servescope
