// The bench's writers: CSV, JSON (parsed back), SVG (checked as XML), table, progress bar.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "bench/bench.hpp"
#include "mini_parsers.hpp"

using namespace boids;
using namespace boids::bench;
using boids::test::csv_fields;
using boids::test::parse_json;
using boids::test::parse_xml;

namespace {

Result measured(Variant v, std::uint32_t n, int threads, double ms) {
  Result r;
  r.config = {v, n, threads, 3, Precision::f32};
  r.status = Status::measured;
  r.kernel = v == Variant::naive ? "naive" : "avx2";
  r.ms = summarize({ms * 0.9, ms, ms * 1.2});
  r.reps = 3;
  r.steps_per_rep = 4;
  r.warmup = 2;
  r.candidates = 1000ull * n;
  r.neighbours = 30ull * n;
  r.bytes_per_boid = 40;
  r.probe_pairs_per_s = 1e10;
  // The grid engines also time the kernel alone: here 60% of the step.
  if (v != Variant::naive) r.kernel_ms = summarize({ms * 0.5, ms * 0.6, ms * 0.8});
  return r;
}

// Three measured engines at two sizes, a skipped (extrapolated) naive point, an unavailable
// configuration with a note that needs quoting.
std::vector<Result> sample() {
  std::vector<Result> rs = {
      measured(Variant::naive, 1000, 1, 10.0), measured(Variant::grid_simd, 1000, 1, 1.0),
      measured(Variant::grid_simd, 1000, 2, 0.6), measured(Variant::grid_simd, 100000, 1, 90.0),
      measured(Variant::grid_simd, 100000, 2, 50.0)};
  Result s;
  s.config = {Variant::naive, 100000, 1, 3, Precision::f32};
  s.status = Status::skipped;
  s.extrapolated_ms = 100000;
  s.note = "over the 10 s budget";
  rs.push_back(s);
  Result u;
  u.config = {Variant::grid_scalar, 1000, 1, 3, Precision::f32};
  u.status = Status::unavailable;
  u.note = "engine.kind: \"grid\", not built, yet";
  rs.push_back(u);
  derive(rs);
  return rs;
}

}  // namespace

TEST_CASE("CSV: a header and one row per result, every row the header's width", "[bench]") {
  const auto rs = sample();
  std::ostringstream os;
  write_csv(os, rs);
  std::istringstream in(os.str());
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(csv_fields(line));
  REQUIRE(rows.size() == rs.size() + 1);
  const auto& head = rows[0];
  auto col = [&](const char* name) {
    for (std::size_t i = 0; i < head.size(); ++i) {
      if (head[i] == name) return i;
    }
    FAIL("no column " << name);
    return std::size_t(0);
  };
  for (const auto& r : rows) CHECK(r.size() == head.size());
  CHECK(rows[1][col("engine")] == "naive");
  CHECK(rows[2][col("engine")] == "grid-simd");
  CHECK(rows[2][col("kernel")] == "avx2");
  CHECK(rows[2][col("count")] == "1000");
  CHECK(rows[3][col("threads")] == "2");
  CHECK(std::stod(rows[2][col("ms_per_step_median")]) == Approx(1.0));
  CHECK(std::stod(rows[2][col("speedup_vs_naive")]) == Approx(10.0));
  CHECK(std::stod(rows[3][col("speedup_vs_1_thread")]) == Approx(1.0 / 0.6));
  CHECK(std::stod(rows[2][col("boid_steps_per_s")]) == Approx(1e6));
  CHECK(rows[6][col("status")] == "skipped");
  CHECK(rows[6][col("ms_per_step_median")].empty());
  CHECK(std::stod(rows[6][col("extrapolated_ms_per_step")]) == Approx(100000));
  CHECK(rows[4][col("speedup_vs_naive_extrapolated")] == "true");
  CHECK(rows[7][col("status")] == "unavailable");
  CHECK(rows[7][col("note")] == "engine.kind: \"grid\", not built, yet");
  // The kernel-alone columns come after every older one, so existing positions stay.
  CHECK(col("note") == 35);
  CHECK(col("kernel_ms_per_pass") == 36);
  CHECK(col("kernel_candidates_per_s") == 37);
  CHECK(col("kernel_probe_fraction") == 38);
  // Issue 13's figures, appended after those.
  CHECK(col("useful_per_s_per_core") == 39);
  CHECK(col("useful_fraction") == 40);
  CHECK(col("peak_rss_bytes_per_boid") == 41);
  // Issue 14's workload and its ratio to the sweep's first workload, appended after those.
  CHECK(col("workload") == 42);
  CHECK(col("ratio_vs_reference") == 43);
  CHECK(head.size() == 44);
  // Row 3: grid, 1000 boids, 2 threads, 0.6 ms/step, 30 neighbours per boid of 1000 candidates.
  CHECK(std::stod(rows[3][col("useful_per_s_per_core")]) == Approx(30e3 / 0.6e-3 / 2));
  CHECK(std::stod(rows[3][col("useful_fraction")]) == Approx(0.03));
  CHECK(rows[7][col("useful_per_s_per_core")].empty());
  // Grid rows: 1000 boids, 1e6 candidates, a 0.6 ms pass -> 1.667e9 pairs/s, 1/6 of the probe;
  // the whole step (1 ms) is 1e9 pairs/s, 10% of it.
  CHECK(std::stod(rows[2][col("kernel_ms_per_pass")]) == Approx(0.6));
  CHECK(std::stod(rows[2][col("kernel_candidates_per_s")]) == Approx(1e6 / 0.6e-3));
  CHECK(std::stod(rows[2][col("kernel_probe_fraction")]) == Approx(1e6 / 0.6e-3 / 1e10));
  CHECK(std::stod(rows[2][col("probe_fraction")]) == Approx(0.1));
  for (std::size_t i : {2, 3, 4, 5}) {
    CHECK(std::stod(rows[i][col("kernel_probe_fraction")]) ==
          Approx(std::stod(rows[i][col("kernel_candidates_per_s")]) /
                 std::stod(rows[i][col("probe_pairs_per_s")])));
  }
  // Empty for naive (measured or not) and for rows not measured.
  for (std::size_t i : {1, 6, 7}) {
    CHECK(rows[i][col("kernel_ms_per_pass")].empty());
    CHECK(rows[i][col("kernel_candidates_per_s")].empty());
    CHECK(rows[i][col("kernel_probe_fraction")].empty());
  }
  CHECK_FALSE(rows[1][col("probe_fraction")].empty());
}

TEST_CASE("JSON: parses back with environment, run settings and every result", "[bench]") {
  const auto rs = sample();
  Environment env;
  env.cpu_model = "Test CPU \"X\" \\ 9000";
  env.cores = 2;
  env.git_commit = "abc123";
  env.compiler = "gcc";
  env.build_type = "Release";
  RunInfo info;
  info.preset = "quick";
  info.settings.reps = 5;
  std::ostringstream os;
  write_json(os, rs, env, info);
  const auto j = parse_json(os.str());
  CHECK(j["environment"]["cpu_model"].str == env.cpu_model);
  CHECK(j["environment"]["cores"].num == 2);
  CHECK(j["environment"]["git_commit"].str == "abc123");
  CHECK(j["run"]["preset"].str == "quick");
  CHECK(j["run"]["reps"].num == 5);
  const auto& res = j["results"];
  REQUIRE(res.arr.size() == rs.size());
  CHECK(res[1]["engine"].str == "grid-simd");
  CHECK(res[1]["ms_per_step"]["median"].num == Approx(1.0));
  CHECK(res[1]["ms_per_step"]["q3"].num == Approx(1.1));
  CHECK(res[1]["speedup_vs_naive"].num == Approx(10.0));
  CHECK(res[1]["candidates_per_s"].num == Approx(1e9));
  CHECK(res[1]["engine_memory_bytes"].num == Approx(40000));
  CHECK(res[4]["speedup_vs_naive_extrapolated"].b);
  CHECK(res[5]["status"].str == "skipped");
  CHECK(res[5]["ms_per_step"].type == boids::test::Json::Type::null);
  CHECK(res[5]["extrapolated_ms_per_step"].num == Approx(100000));
  CHECK(res[6]["note"].str == rs[6].note);
  // The kernel alone: a summary like ms_per_step, its rate and its share of the probe.
  CHECK(res[1]["kernel_ms_per_pass"]["median"].num == Approx(0.6));
  CHECK(res[1]["kernel_ms_per_pass"]["min"].num == Approx(0.5));
  CHECK(res[1]["kernel_ms_per_pass"]["max"].num == Approx(0.8));
  CHECK(res[1]["kernel_candidates_per_s"].num == Approx(1e6 / 0.6e-3));
  CHECK(res[1]["kernel_probe_fraction"].num ==
        Approx(res[1]["kernel_candidates_per_s"].num / res[1]["probe_pairs_per_s"].num));
  CHECK(res[1]["probe_fraction"].num == Approx(0.1));
  for (std::size_t i : {0, 5, 6}) {
    CHECK(res[i]["kernel_ms_per_pass"].type == boids::test::Json::Type::null);
    CHECK(res[i]["kernel_candidates_per_s"].type == boids::test::Json::Type::null);
    CHECK(res[i]["kernel_probe_fraction"].type == boids::test::Json::Type::null);
  }
  // The empty case is valid JSON too.
  CHECK(parse_json([&] {
          std::ostringstream e;
          write_json(e, {}, env, info);
          return e.str();
        }())["results"]
            .arr.empty());
}

TEST_CASE("the mini parsers used above reject malformed input", "[bench]") {
  CHECK_THROWS(parse_json("{\"a\": 1,}"));
  CHECK_THROWS(parse_json("{\"a\": nan}"));
  CHECK_THROWS(parse_json("[1 2]"));
  CHECK_THROWS(parse_xml("<svg><g></svg>"));
  CHECK_THROWS(parse_xml("<svg a=\"1\"><text>a < b</text></svg>"));
  CHECK_THROWS(parse_xml("<svg/><svg/>"));
  CHECK_NOTHROW(parse_xml("<?xml version=\"1.0\"?><svg><g a='x'/>&amp;</svg>"));
}

TEST_CASE("SVG: well-formed, one polyline per non-empty series, markers per point", "[bench]") {
  PlotSpec p;
  p.title = "a < b & \"c\"";
  p.xlabel = "n";
  p.ylabel = "ms";
  p.logx = p.logy = true;
  p.series.push_back({"three", {{1000, 1}, {10000, 10}, {100000, 100}}, "", false, true});
  p.series.push_back({"one point", {{1000, 5}}, "", false, true});
  p.series.push_back({"empty", {}, "", false, true});
  // Non-positive values cannot go on a log axis and are left out.
  p.series.push_back({"ref", {{1000, 0}, {1000, 1}, {100000, 10000}}, "#888888", true, false});
  const std::string svg = render_svg(p);
  const auto root = parse_xml(svg);
  CHECK(root->name == "svg");
  const auto lines = root->all("polyline");
  REQUIRE(lines.size() == 3);
  auto npoints = [](const boids::test::XmlElement* e) {
    const std::string& pts = e->attrs.at("points");
    return std::count(pts.begin(), pts.end(), ',');
  };
  CHECK(npoints(lines[0]) == 3);
  CHECK(npoints(lines[1]) == 1);
  CHECK(npoints(lines[2]) == 2);
  CHECK(lines[2]->attrs.count("stroke-dasharray") == 1);
  CHECK(root->all("circle").size() == 4);  // markers of the first two series only
  bool title = false, legend_empty = false;
  for (const auto* t : root->all("text")) {
    title |= t->text == "a &lt; b &amp; &quot;c&quot;";
    legend_empty |= t->text == "empty";
  }
  CHECK(title);
  CHECK_FALSE(legend_empty);
  // Log axes: decade ticks, x 1000..1e5 and y 1..10000 (so "1000" and "10000" twice).
  std::map<std::string, int> labels;
  for (const auto* t : root->all("text")) ++labels[t->text];
  CHECK(labels["1e5"] == 1);
  CHECK(labels["10000"] == 2);
  CHECK(labels["1000"] == 2);
  CHECK(labels["1"] == 1);
}

TEST_CASE("make_plots: time per step with reference slopes, speedup with the ideal line",
          "[bench]") {
  const auto rs = sample();
  const auto plots = make_plots(rs);
  REQUIRE(plots.size() == 2);
  CHECK(plots[0].first == "time_per_step_3d_float.svg");
  CHECK(plots[1].first == "speedup_threads_3d_float.svg");
  const PlotSpec& t = plots[0].second;
  CHECK(t.logx);
  CHECK(t.logy);
  std::vector<std::string> names;
  for (const auto& s : t.series) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"naive", "grid-simd, 1 thread", "grid-simd, 2 threads",
                                          "naive, extrapolated as n^2 (not measured)",
                                          "O(n^2) slope", "O(n) slope"});
  CHECK(t.series[1].points.size() == 2);
  // The n^2 reference starts on the first naive point and rises 100x per decade.
  const auto& ref2 = t.series[4].points;
  CHECK(ref2[0].first == 1000);
  CHECK(ref2[0].second == Approx(10));
  CHECK(ref2[1].second / ref2[0].second == Approx(std::pow(ref2[1].first / 1000.0, 2)));
  const auto& ref1 = t.series[5].points;
  CHECK(ref1[1].second / ref1[0].second == Approx(ref1[1].first / ref1[0].first));
  const PlotSpec& s = plots[1].second;
  REQUIRE(s.series.size() == 3);  // grid-simd at 1000 and 100000, and the ideal line
  CHECK(s.series[0].points == std::vector<std::pair<double, double>>{{1, 1}, {2, 1.0 / 0.6}});
  CHECK(s.series[2].points == std::vector<std::pair<double, double>>{{1, 1}, {2, 2}});
  for (const auto& [name, plot] : plots) {
    const auto root = parse_xml(render_svg(plot));
    CHECK(root->all("polyline").size() == plot.series.size());
  }
}

TEST_CASE("table: one row per result, extrapolations starred, notes as footnotes", "[bench]") {
  const auto rs = sample();
  const std::string t = format_table(rs);
  std::istringstream in(t);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  REQUIRE(lines.size() >= 2 + rs.size());
  CHECK(lines[0].rfind("engine", 0) == 0);
  // The step's and the kernel's share of the probe, and the kernel's own time.
  const std::size_t step_col = lines[0].find("%probe step");
  const std::size_t kms_col = lines[0].find("kern ms");
  const std::size_t kern_col = lines[0].find("%probe kern");
  REQUIRE(step_col != std::string::npos);
  REQUIRE(kms_col != std::string::npos);
  REQUIRE(kern_col != std::string::npos);
  CHECK(step_col < kms_col);
  CHECK(kms_col < kern_col);
  // Columns are right-aligned: a cell ends where its header ends. Grid 1000 boids, 1 thread:
  // step 10%, kernel 0.60 ms and 17%; naive (1e6 pairs in 10 ms): 1%, no kernel figures.
  auto cell_ending = [](const std::string& l, std::size_t end) {
    std::size_t b = l.rfind(' ', end - 1);
    return l.substr(b + 1, end - b - 1);
  };
  const std::size_t step_end = step_col + std::string("%probe step").size();
  const std::size_t kms_end = kms_col + std::string("kern ms").size();
  const std::size_t kern_end = kern_col + std::string("%probe kern").size();
  CHECK(cell_ending(lines[3], step_end) == "10%");
  CHECK(cell_ending(lines[3], kms_end) == "0.60");
  CHECK(cell_ending(lines[3], kern_end) == "17%");
  CHECK(cell_ending(lines[2], step_end) == "1%");
  CHECK(cell_ending(lines[2], kms_end) == "-");
  CHECK(cell_ending(lines[2], kern_end) == "-");
  CHECK(lines[2].find("naive") != std::string::npos);
  CHECK(lines[7].find("~100000*") != std::string::npos);
  CHECK(t.find("* extrapolated") != std::string::npos);
  CHECK(t.find("[1] over the 10 s budget") != std::string::npos);
  CHECK(t.find("[2] engine.kind") != std::string::npos);
}

TEST_CASE("progress: the bar's text, and plain lines when not a terminal", "[bench]") {
  CHECK(render_bar(3, 12, 65, "grid n=1000", 200) ==
        "[######..................] 3/12  25% 1:05 grid n=1000");
  CHECK(render_bar(12, 12, 0, "", 200).rfind("[########################] 12/12 100%", 0) == 0);
  CHECK(render_bar(0, 0, 0, "x", 10).size() == 10);
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p(f, 2, false);
    p.begin(0, "a");
    p.end(0, "first done");
    p.begin(1, "b");
    p.end(1, "second done");
    p.finish();
  }
  std::rewind(f);
  char buf[256] = {};
  const std::size_t got = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  CHECK(std::string(buf, got) == "[1/2] first done\n[2/2] second done\n");
  CHECK(si(1234567) == "1.23M");
  CHECK(si(999) == "999");
  CHECK(si(45600) == "45.6k");
  CHECK(short_count(1000) == "1k");
  CHECK(short_count(2500) == "2.5k");
  CHECK(short_count(10000000) == "10M");
  CHECK(short_count(300) == "300");
}
