// boids::Recording (include/boids/recording.hpp), the public reader the viewer replays with:
// both formats read back exactly the states that were written, including population changes
// (kinds merged into id order, fill rows dropped), and bad files give one line naming the file
// and the dataset or frame.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "boids/h5md.hpp"
#include "boids/recording.hpp"
#include "boids/world.hpp"
#include "core/record.hpp"

using namespace boids;

namespace {

std::string temp_path(const char* name) {
  return std::string(BOIDS_BINARY_DIR) + "/recording_test_" + name;
}

WorldDef small_def(int dims, Precision precision) {
  WorldDef d = default_world_def();
  d.dims = dims;
  d.size = 40;
  d.count = 120;
  d.predators = 3;
  d.precision = precision;
  d.threads = 1;
  return d;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

// Writes a run with population changes in both formats; returns the states written.
std::vector<State> write_both(const std::string& h5, const std::string& rec, int dims,
                              Precision precision) {
  World w = World::create(small_def(dims, precision));
  std::vector<State> written;
  h5md::Writer hw(h5, w, {});
  Recorder bw(rec, w, 3);
  auto frame = [&] {
    hw.frame(w);
    bw.frame(w);
    written.push_back(w.state());
  };
  frame();
  w.step(3);
  const std::vector<std::uint32_t> gone = {0, 7, 8, 50, 119};
  w.remove_boids(gone);
  w.add_boids(2, Kind::leader);
  frame();
  w.step(3);
  w.add_boids(10, Kind::boid);  // ids above the predators' and leaders': a real merge
  frame();
  hw.finish();
  bw.finish();
  return written;
}

std::string error_of(const std::string& path) {
  try {
    Recording r = Recording::open(path);
    RecordingFrame f;
    for (std::size_t k = 0; k < r.frames(); ++k) r.read(k, f);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("recording: both formats read back the states written, population changes included",
          "[h5md]") {
  for (const Precision precision : {Precision::f32, Precision::f64}) {
    for (const int dims : {2, 3}) {
      const std::string h5 = temp_path("both.h5"), rec = temp_path("both.rec");
      const std::vector<State> written = write_both(h5, rec, dims, precision);
      for (const std::string& path : {h5, rec}) {
        Recording r = Recording::open(path);
        REQUIRE(r.format() == (path == h5 ? RecordingFormat::h5md : RecordingFormat::boidsrec));
        REQUIRE(r.dims() == dims);
        REQUIRE(r.precision() == precision);
        REQUIRE(r.frames() == 3);
        REQUIRE(r.step_of(0) == 0);
        REQUIRE(r.step_of(2) == 6);
        REQUIRE(r.frame_at_step(5) == 1);
        REQUIRE(r.scenario_text().empty() == (path == rec));
        for (std::size_t k = 0; k < 3; ++k) {
          State s;
          r.read(k, s);
          const State& w = written[k];
          REQUIRE(s.id == w.id);
          REQUIRE(s.kind == w.kind);
          REQUIRE(s.x == w.x);
          REQUIRE(s.y == w.y);
          REQUIRE(s.z == w.z);
          REQUIRE(s.vx == w.vx);
          REQUIRE(s.vy == w.vy);
          REQUIRE(s.vz == w.vz);
          RecordingFrame f;
          r.read(k, f);
          REQUIRE(f.step == r.step_of(k));
          REQUIRE(f.id == w.id);
          REQUIRE(f.z.size() == w.id.size());  // zeros in 2D
          for (std::size_t i = 0; i < w.id.size(); ++i) {
            REQUIRE(f.x[i] == float(w.x[i]));
            REQUIRE(f.vy[i] == float(w.vy[i]));
            REQUIRE(f.z[i] == (dims == 3 ? float(w.z[i]) : 0.0f));
          }
        }
        REQUIRE_THROWS_AS(r.step_of(3), Error);
      }
      std::remove(h5.c_str());
      std::remove(rec.c_str());
      std::remove(temp_path("both.xdmf").c_str());
    }
  }
}

TEST_CASE("recording: bad files give one line naming the file and where", "[h5md]") {
  const std::string h5 = temp_path("bad.h5"), rec = temp_path("bad.rec");
  write_both(h5, rec, 3, Precision::f32);
  const std::string hb = slurp(h5), rb = slurp(rec);
  const std::string cut = temp_path("cut.bin");

  // BOIDSREC cut anywhere: in the header, in a frame header, in a frame's payload.
  for (const std::size_t at : {std::size_t(5), std::size_t(31), std::size_t(40),
                               std::size_t(32 + 16 + 100), rb.size() - 1}) {
    spit(cut, rb.substr(0, at));
    const std::string e = error_of(cut);
    INFO(at << ": " << e);
    REQUIRE(e.rfind(cut + ": ", 0) == 0);
    REQUIRE(e.find("truncated") != std::string::npos);
    REQUIRE(e.find('\n') == std::string::npos);
  }
  // H5MD cut anywhere.
  for (const std::size_t at : {std::size_t(4), std::size_t(600), hb.size() / 2, hb.size() - 1}) {
    spit(cut, hb.substr(0, at));
    const std::string e = error_of(cut);
    INFO(at << ": " << e);
    REQUIRE(e.rfind(cut + ": ", 0) == 0);
    REQUIRE(e.find('\n') == std::string::npos);
  }
  // A NaN velocity in BOIDSREC frame 0 (117 boids + 3 predators, float32): vy of row 4.
  std::string bad = rb;
  const std::size_t n = 120, vy = 32 + 16 + 5 * n + 4 * n * 4 + 4 * 4;
  const float nan = std::nanf("");
  bad.replace(vy, 4, reinterpret_cast<const char*>(&nan), 4);
  spit(cut, bad);
  REQUIRE(error_of(cut) == cut + ": frame 0 (byte 32): non-finite velocity (row 4)");
  // A float64 recording holding 1e300 (finite, beyond float32): the float read refuses it
  // (no undefined cast), the exact read gives it back.
  {
    const std::string h64 = temp_path("f64.h5"), r64 = temp_path("f64.rec");
    write_both(h64, r64, 3, Precision::f64);
    std::string b = slurp(r64);
    const double huge = 1e300;
    b.replace(32 + 16 + 5 * n + 2 * n * 8 + 9 * 8, 8, reinterpret_cast<const char*>(&huge), 8);
    spit(cut, b);
    REQUIRE(error_of(cut) == cut + ": frame 0 (byte 32): non-finite position (row 9)");
    Recording r = Recording::open(cut);
    State s;
    r.read(0, s);
    REQUIRE(s.z[9] == huge);
    for (const auto& p : {h64, r64, temp_path("f64.xdmf")}) std::remove(p.c_str());
  }
  // Not a recording at all; a directory; a missing file.
  spit(cut, "hello, world, not a recording");
  REQUIRE(error_of(cut) == cut + ": not a recording (neither BOIDSREC nor HDF5/H5MD)");
  REQUIRE(error_of(BOIDS_BINARY_DIR).find("is a directory") != std::string::npos);
  REQUIRE(error_of(temp_path("missing.h5")).find("cannot open") != std::string::npos);
  for (const auto& p : {h5, rec, cut, temp_path("bad.xdmf")}) std::remove(p.c_str());
}
