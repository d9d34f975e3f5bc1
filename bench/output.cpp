// CSV, JSON and the end-of-run table.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "bench/bench.hpp"

namespace boids::bench {

namespace {

std::string num(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string json_num(double v) {
  const std::string s = num(v);
  return s.empty() ? "null" : s;
}

// A flat JSON object writer: fields in insertion order.
class Obj {
 public:
  explicit Obj(std::string indent) : indent_(std::move(indent)) {}
  Obj& str(const char* k, std::string_view v) { return raw(k, json_string(v)); }
  Obj& num(const char* k, double v) { return raw(k, json_num(v)); }
  Obj& boolean(const char* k, bool v) { return raw(k, v ? "true" : "false"); }
  Obj& raw(const char* k, const std::string& v) {
    body_ += (body_.empty() ? "" : ",\n") + indent_ + "  " + json_string(k) + ": " + v;
    return *this;
  }
  std::string done() const { return "{\n" + body_ + "\n" + indent_ + "}"; }

 private:
  std::string indent_, body_;
};

}  // namespace

std::string si(double v) {
  if (!std::isfinite(v)) return "-";
  const char* units[] = {"", "k", "M", "G", "T", "P"};
  int u = 0;
  double a = std::fabs(v);
  while (a >= 999.95 && u < 5) {
    a /= 1000;
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf,
                a >= 99.95   ? "%.0f%s"
                : a >= 9.995 ? "%.1f%s"
                             : "%.2f%s",
                v, units[u]);
  return buf;
}

std::string short_count(double n) {
  const char* unit = "";
  if (n >= 1e6) {
    n /= 1e6;
    unit = "M";
  } else if (n >= 1e3) {
    n /= 1e3;
    unit = "k";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g%s", n, unit);
  return buf;
}

void write_csv(std::ostream& os, const std::vector<Result>& results) {
  os << "engine,kernel,dims,precision,count,threads,status,ms_per_step_median,ms_q1,ms_q3,"
        "ms_min,ms_max,cpu_ms_per_step,reps,steps_per_rep,warmup,boid_steps_per_s,candidates_per_"
        "step,"
        "neighbours_per_step,candidates_per_s,neighbours_per_s,speedup_vs_naive,"
        "speedup_vs_naive_extrapolated,speedup_vs_1_thread,parallel_efficiency,bytes_per_boid,"
        "engine_memory_bytes,peak_rss_bytes,peak_rss_per_config,probe_isa,probe_pairs_per_s,"
        "probe_fraction,extrapolated_ms_per_step,world_size,setup_ms,note,kernel_ms_per_pass,"
        "kernel_candidates_per_s,kernel_probe_fraction,useful_per_s_per_core,useful_fraction,"
        "peak_rss_bytes_per_boid,workload,ratio_vs_reference\n";
  for (const Result& r : results) {
    const Config& c = r.config;
    const bool m = r.status == Status::measured;
    auto mnum = [&](double v) { return m ? num(v) : std::string(); };
    const bool k = m && r.kernel_ms.n > 0;  // the kernel was timed alone (grid engines)
    auto knum = [&](double v) { return k ? num(v) : std::string(); };
    os << variant_name(c.variant) << ',' << csv_field(r.kernel) << ',' << c.dims << ','
       << precision_name(c.precision) << ',' << c.count << ',' << c.threads << ','
       << status_name(r.status) << ',' << mnum(r.ms.median) << ',' << mnum(r.ms.q1) << ','
       << mnum(r.ms.q3) << ',' << mnum(r.ms.min) << ',' << mnum(r.ms.max) << ',' << mnum(r.cpu_ms)
       << ',' << r.reps << ',' << r.steps_per_rep << ',' << r.warmup << ','
       << mnum(r.boid_steps_per_s()) << ',' << (m ? std::to_string(r.candidates) : "") << ','
       << (m ? std::to_string(r.neighbours) : "") << ',' << mnum(r.candidates_per_s()) << ','
       << mnum(r.neighbours_per_s()) << ',' << (r.speedup_naive > 0 ? num(r.speedup_naive) : "")
       << ',' << (r.speedup_naive_extrapolated ? "true" : "false") << ','
       << (r.speedup_1t > 0 ? num(r.speedup_1t) : "") << ','
       << (r.efficiency > 0 ? num(r.efficiency) : "") << ','
       << (r.bytes_per_boid > 0 ? num(r.bytes_per_boid) : "") << ','
       << (r.bytes_per_boid > 0 ? num(r.memory_bytes()) : "") << ','
       << (r.peak_rss_bytes > 0 ? num(r.peak_rss_bytes) : "") << ','
       << (r.peak_rss_per_config ? "true" : "false") << ',' << csv_field(r.probe_isa) << ','
       << (r.probe_pairs_per_s > 0 ? num(r.probe_pairs_per_s) : "") << ','
       << (r.probe_fraction > 0 ? num(r.probe_fraction) : "") << ','
       << (r.extrapolated_ms > 0 ? num(r.extrapolated_ms) : "") << ',' << num(r.world_size) << ','
       << (m ? num(r.setup_ms) : "") << ',' << csv_field(r.note) << ',' << knum(r.kernel_ms.median)
       << ',' << knum(r.kernel_candidates_per_s()) << ','
       << (k && r.kernel_probe_fraction > 0 ? num(r.kernel_probe_fraction) : "") << ','
       << mnum(r.useful_per_s_per_core()) << ','
       << (r.useful_fraction() > 0 ? num(r.useful_fraction()) : "") << ','
       << (r.rss_bytes_per_boid() > 0 ? num(r.rss_bytes_per_boid()) : "") << ','
       << csv_field(c.workload) << ',' << (r.ratio_ref > 0 ? num(r.ratio_ref) : "") << '\n';
  }
}

void write_json(std::ostream& os, const std::vector<Result>& results, const Environment& env,
                const RunInfo& info) {
  Obj e("  ");
  e.str("cpu_model", env.cpu_model)
      .num("cores", env.cores)
      .str("simd_flags", env.simd_flags)
      .str("compiler", env.compiler)
      .str("build_type", env.build_type)
      .str("git_commit", env.git_commit)
      .str("boids_version", env.boids_version)
      .str("os", env.os)
      .str("timestamp_utc", env.timestamp_utc)
      .str("command_line", env.command_line)
      .num("process_peak_rss_bytes", env.peak_rss_bytes)
      .raw("load_average_start", env.load_start >= 0 ? json_num(env.load_start) : "null")
      .raw("load_average_end", env.load_end >= 0 ? json_num(env.load_end) : "null");
  Obj run("  ");
  run.str("preset", info.preset)
      .str("scenario", info.scenario)
      .num("expected_neighbours", info.expected_neighbours)
      .num("warmup_steps", info.settings.warmup)
      .num("reps", info.settings.reps)
      .num("min_rep_ms", info.settings.min_rep_ms)
      .num("budget_s", info.settings.budget_s)
      .boolean("extrapolate_naive", info.settings.extrapolate)
      .num("wall_s", info.wall_s);
  std::string rows;
  for (const Result& r : results) {
    const Config& c = r.config;
    const bool m = r.status == Status::measured;
    auto opt = [&](double v, bool ok) { return ok ? json_num(v) : std::string("null"); };
    auto summary = [](const Summary& s) {
      return "{\"median\": " + json_num(s.median) + ", \"q1\": " + json_num(s.q1) +
             ", \"q3\": " + json_num(s.q3) + ", \"min\": " + json_num(s.min) +
             ", \"max\": " + json_num(s.max) + "}";
    };
    const bool k = m && r.kernel_ms.n > 0;
    Obj o("    ");
    o.str("engine", variant_name(c.variant))
        .str("kernel", r.kernel)
        .num("dims", c.dims)
        .str("precision", precision_name(c.precision))
        .num("count", c.count)
        .num("threads", c.threads)
        .str("status", status_name(r.status))
        .raw("ms_per_step", m ? summary(r.ms) : std::string("null"))
        .raw("cpu_ms_per_step", opt(r.cpu_ms, m))
        .num("reps", r.reps)
        .num("steps_per_rep", r.steps_per_rep)
        .num("warmup", r.warmup)
        .raw("boid_steps_per_s", opt(r.boid_steps_per_s(), m))
        .raw("candidates_per_step", opt(double(r.candidates), m))
        .raw("neighbours_per_step", opt(double(r.neighbours), m))
        .raw("candidates_per_s", opt(r.candidates_per_s(), m))
        .raw("neighbours_per_s", opt(r.neighbours_per_s(), m))
        .raw("speedup_vs_naive", opt(r.speedup_naive, r.speedup_naive > 0))
        .boolean("speedup_vs_naive_extrapolated", r.speedup_naive_extrapolated)
        .raw("speedup_vs_1_thread", opt(r.speedup_1t, r.speedup_1t > 0))
        .raw("parallel_efficiency", opt(r.efficiency, r.efficiency > 0))
        .raw("bytes_per_boid", opt(r.bytes_per_boid, r.bytes_per_boid > 0))
        .raw("engine_memory_bytes", opt(r.memory_bytes(), r.bytes_per_boid > 0))
        .raw("peak_rss_bytes", opt(r.peak_rss_bytes, r.peak_rss_bytes > 0))
        .boolean("peak_rss_per_config", r.peak_rss_per_config)
        .str("probe_isa", r.probe_isa)
        .raw("probe_pairs_per_s", opt(r.probe_pairs_per_s, r.probe_pairs_per_s > 0))
        .raw("probe_fraction", opt(r.probe_fraction, r.probe_fraction > 0))
        .raw("kernel_ms_per_pass", k ? summary(r.kernel_ms) : std::string("null"))
        .raw("kernel_candidates_per_s", opt(r.kernel_candidates_per_s(), k))
        .raw("kernel_probe_fraction",
             opt(r.kernel_probe_fraction, k && r.kernel_probe_fraction > 0))
        .raw("useful_per_s_per_core", opt(r.useful_per_s_per_core(), m))
        .raw("useful_fraction", opt(r.useful_fraction(), r.useful_fraction() > 0))
        .raw("peak_rss_bytes_per_boid", opt(r.rss_bytes_per_boid(), r.rss_bytes_per_boid() > 0))
        .raw("extrapolated_ms_per_step", opt(r.extrapolated_ms, r.extrapolated_ms > 0))
        .num("world_size", r.world_size)
        .raw("setup_ms", opt(r.setup_ms, m))
        .str("note", r.note)
        .str("workload", c.workload)
        .raw("ratio_vs_reference", opt(r.ratio_ref, r.ratio_ref > 0));
    rows += (rows.empty() ? "\n    " : ",\n    ") + o.done();
  }
  os << "{\n  \"environment\": " << e.done() << ",\n  \"run\": " << run.done()
     << ",\n  \"results\": [" << rows << (rows.empty() ? "]" : "\n  ]") << "\n}\n";
}

std::string format_table(const std::vector<Result>& results) {
  struct Col {
    const char* head;
    bool left;
  };
  const Col cols[] = {
      {"engine", true},       {"workload", true},    {"x ref", false},       {"isa", true},
      {"D", false},           {"prec", true},        {"n", false},           {"thr", false},
      {"ms/step", false},     {"+-IQR", false},      {"cpu ms", false},      {"boid-st/s", false},
      {"cand/s", false},      {"nbr/s", false},      {"x naive", false},     {"x 1thr", false},
      {"eff", false},         {"B/boid", false},     {"%probe step", false}, {"kern ms", false},
      {"%probe kern", false}, {"nbr/s/core", false}, {"%useful", false},     {"RSS B/boid", false},
      {"note", true}};
  constexpr std::size_t ncol = sizeof cols / sizeof cols[0];
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
  auto fmt = [](const char* f, double v) {
    char b[48];
    std::snprintf(b, sizeof b, f, v);
    return std::string(b);
  };
  auto ms_str = [&](double ms) {
    return ms >= 100   ? fmt("%.0f", ms)
           : ms >= 10  ? fmt("%.1f", ms)
           : ms >= 0.1 ? fmt("%.2f", ms)
                       : fmt("%.4f", ms);
  };
  for (const Result& r : results) {
    const Config& c = r.config;
    const bool m = r.status == Status::measured;
    std::vector<std::string> row(ncol - 2);  // the two workload columns go in at the end
    row[0] = variant_name(c.variant);
    row[1] = r.kernel.empty() ? "-" : r.kernel;
    row[2] = std::to_string(c.dims);
    row[3] = c.precision == Precision::f64 ? "f64" : "f32";
    row[4] = std::to_string(c.count);
    row[5] = std::to_string(c.threads);
    if (m) {
      row[6] = ms_str(r.ms.median);
      row[7] = ms_str(r.ms.iqr());
      row[8] = ms_str(r.cpu_ms);
      row[9] = si(r.boid_steps_per_s());
      row[10] = si(r.candidates_per_s());
      row[11] = si(r.neighbours_per_s());
    } else if (r.extrapolated_ms > 0) {
      row[6] = "~" + ms_str(r.extrapolated_ms) + "*";
      row[7] = "extrap.";
    } else {
      row[6] = status_name(r.status);
    }
    if (r.speedup_naive > 0)
      row[12] = fmt(r.speedup_naive >= 100 ? "%.0f" : "%.1f", r.speedup_naive) +
                (r.speedup_naive_extrapolated ? "*" : "");
    if (r.speedup_1t > 0) row[13] = fmt("%.2f", r.speedup_1t);
    if (r.efficiency > 0) row[14] = fmt("%.0f%%", 100 * r.efficiency);
    if (r.bytes_per_boid > 0) row[15] = fmt("%.0f", r.bytes_per_boid);
    if (r.probe_fraction > 0) row[16] = fmt("%.0f%%", 100 * r.probe_fraction);
    if (m && r.kernel_ms.n > 0) row[17] = ms_str(r.kernel_ms.median);
    if (r.kernel_probe_fraction > 0) row[18] = fmt("%.0f%%", 100 * r.kernel_probe_fraction);
    if (m) row[19] = si(r.useful_per_s_per_core());
    if (r.useful_fraction() > 0) row[20] = fmt("%.0f%%", 100 * r.useful_fraction());
    if (r.rss_bytes_per_boid() > 0) row[21] = fmt("%.0f", r.rss_bytes_per_boid());
    if (!r.note.empty()) {
      std::size_t k = 0;
      while (k < notes.size() && notes[k] != r.note) ++k;
      if (k == notes.size()) notes.push_back(r.note);
      row[22] = "[" + std::to_string(k + 1) + "]";
    }
    row.insert(row.begin() + 1,
               {c.workload, r.ratio_ref > 0 ? fmt(r.ratio_ref >= 10 ? "%.0f" : "%.2f", r.ratio_ref)
                                            : std::string()});
    for (auto& cell : row) {
      if (cell.empty()) cell = "-";
    }
    rows.push_back(std::move(row));
  }
  std::size_t w[ncol];
  for (std::size_t i = 0; i < ncol; ++i) w[i] = std::string_view(cols[i].head).size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < ncol; ++i) w[i] = std::max(w[i], row[i].size());
  }
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < ncol; ++i) {
      const std::string& s = cells[i];
      const std::string pad(w[i] - s.size(), ' ');
      l += (i ? "  " : "") + (cols[i].left ? s + pad : pad + s);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    os << l << "\n";
  };
  std::vector<std::string> head;
  for (const Col& c : cols) head.push_back(c.head);
  line(head);
  std::size_t total = 0;
  for (std::size_t i = 0; i < ncol; ++i) total += w[i] + (i ? 2 : 0);
  os << std::string(total, '-') << "\n";
  for (const auto& row : rows) line(row);
  bool any_extrap = false;
  for (const Result& r : results)
    any_extrap |= r.extrapolated_ms > 0 || r.speedup_naive_extrapolated;
  if (any_extrap)
    os << "* extrapolated from the largest measured naive point as n^2 (not measured)\n";
  for (std::size_t k = 0; k < notes.size(); ++k) os << "[" << k + 1 << "] " << notes[k] << "\n";
  return os.str();
}

}  // namespace boids::bench
