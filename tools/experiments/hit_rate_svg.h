// HitRateSvg: draws hit rate against cache size, one line per policy, as a
// standalone SVG document (the analog of Stevens & Chen's Figure 1), with
// optional vertical markers (e.g. the devices running at once). No plotting
// library: the document is assembled as text.
//
// A plain function over caller-owned data.

#ifndef TOOLS_EXPERIMENTS_HIT_RATE_SVG_H_
#define TOOLS_EXPERIMENTS_HIT_RATE_SVG_H_

#include <string>
#include <vector>

namespace net {

struct HitRateSeries {
  std::string name;   // legend label, e.g. "pred"
  std::string color;  // CSS color
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (cache size, hit rate 0..1)
};

struct HitRateMarker {
  double x;           // cache size
  std::string label;  // drawn beside the line
};

// HitRateSvg returns the SVG text. |title| and |x_label| are escaped.
std::string HitRateSvg(const std::string& title, const std::string& x_label,
                       const std::vector<HitRateSeries>& series,
                       const std::vector<HitRateMarker>& markers);

}  // namespace net

#endif  // TOOLS_EXPERIMENTS_HIT_RATE_SVG_H_
