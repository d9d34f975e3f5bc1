// The SVG of `boids sweep --plot` (cli/sweep.hpp): one panel per metric, the mean over
// repeats of each run's window mean against the first varied key, error bars of one standard
// deviation over repeats, one coloured line per combination of the other varied keys.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "boids/world.hpp"
#include "cli/sweep.hpp"

namespace boids::cli {
namespace {

constexpr const char* kColours[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                     "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

struct Point {
  double x, mean, sd;
};

}  // namespace

void write_sweep_plot(const std::string& path, const std::vector<std::string>& keys,
                      const std::vector<SweepRow>& rows) {
  // x positions: the first key's values as numbers, or their order when one is not a number.
  std::vector<std::string> xs;
  for (const SweepRow& r : rows) {
    if (std::find(xs.begin(), xs.end(), r.values[0]) == xs.end()) xs.push_back(r.values[0]);
  }
  bool numeric = true;
  std::map<std::string, double> xval;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double v = 0;
    const auto res = std::from_chars(xs[i].data(), xs[i].data() + xs[i].size(), v);
    numeric = numeric && res.ec == std::errc() && res.ptr == xs[i].data() + xs[i].size();
    xval[xs[i]] = v;
  }
  if (!numeric) {
    for (std::size_t i = 0; i < xs.size(); ++i) xval[xs[i]] = double(i);
  }
  // Series: the values of the other keys; per series and x, the repeats' means.
  std::vector<std::string> series;
  std::map<std::string, std::map<std::string, std::vector<const SweepRow*>>> groups;
  for (const SweepRow& r : rows) {
    std::string label;
    for (std::size_t k = 1; k < keys.size(); ++k) {
      label += (k > 1 ? ", " : "") + keys[k] + " = " + r.values[k];
    }
    if (!groups.count(label)) series.push_back(label);
    groups[label][r.values[0]].push_back(&r);
  }
  const int cols = 2, panel_w = 420, panel_h = 260, margin = 60;
  const int width = cols * panel_w + 20;
  const int height = 4 * panel_h + 40 + 18 * int(series.size() > 1 ? series.size() : 0);
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n";
  double xmin = INFINITY, xmax = -INFINITY;
  for (const auto& [s, x] : xval) {
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
  }
  if (!(xmax > xmin)) {
    xmin -= 1;
    xmax += 1;
  }
  for (int m = 0; m < kSweepMetrics; ++m) {
    const int ox = (m % cols) * panel_w + 10, oy = (m / cols) * panel_h + 10;
    std::vector<std::vector<Point>> lines;
    double ymin = INFINITY, ymax = -INFINITY;
    for (const std::string& s : series) {
      std::vector<Point> pts;
      for (const std::string& xs_i : xs) {
        const auto it = groups[s].find(xs_i);
        if (it == groups[s].end()) continue;
        double sum = 0;
        int n = 0;
        for (const SweepRow* r : it->second) {
          if (std::isfinite(r->mean[std::size_t(m)])) {
            sum += r->mean[std::size_t(m)];
            ++n;
          }
        }
        if (n == 0) continue;
        const double mean = sum / n;
        double var = 0;
        for (const SweepRow* r : it->second) {
          const double d = r->mean[std::size_t(m)] - mean;
          if (std::isfinite(d)) var += d * d;
        }
        const double sd = std::sqrt(var / n);
        pts.push_back({xval[xs_i], mean, sd});
        ymin = std::min(ymin, mean - sd);
        ymax = std::max(ymax, mean + sd);
      }
      lines.push_back(pts);
    }
    if (!(ymax > ymin)) {
      ymin = std::isfinite(ymin) ? ymin - 0.5 : 0;
      ymax = ymin + 1;
    }
    if (ymin > 0 && ymin < 0.5 * ymax) ymin = 0;
    const double pw = panel_w - margin - 20, ph = panel_h - 60;
    const double px0 = ox + margin, py0 = oy + 20;
    auto X = [&](double x) { return px0 + (x - xmin) / (xmax - xmin) * pw; };
    auto Y = [&](double y) { return py0 + ph - (y - ymin) / (ymax - ymin) * ph; };
    svg << "<text x=\"" << px0 + pw / 2 << "\" y=\"" << oy + 12
        << "\" text-anchor=\"middle\" font-weight=\"bold\">" << sweep_metric_names()[std::size_t(m)]
        << "</text>\n";
    svg << "<rect x=\"" << px0 << "\" y=\"" << py0 << "\" width=\"" << pw << "\" height=\"" << ph
        << "\" fill=\"none\" stroke=\"#888\"/>\n";
    for (int t = 0; t <= 4; ++t) {
      const double yv = ymin + (ymax - ymin) * t / 4, xv = xmin + (xmax - xmin) * t / 4;
      svg << "<text x=\"" << px0 - 4 << "\" y=\"" << Y(yv) + 4 << "\" text-anchor=\"end\">"
          << num(yv) << "</text>\n";
      if (numeric) {
        svg << "<text x=\"" << X(xv) << "\" y=\"" << py0 + ph + 14 << "\" text-anchor=\"middle\">"
            << num(xv) << "</text>\n";
      }
    }
    if (!numeric) {
      for (const std::string& s : xs) {
        svg << "<text x=\"" << X(xval[s]) << "\" y=\"" << py0 + ph + 14
            << "\" text-anchor=\"middle\">" << esc(s) << "</text>\n";
      }
    }
    svg << "<text x=\"" << px0 + pw / 2 << "\" y=\"" << py0 + ph + 30
        << "\" text-anchor=\"middle\">" << esc(keys[0]) << "</text>\n";
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const char* colour = kColours[l % 8];
      std::string poly;
      for (const Point& q : lines[l]) {
        poly += num(X(q.x)) + "," + num(Y(q.mean)) + " ";
        svg << "<line x1=\"" << X(q.x) << "\" y1=\"" << Y(q.mean - q.sd) << "\" x2=\"" << X(q.x)
            << "\" y2=\"" << Y(q.mean + q.sd) << "\" stroke=\"" << colour << "\"/>\n";
        svg << "<circle cx=\"" << X(q.x) << "\" cy=\"" << Y(q.mean) << "\" r=\"2.5\" fill=\""
            << colour << "\"/>\n";
      }
      svg << "<polyline points=\"" << poly << "\" fill=\"none\" stroke=\"" << colour
          << "\" stroke-width=\"1.5\"/>\n";
    }
  }
  if (series.size() > 1) {
    for (std::size_t l = 0; l < series.size(); ++l) {
      const int y = 4 * panel_h + 20 + 18 * int(l);
      svg << "<rect x=\"20\" y=\"" << y - 9 << "\" width=\"12\" height=\"10\" fill=\""
          << kColours[l % 8] << "\"/><text x=\"38\" y=\"" << y << "\">" << esc(series[l])
          << "</text>\n";
    }
  }
  svg << "</svg>\n";
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << svg.str();
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw Error(path + ": cannot write here (directory missing or not writable)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path + ": cannot write here (directory missing or not writable)");
  }
}

}  // namespace boids::cli
