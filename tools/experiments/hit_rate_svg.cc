#include "tools/experiments/hit_rate_svg.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "net/timing/xml_escape.h"

namespace net {
namespace {

constexpr double kWidth = 760, kHeight = 480;
constexpr double kLeft = 70, kRight = 150, kTop = 40, kBottom = 60;

// A "nice" tick step (1, 2 or 5 times a power of ten) for about |n| ticks.
double NiceStep(double range, int n) {
  double raw = range / n;
  double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string HitRateSvg(const std::string& title, const std::string& x_label,
                       const std::vector<HitRateSeries>& series,
                       const std::vector<HitRateMarker>& markers) {
  double x_max = 1;
  for (const auto& s : series) {
    for (const auto& [x, y] : s.points) x_max = std::max(x_max, x);
  }
  const double step = NiceStep(x_max, 8);
  x_max = std::ceil(x_max / step) * step;
  const double plot_w = kWidth - kLeft - kRight,
               plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + x / x_max * plot_w; };
  auto py = [&](double y) { return kTop + (1 - y) * plot_h; };

  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      kWidth, kHeight, kWidth, kHeight);
  absl::StrAppend(
      &svg, absl::StrFormat("<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" "
                            "font-size=\"15\">%s</text>\n",
                            kLeft + plot_w / 2, XmlEscape(title)));
  // Grid and axes.
  for (int i = 0; i <= 10; ++i) {
    double y = i / 10.0;
    absl::StrAppend(
        &svg,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#e4e4e4\"/>\n",
                        kLeft, py(y), kLeft + plot_w, py(y)));
    absl::StrAppend(
        &svg, absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                              "%.0f%%</text>\n",
                              kLeft - 6, py(y) + 4, y * 100));
  }
  for (double x = 0; x <= x_max + step / 2; x += step) {
    absl::StrAppend(
        &svg,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#e4e4e4\"/>\n",
                        px(x), kTop, px(x), kTop + plot_h));
    absl::StrAppend(
        &svg,
        absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                        "%g</text>\n",
                        px(x), kTop + plot_h + 18, x));
  }
  absl::StrAppend(
      &svg, absl::StrFormat(
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"none\" stroke=\"#333\"/>\n",
                kLeft, kTop, plot_w, plot_h));
  absl::StrAppend(
      &svg,
      absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
                      "</text>\n",
                      kLeft + plot_w / 2, kHeight - 18, XmlEscape(x_label)));
  absl::StrAppend(
      &svg,
      absl::StrFormat("<text transform=\"translate(18 %.1f) rotate(-90)\" "
                      "text-anchor=\"middle\">hit rate</text>\n",
                      kTop + plot_h / 2));
  // Markers.
  int m = 0;
  for (const auto& marker : markers) {
    if (marker.x < 0 || marker.x > x_max) continue;
    absl::StrAppend(
        &svg,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n",
                        px(marker.x), kTop, px(marker.x), kTop + plot_h));
    absl::StrAppend(
        &svg, absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\" "
                              "font-size=\"11\">%s</text>\n",
                              px(marker.x) + 4, kTop + plot_h - 8 - 14 * m++,
                              XmlEscape(marker.label)));
  }
  // Series and legend.
  int row = 0;
  for (const auto& s : series) {
    std::string points;
    for (const auto& [x, y] : s.points) {
      absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", px(x), py(y)));
    }
    std::string dash = s.dashed ? " stroke-dasharray=\"6 4\"" : "";
    absl::StrAppend(
        &svg,
        absl::StrFormat("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                        "stroke-width=\"2\"%s/>\n",
                        points, s.color, dash));
    for (const auto& [x, y] : s.points) {
      absl::StrAppend(
          &svg, absl::StrFormat("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
                                "fill=\"%s\"/>\n",
                                px(x), py(y), s.color));
    }
    double ly = kTop + 12 + 20 * row++;
    double lx = kLeft + plot_w + 16;
    absl::StrAppend(
        &svg,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                        lx, ly, lx + 24, ly, s.color, dash));
    absl::StrAppend(&svg,
                    absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                                    lx + 30, ly + 4, XmlEscape(s.name)));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace net
