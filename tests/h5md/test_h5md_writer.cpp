// The H5MD writer and reader through the API: population changes between frames (which the
// CLI cannot make), every frame read back equal to the state that was written, the fill rows,
// the observables series, and a continuation from a frame that matches the original run.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "boids/h5md.hpp"
#include "boids/world.hpp"
#include "core/scenario.hpp"

using namespace boids;

namespace {

std::string temp_path(const char* name) {
  return std::string(BOIDS_BINARY_DIR) + "/h5md_test_" + name + ".h5";
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

void require_same_state(const State& a, const State& b) {
  REQUIRE(a.id == b.id);
  REQUIRE(a.kind == b.kind);
  REQUIRE(a.x == b.x);
  REQUIRE(a.y == b.y);
  REQUIRE(a.z == b.z);
  REQUIRE(a.vx == b.vx);
  REQUIRE(a.vy == b.vy);
  REQUIRE(a.vz == b.vz);
}

// Reads a 2-D int64 dataset (frames, rows) with the HDF5 C API.
std::vector<std::int64_t> read_ids(const std::string& path, const char* dataset, hsize_t dims[2]) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t s = H5Dget_space(d);
  REQUIRE(H5Sget_simple_extent_ndims(s) == 2);
  H5Sget_simple_extent_dims(s, dims, nullptr);
  std::vector<std::int64_t> v(dims[0] * dims[1]);
  REQUIRE(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

}  // namespace

TEST_CASE("h5md: population changes are recorded with id = -1 fill and read back exactly",
          "[h5md]") {
  for (const Precision precision : {Precision::f32, Precision::f64}) {
    for (const int dims : {2, 3}) {
      const std::string path = temp_path("population");
      World w = World::create(small_def(dims, precision));
      std::vector<State> written;
      {
        h5md::Writer rec(path, w, {});
        rec.frame(w);
        written.push_back(w.state());
        w.step(3);
        // Remove five boids and add two leaders: the boids group shrinks, leaders appear.
        const std::vector<std::uint32_t> gone = {0, 7, 8, 50, 119};
        w.remove_boids(gone);
        w.add_boids(2, Kind::leader);
        rec.frame(w);
        written.push_back(w.state());
        w.step(3);
        w.add_boids(10, Kind::boid);  // more boids than at the start: the rows grow
        rec.frame(w);
        written.push_back(w.state());
        rec.finish();
        REQUIRE(rec.frames() == 3);
      }
      for (std::size_t k = 0; k < written.size(); ++k) {
        const h5md::RecordedFrame f = h5md::read_frame(path, (long long)k);
        REQUIRE(f.frames == 3);
        REQUIRE(f.dims == dims);
        REQUIRE(f.precision == precision);
        require_same_state(f.state, written[k]);
      }
      REQUIRE(h5md::read_frame(path).step == 6);
      REQUIRE(h5md::read_frame(path).next_id == w.next_id());

      hsize_t shape[2] = {0, 0};
      const auto ids = read_ids(path, "/particles/boids/id/value", shape);
      REQUIRE(shape[0] == 3);
      REQUIRE(shape[1] == 117 - 4 + 10);  // the largest boid population so far
      // Frame 1 holds 113 boids (ids 0..116 are boids, 117..119 predators): ids, then fill.
      std::size_t live = 0;
      for (hsize_t r = 0; r < shape[1]; ++r) {
        const std::int64_t id = ids[1 * shape[1] + r];
        if (id == -1) continue;
        REQUIRE(r == live);
        ++live;
      }
      REQUIRE(live == 113);
      REQUIRE(ids[1 * shape[1] + 113] == -1);
      REQUIRE(ids[1 * shape[1] + 0] == 1);  // boid 0 was removed
      REQUIRE(ids[0] == 0);
      std::remove(path.c_str());
    }
  }
}

TEST_CASE("h5md: a world continued from a frame steps exactly like the original", "[h5md]") {
  const std::string path = temp_path("continue");
  WorldDef def = small_def(3, Precision::f32);
  def.kinds[0].behaviour.wander = 1.0;  // a random stream that depends on the step count
  World a = World::create(def);
  {
    h5md::Writer rec(path, a, {});
    a.step(4);
    rec.frame(a);
    rec.finish();
  }
  a.step(5);
  const h5md::RecordedFrame f = h5md::read_frame(path, 0);
  REQUIRE(f.step == 4);
  const WorldDef stored = parse_scenario(f.scenario_toml, "stored");
  World b = h5md::world_from_frame(stored, f, path);
  REQUIRE(b.step_count() == 4);
  b.step(5);
  REQUIRE(b.state_hash() == a.state_hash());
  std::remove(path.c_str());
}

TEST_CASE("h5md: observables are appended as H5MD time series", "[h5md]") {
  const std::string path = temp_path("observables");
  World w = World::create(small_def(2, Precision::f32));
  {
    h5md::Writer rec(path, w, {});
    for (int s = 0; s < 4; ++s) {
      rec.frame(w);
      rec.append_observables(w.step_count(), double(w.step_count()) * w.def().dt,
                             {{"polarization", 0.25 * s}, {"milling", 1.0 - 0.25 * s}});
      w.step(2);
    }
    REQUIRE_THROWS_AS(rec.append_observables(0, 0.0, {{"a/b", 1.0}}), Error);
    rec.finish();
  }
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  double value[4] = {}, time[4] = {};
  std::int64_t step[4] = {};
  const hid_t v = H5Dopen2(f, "/observables/polarization/value", H5P_DEFAULT);
  const hid_t t = H5Dopen2(f, "/observables/polarization/time", H5P_DEFAULT);
  const hid_t s = H5Dopen2(f, "/observables/milling/step", H5P_DEFAULT);
  REQUIRE((v >= 0 && t >= 0 && s >= 0));
  const hid_t space = H5Dget_space(v);
  REQUIRE(H5Sget_simple_extent_npoints(space) == 4);
  H5Sclose(space);
  REQUIRE(H5Dread(v, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) >= 0);
  REQUIRE(H5Dread(t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, time) >= 0);
  REQUIRE(H5Dread(s, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, step) >= 0);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(value[i] == 0.25 * i);
    REQUIRE(step[i] == 2 * i);
    REQUIRE(time[i] == double(2 * i) * 0.1);
  }
  H5Dclose(v);
  H5Dclose(t);
  H5Dclose(s);
  H5Fclose(f);
  std::remove(path.c_str());
}
