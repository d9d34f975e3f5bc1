// A small SVG line-plot writer and the bench's two plots. Plain SVG 1.1, no scripts, no
// external fonts: it opens in any browser.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "bench/bench.hpp"

namespace boids::bench {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in data units (log axes: powers of ten)
  double map(double v, double a, double b) const {
    double t;
    if (log)
      t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    else
      t = (v - lo) / (hi - lo);
    return a + t * (b - a);
  }
  bool integer = false;
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double d = lo; d <= hi * 1.0001; d *= 10) t.push_back(d);
    } else {
      const double span = hi - lo;
      const double raw = span / 6;
      const double mag = std::pow(10.0, std::floor(std::log10(raw)));
      double step = mag;
      for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * mag >= raw) {
          step = m * mag;
          break;
        }
      }
      if (integer) step = std::max(1.0, std::round(step));
      for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step)
        t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    }
    return t;
  }
};

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

Axis make_axis(double lo, double hi, bool log) {
  Axis a;
  a.log = log;
  if (!(lo <= hi)) {
    lo = log ? 1 : 0;
    hi = log ? 10 : 1;
  }
  if (log) {
    a.lo = std::pow(10.0, std::floor(std::log10(lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
  } else {
    a.lo = std::min(0.0, lo);
    a.hi = hi > a.lo ? hi * 1.08 : a.lo + 1;
  }
  return a;
}

std::string tick_label(double v) {
  char b[32];
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3))
    std::snprintf(b, sizeof b, "1e%d", int(std::lround(std::log10(std::fabs(v)))));
  else
    std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string f1(double v) {
  char b[24];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

}  // namespace

std::string render_svg(const PlotSpec& p) {
  const double left = 80, right = 330, top = 44, bottom = 62;
  const double x0 = left, x1 = p.width - right, y0 = p.height - bottom, y1 = top;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const Series& s : p.series) {
    for (auto [x, y] : s.points) {
      if (!usable(x, p.logx) || !usable(y, p.logy)) continue;
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
      ylo = std::min(ylo, y);
      yhi = std::max(yhi, y);
    }
  }
  Axis ax = make_axis(xlo, xhi, p.logx);
  ax.integer = p.integer_x;
  const Axis ay = make_axis(ylo, yhi, p.logy);

  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << p.width << "\" height=\""
     << p.height << "\" viewBox=\"0 0 " << p.width << " " << p.height
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect x=\"0\" y=\"0\" width=\"" << p.width << "\" height=\"" << p.height
     << "\" fill=\"white\"/>\n"
     << "<text x=\"" << f1((x0 + x1) / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
     << xml_escape(p.title) << "</text>\n";
  // Grid and tick labels.
  for (double t : ax.ticks()) {
    const double x = ax.map(t, x0, x1);
    os << "<line x1=\"" << f1(x) << "\" y1=\"" << f1(y0) << "\" x2=\"" << f1(x) << "\" y2=\""
       << f1(y1) << "\" stroke=\"#dddddd\"/>\n"
       << "<text x=\"" << f1(x) << "\" y=\"" << f1(y0 + 16) << "\" text-anchor=\"middle\">"
       << xml_escape(tick_label(t)) << "</text>\n";
  }
  for (double t : ay.ticks()) {
    const double y = ay.map(t, y0, y1);
    os << "<line x1=\"" << f1(x0) << "\" y1=\"" << f1(y) << "\" x2=\"" << f1(x1) << "\" y2=\""
       << f1(y) << "\" stroke=\"#dddddd\"/>\n"
       << "<text x=\"" << f1(x0 - 6) << "\" y=\"" << f1(y + 4) << "\" text-anchor=\"end\">"
       << xml_escape(tick_label(t)) << "</text>\n";
  }
  os << "<rect x=\"" << f1(x0) << "\" y=\"" << f1(y1) << "\" width=\"" << f1(x1 - x0)
     << "\" height=\"" << f1(y0 - y1) << "\" fill=\"none\" stroke=\"#444444\"/>\n"
     << "<text x=\"" << f1((x0 + x1) / 2) << "\" y=\"" << f1(p.height - 18.0)
     << "\" text-anchor=\"middle\">" << xml_escape(p.xlabel) << "</text>\n"
     << "<text x=\"18\" y=\"" << f1((y0 + y1) / 2)
     << "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " << f1((y0 + y1) / 2) << ")\">"
     << xml_escape(p.ylabel) << "</text>\n";

  // Series and legend.
  int index = 0, legend = 0;
  for (const Series& s : p.series) {
    const std::string color =
        s.color.empty() ? kPalette[index++ % (sizeof kPalette / sizeof kPalette[0])] : s.color;
    std::string pts;
    std::vector<std::pair<double, double>> px;
    for (auto [x, y] : s.points) {
      if (!usable(x, p.logx) || !usable(y, p.logy)) continue;
      px.emplace_back(ax.map(x, x0, x1), ay.map(y, y0, y1));
      if (!pts.empty()) pts += ' ';
      pts += f1(px.back().first);
      pts += ',';
      pts += f1(px.back().second);
    }
    if (px.empty()) continue;
    os << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\""
       << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << " points=\"" << pts << "\"/>\n";
    if (s.markers) {
      for (auto [x, y] : px)
        os << "<circle cx=\"" << f1(x) << "\" cy=\"" << f1(y) << "\" r=\"3.5\" fill=\"" << color
           << "\"/>\n";
    }
    const double ly = top + 10 + 20.0 * legend++;
    os << "<line x1=\"" << f1(x1 + 14) << "\" y1=\"" << f1(ly) << "\" x2=\"" << f1(x1 + 44)
       << "\" y2=\"" << f1(ly) << "\" stroke=\"" << color << "\" stroke-width=\"2\""
       << (s.dashed ? " stroke-dasharray=\"6,4\"" : "") << "/>\n"
       << "<text x=\"" << f1(x1 + 50) << "\" y=\"" << f1(ly + 4) << "\">" << xml_escape(s.name)
       << "</text>\n";
  }
  os << "</svg>\n";
  return os.str();
}

namespace {

std::string thr_label(int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); }

// A reference line y = y_anchor * (x / x_anchor)^e from x_anchor to x_end, cut where it
// leaves the data's y range by more than a factor of 3.
Series reference(const char* name, const char* color, double xa, double ya, double x_end, int e,
                 double ymax) {
  double xe = x_end;
  const double ye = ya * std::pow(xe / xa, e);
  if (ye > 3 * ymax) xe = xa * std::pow(3 * ymax / ya, 1.0 / e);
  Series s{name, {{xa, ya}, {xe, ya * std::pow(xe / xa, e)}}, color, true, false};
  return s;
}

}  // namespace

std::vector<std::pair<std::string, PlotSpec>> make_plots(const std::vector<Result>& results) {
  std::vector<std::pair<std::string, PlotSpec>> plots;
  std::vector<std::pair<int, Precision>> groups;
  for (const Result& r : results) {
    const std::pair<int, Precision> g{r.config.dims, r.config.precision};
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  for (auto [dims, prec] : groups) {
    const std::string suffix = std::to_string(dims) + "d_" + precision_name(prec);
    const std::string what = std::to_string(dims) + "D " + precision_name(prec);
    auto in_group = [&](const Result& r) {
      return r.config.dims == dims && r.config.precision == prec;
    };

    // Time per step against n.
    PlotSpec t;
    t.title = "Time per step vs boid count (" + what + ")";
    t.xlabel = "boids n (log)";
    t.ylabel = "ms per step (log)";
    t.logx = t.logy = true;
    std::map<std::pair<int, int>, Series> by_engine;  // (variant, threads)
    Series extrap{"naive, extrapolated as n^2 (not measured)", {}, "", true, true};
    double xmax = 0, ymax = 0;
    const Result* first_naive = nullptr;
    const Result* first_grid = nullptr;
    const Result* last_naive = nullptr;
    for (const Result& r : results) {
      if (!in_group(r)) continue;
      const Config& c = r.config;
      if (r.status == Status::measured && r.ms.median > 0) {
        auto key = std::make_pair(int(c.variant), c.threads);
        Series& s = by_engine[key];
        if (s.name.empty())
          s.name = std::string(variant_name(c.variant)) +
                   (c.variant == Variant::naive ? "" : ", " + thr_label(c.threads));
        s.points.emplace_back(c.count, r.ms.median);
        xmax = std::max(xmax, double(c.count));
        ymax = std::max(ymax, r.ms.median);
        if (c.variant == Variant::naive) {
          if (!first_naive || c.count < first_naive->config.count) first_naive = &r;
          if (!last_naive || c.count > last_naive->config.count) last_naive = &r;
        } else if (c.threads == 1 && (!first_grid || c.count < first_grid->config.count)) {
          first_grid = &r;
        }
      } else if (c.variant == Variant::naive && r.extrapolated_ms > 0) {
        extrap.points.emplace_back(c.count, r.extrapolated_ms);
        xmax = std::max(xmax, double(c.count));
      }
    }
    for (auto& [key, s] : by_engine) {
      std::sort(s.points.begin(), s.points.end());
      t.series.push_back(s);
    }
    if (!extrap.points.empty()) {
      if (last_naive) extrap.points.emplace_back(last_naive->config.count, last_naive->ms.median);
      std::sort(extrap.points.begin(), extrap.points.end());
      t.series.push_back(extrap);
    }
    if (first_naive)
      t.series.push_back(reference("O(n^2) slope", "#444444", first_naive->config.count,
                                   first_naive->ms.median, xmax, 2, ymax));
    const Result* lin = first_grid ? first_grid : first_naive;
    if (lin)
      t.series.push_back(
          reference("O(n) slope", "#aaaaaa", lin->config.count, lin->ms.median, xmax, 1, ymax));
    if (!by_engine.empty()) plots.emplace_back("time_per_step_" + suffix + ".svg", t);

    // Speedup against threads (grid engines; one series per engine and n).
    PlotSpec sp;
    sp.title = "Speedup over 1 thread (" + what + ")";
    sp.xlabel = "threads";
    sp.ylabel = "speedup over the same engine on 1 thread";
    sp.integer_x = true;
    std::map<std::pair<int, std::uint32_t>, Series> curves;
    int max_threads = 1;
    for (const Result& r : results) {
      if (!in_group(r) || r.config.variant == Variant::naive || r.speedup_1t <= 0) continue;
      auto key = std::make_pair(int(r.config.variant), r.config.count);
      Series& s = curves[key];
      if (s.name.empty())
        s.name = std::string(variant_name(r.config.variant)) + ", n=" + short_count(r.config.count);
      s.points.emplace_back(r.config.threads, r.speedup_1t);
      max_threads = std::max(max_threads, r.config.threads);
    }
    std::erase_if(curves, [](const auto& kv) { return kv.second.points.size() < 2; });
    if (!curves.empty() && max_threads > 1) {
      for (auto& [key, s] : curves) {
        std::sort(s.points.begin(), s.points.end());
        sp.series.push_back(s);
      }
      sp.series.push_back(Series{"ideal (speedup = threads)",
                                 {{1, 1}, {max_threads, max_threads}},
                                 "#888888",
                                 true,
                                 false});
      plots.emplace_back("speedup_threads_" + suffix + ".svg", sp);
    }
  }
  return plots;
}

}  // namespace boids::bench
