#include "viewer/metrics_plot.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "imgui.h"

namespace boids::view {

void MetricsPlot::push(const MetricsSample& s) {
  if (!samples_.empty() && s.step <= samples_.back().step) samples_.clear();  // reset, seek
  samples_.push_back(s);
  while (samples_.size() > kMaxSamples) samples_.pop_front();
}

void MetricsPlot::draw_panel() {
  if (samples_.empty()) {
    ImGui::TextWrapped(
        "No metrics yet (computed with every published state up to 200,000 boids, and "
        "with at most a tenth of the simulation's time above).");
    return;
  }
  std::vector<float> v(samples_.size());
  auto plot = [&](const char* name, double MetricsSample::*field, float lo, float hi) {
    for (std::size_t i = 0; i < samples_.size(); ++i) v[i] = float(samples_[i].*field);
    char label[64];
    std::snprintf(label, sizeof label, "%s %.3g", name, v.back());
    ImGui::PlotLines(label, v.data(), int(v.size()), 0, nullptr, lo, hi, ImVec2(0, 50));
  };
  plot("polarization", &MetricsSample::polarization, 0.0f, 1.0f);
  plot("milling", &MetricsSample::milling, 0.0f, 1.0f);
  float cmax = 1;
  for (const MetricsSample& s : samples_) cmax = std::max(cmax, float(s.clusters));
  plot("clusters", &MetricsSample::clusters, 0.0f, cmax);
  if (ImGui::Button("export SVG")) {
    const std::string err = write_svg("boids-view-metrics.svg");
    note_ = err.empty() ? "saved boids-view-metrics.svg" : err;
  }
  if (!note_.empty()) ImGui::TextWrapped("%s", note_.c_str());
}

std::string MetricsPlot::write_svg(const std::string& path) const {
  if (samples_.empty()) return "no metrics to export";
  const double W = 640, H = 150, pad = 40;
  const double s0 = double(samples_.front().step), s1 = double(samples_.back().step);
  const double span = std::max(s1 - s0, 1.0);
  double cmax = 1;
  for (const MetricsSample& s : samples_) cmax = std::max(cmax, s.clusters);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(W)) +
                    "\" height=\"" + std::to_string(int(3 * H)) + "\">\n";
  struct Series {
    const char* name;
    double MetricsSample::*field;
    double max;
    const char* colour;
  };
  const Series series[3] = {{"polarization", &MetricsSample::polarization, 1.0, "#3a7bd5"},
                            {"milling", &MetricsSample::milling, 1.0, "#2ca02c"},
                            {"clusters", &MetricsSample::clusters, cmax, "#d62728"}};
  char buf[160];
  for (int k = 0; k < 3; ++k) {
    const double top = k * H;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"4\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">%s "
                  "(0 .. %g)</text>\n",
                  top + 14, series[k].name, series[k].max);
    out += buf;
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
                  "stroke=\"#999\"/>\n",
                  pad, top + 20, W - 2 * pad, H - 30);
    out += buf;
    out += "<polyline fill=\"none\" stroke=\"" + std::string(series[k].colour) + "\" points=\"";
    for (const MetricsSample& s : samples_) {
      const double x = pad + (double(s.step) - s0) / span * (W - 2 * pad);
      const double y = top + H - 10 - (s.*series[k].field) / series[k].max * (H - 30);
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x, y);
      out += buf;
    }
    out += "\"/>\n";
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.0f\" y=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">steps "
                "%.0f .. %.0f</text>\n</svg>\n",
                pad, 3 * H - 2, s0, s1);
  out += buf;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return path + ": cannot write";
  const bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  return std::fclose(f) == 0 && ok ? "" : path + ": cannot write";
}

}  // namespace boids::view
