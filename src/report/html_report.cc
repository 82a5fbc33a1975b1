#include "report/html_report.h"

#include <fmt/format.h>

#include "report/html_sections.h"

namespace servescope {
namespace {

constexpr std::string_view kStyle = R"css(
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d5dae0;--panel:#f5f7f9;--ok:#1a7f37;
--bad:#c0362c;--warn:#9a6700;--c0:#2f6fdf;--c1:#d6612b;--c2:#2e9a5d;--c3:#8c4fd1;--c4:#c23d7a;
--c5:#6b7785;--flag:#2f6fdf;--rule:#2e9a5d;--calibration:#8c4fd1;--log:#8c4fd1;--estimate:#d69a2b;
--catalog:#6b7785;--rest:#e6e9ed;--hl:#fff4d6}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--fg:#e3e7ec;--muted:#9aa4b1;--line:#2d333b;
--panel:#1a1f25;--ok:#4ac26b;--bad:#ff7b72;--warn:#d29922;--c0:#6ea8fe;--c1:#f0884f;
--c2:#56d08a;--c3:#b78cff;--c4:#f07aae;--c5:#9aa4b1;--flag:#6ea8fe;--rule:#56d08a;
--calibration:#b78cff;--log:#b78cff;--estimate:#e0b050;--catalog:#9aa4b1;--rest:#262c33;
--hl:#3a3000}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:14px;margin:16px 0 6px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.culprit td{background:var(--hl);font-weight:600}tr.miss td{background:var(--hl)}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
.meta dt{color:var(--muted)}.meta dd{margin:0}
.note{background:var(--panel);border-left:3px solid var(--warn);padding:6px 10px;margin:8px 0}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;border:1px solid currentColor}
.membar{display:flex;height:34px;border:1px solid var(--line);border-radius:4px;overflow:hidden;margin:8px 0 4px}
.seg{height:100%;overflow:hidden;white-space:nowrap;font-size:11.5px;color:#fff;padding:8px 4px;
border-right:1px solid var(--bg);background:var(--c5)}
.seg span{text-shadow:0 0 2px rgba(0,0,0,.6)}
.src-flag{background:var(--flag)}.src-rule{background:var(--rule)}.src-calibration{background:var(--calibration)}
.src-log{background:var(--log)}.src-catalog{background:var(--catalog)}
.src-estimate{background:repeating-linear-gradient(45deg,var(--estimate) 0 8px,color-mix(in srgb,var(--estimate) 75%,#000) 8px 12px)}
.seg.rest{background:var(--rest);color:var(--muted)}.seg.rest span{text-shadow:none}
.bracket{border:1px solid var(--muted);border-top:none;height:8px;margin:0 0 16px;position:relative;font-size:11.5px;color:var(--muted)}
.bracket span{position:absolute;top:8px;left:4px;white-space:nowrap}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:baseline}
figure.chart{margin:8px 0 16px;content-visibility:auto;contain-intrinsic-size:auto 340px}
svg{max-width:100%;height:auto}
svg text{fill:var(--fg);font-size:11px}svg .tick{fill:var(--muted)}svg .label{fill:var(--muted)}
svg .grid{stroke:var(--line)}svg .axis{stroke:var(--muted)}
.series polyline{fill:none;stroke-width:2}.series.dashed polyline{stroke-dasharray:6 4}
.s0{stroke:var(--c0);fill:var(--c0)}.s1{stroke:var(--c1);fill:var(--c1)}.s2{stroke:var(--c2);fill:var(--c2)}
.s3{stroke:var(--c3);fill:var(--c3)}.s4{stroke:var(--c4);fill:var(--c4)}.s5{stroke:var(--c5);fill:var(--c5)}
.series polyline{fill:none}
.legend{font-size:12px;color:var(--muted)}.key{margin-right:12px;white-space:nowrap}
.key i{display:inline-block;width:18px;height:0;border-top:2px solid;vertical-align:middle;margin-right:4px}
.key.dashed i{border-top-style:dashed}
.key.s0 i{color:var(--c0)}.key.s1 i{color:var(--c1)}.key.s2 i{color:var(--c2)}.key.s3 i{color:var(--c3)}.key.s4 i{color:var(--c4)}.key.s5 i{color:var(--c5)}
.key{fill:none;stroke:none}
.wf-a,.wf-b{fill:var(--c5)}.wf-up{fill:var(--ok)}.wf-down{fill:var(--bad)}
.tl-good{fill:var(--ok)}.tl-bad{fill:var(--bad)}.tl-culprit{fill:var(--warn)}.tl-other{fill:var(--c5)}
.interval .iv{fill:color-mix(in srgb,var(--c0) 30%,transparent)}.interval .pred{stroke:var(--c0);stroke-width:2}
.interval .logged.ok{fill:var(--ok)}.interval .logged.miss{fill:var(--bad)}
.tree,.tree ul{list-style:none;padding-left:18px;margin:2px 0}.tree{padding-left:0}
details>summary{cursor:pointer}details p{margin:2px 0 2px 18px;color:var(--muted)}
.rule{color:var(--c3);font-weight:600}.srcloc{color:var(--muted)}
.uplot-holder{margin-bottom:4px}.has-uplot>svg.chart-svg,.has-uplot>.legend{display:none}
.u-legend{color:var(--fg)}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{body{max-width:none;padding:0;font-size:11px}details{break-inside:avoid}
figure.chart{content-visibility:visible}
.uplot-holder{display:none}.has-uplot>svg.chart-svg,.has-uplot>.legend{display:block}
tr,figure{break-inside:avoid}a{color:inherit;text-decoration:none}}
)css";

// Draws each figure's chart with uPlot (when inlined), colours from the page's CSS variables;
// the SVG drawn in C++ stays for printing. Before printing every <details> opens. The charts on
// the first screen are drawn before the page's load event; the others as they come within a
// screen of the viewport (a 1,000-point bench sweep has 1,003 charts: drawn at once they took
// 20 s to open, bench/report_load.sh), and offscreen figures skip layout (content-visibility).
// Each drawn chart is listed in window.__servescopeCharts (its spec index, title and uPlot
// instance) and its figure says what uPlot holds (data-series: series beside x, data-points: x
// values), which the browser tests (tests/browser/) hold against the --json document.
constexpr std::string_view kChartScript = R"js(
(function(){
  var specs=JSON.parse(document.getElementById('chart-specs').textContent);
  var drawn=window.__servescopeCharts=[];
  if(typeof uPlot==='undefined')return;
  var css=getComputedStyle(document.documentElement);
  function v(n){return css.getPropertyValue(n).trim();}
  var colors=[0,1,2,3,4,5].map(function(i){return v('--c'+i);});
  function draw(fig,width){
    if(fig.classList.contains('has-uplot'))return;
    var spec=specs[+fig.getAttribute('data-chart')];
    var data=[spec.x].concat(spec.series.map(function(s){return s.values;}));
    var series=[{label:spec.x_label}].concat(spec.series.map(function(s,i){
      return {label:s.label,stroke:colors[i%6],width:2,dash:s.dashed?[6,4]:undefined,
              points:{show:true,size:6},spanGaps:true};}));
    var holder=document.createElement('div');holder.className='uplot-holder';
    fig.insertBefore(holder,fig.firstChild);fig.classList.add('has-uplot');
    var axis={stroke:v('--muted'),grid:{stroke:v('--line')},ticks:{stroke:v('--line')}};
    var u=new uPlot({title:spec.title,width:Math.max(320,Math.min(width||640,1000)),height:280,
      series:series,scales:{x:{time:false,distr:spec.log_x?3:1}},
      axes:[Object.assign({label:spec.x_label},axis),Object.assign({label:spec.y_label},axis)]},
      data,holder);
    fig.setAttribute('data-series',String(u.series.length-1));
    fig.setAttribute('data-points',String(u.data[0].length));
    drawn.push({chart:+fig.getAttribute('data-chart'),title:spec.title,plot:u});
  }
  // Every size is read before any chart is drawn: a read after a draw would lay the whole page
  // out again (100 ms a chart on a 1,000-point sweep).
  function drawAll(list){
    var widths=list.map(function(fig){return fig.clientWidth;});
    list.forEach(function(fig,i){draw(fig,widths[i]);});
  }
  var figs=Array.prototype.slice.call(document.querySelectorAll('figure.chart[data-chart]'));
  var io='IntersectionObserver' in window?new IntersectionObserver(function(entries){
    var near=entries.filter(function(e){return e.isIntersecting;}).map(function(e){return e.target;});
    near.forEach(function(fig){io.unobserve(fig);});
    drawAll(near);
  },{rootMargin:'100% 0px'}):null;
  var screen=window.innerHeight||900,first=[],below=!io;
  figs.forEach(function(fig){
    below=below||fig.getBoundingClientRect().top>=screen;
    if(io&&below)io.observe(fig);else first.push(fig);
  });
  drawAll(first);
})();
)js";

constexpr std::string_view kPrintScript =
    "window.addEventListener('beforeprint',function(){document.querySelectorAll('details')"
    ".forEach(function(d){d.open=true;});});";

/// Inline <script> text cannot contain "</script" (uPlot's minified code holds no "</" at all;
/// this guards a future version, where it could only sit inside a string literal).
std::string script_safe(std::string_view code) {
  std::string out(code);
  for (std::size_t at = out.find("</script"); at != std::string::npos;
       at = out.find("</script", at + 3))
    out.replace(at, 2, "<\\/");
  return out;
}

}  // namespace

std::string ChartList::add(const LineChart& chart) {
  const std::size_t index = specs_.size();
  specs_.push_back(line_chart_spec(chart));
  return fmt::format("<figure class=\"chart\" data-chart=\"{}\">\n{}</figure>\n", index,
                     line_chart_svg(chart));
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<std::string>& row_classes) {
  std::string out = "<table>\n<thead><tr>";
  for (const std::string& h : header)
    out += "<th>" + h + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string cls = r < row_classes.size() ? row_classes[r] : "";
    out += cls.empty() ? "<tr>" : "<tr class=\"" + cls + "\">";
    for (const std::string& cell : rows[r])
      out += "<td>" + cell + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string render_html_report(const nlohmann::json& doc, ReportKind kind,
                               const ReportAssets& assets) {
  ChartList charts;
  std::string body;
  switch (kind) {
    case ReportKind::kPlan:
      body = html_plan_body(doc);
      break;
    case ReportKind::kCheck:
      body = html_check_body(doc);
      break;
    case ReportKind::kDiff:
      body = html_diff_body(doc);
      break;
    case ReportKind::kBench:
      body = html_bench_body(doc, charts);
      break;
    case ReportKind::kBisect:
      body = html_bisect_body(doc);
      break;
    case ReportKind::kExplain:
      body = html_explain_body(doc);
      break;
    case ReportKind::kWhy:
      body = html_why_body(doc);
      break;
    case ReportKind::kLogs:
      body = html_logs_body(doc, charts);
      break;
    case ReportKind::kCompare:
      body = html_compare_body(doc);
      break;
    case ReportKind::kFit:
      body = html_fit_body(doc, charts);
      break;
  }
  const bool uplot = assets.has_uplot() && !charts.specs().empty();
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n";
  page += "<meta name=\"color-scheme\" content=\"light dark\" />\n";
  page += fmt::format("<meta name=\"generator\" content=\"servescope report ({})\" />\n",
                      report_kind_name(kind));
  page += "<title>" + html_escape(report_title(doc, kind)) + "</title>\n";
  page += "<style>" + std::string(kStyle) + "</style>\n";
  if (uplot) {
    page += fmt::format("<style id=\"uplot-css\">/* uPlot {} (MIT) */\n{}</style>\n",
                        assets.uplot_version, assets.find("uPlot.min.css"));
  }
  page += "</head>\n<body>\n";
  page += "<h1>" + html_escape(report_title(doc, kind)) + "</h1>\n";
  if (!charts.specs().empty() && !uplot) {
    page += fmt::format(
        "<p class=\"note\" id=\"svg-fallback\">Charts are drawn as static SVG: this servescope "
        "was built without its charting library (uPlot){}.</p>\n",
        assets.note.empty() ? "" : " — " + html_escape(assets.note));
  }
  page += body;
  page += fmt::format(
      "<footer>Rendered by servescope report from the {} --json document alone; self-contained "
      "(nothing is fetched when it is opened){}.</footer>\n",
      report_kind_name(kind),
      uplot ? fmt::format("; charts by uPlot {} (MIT licence, inlined)", assets.uplot_version)
            : "");
  if (!charts.specs().empty()) {
    page += "<script type=\"application/json\" id=\"chart-specs\">" + script_json(charts.specs()) +
            "</script>\n";
  }
  if (uplot) {
    std::string licence(assets.find("LICENSE"));
    for (std::size_t at = licence.find("*/"); at != std::string::npos; at = licence.find("*/"))
      licence.replace(at, 2, "* /");
    page +=
        fmt::format("<script id=\"uplot-js\">/*\nuPlot {}\n{}*/\n{}</script>\n",
                    assets.uplot_version, licence, script_safe(assets.find("uPlot.iife.min.js")));
    page += "<script>" + std::string(kChartScript) + "</script>\n";
  }
  page += "<script>" + std::string(kPrintScript) + "</script>\n";
  page += "</body>\n</html>\n";
  return page;
}

Result<std::string> render_html_report(const nlohmann::json& doc) {
  auto kind = detect_report_kind(doc);
  if (!kind)
    return kind.error();
  return render_html_report(doc, *kind, report_assets());
}

}  // namespace servescope
