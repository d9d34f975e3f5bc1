// Reading one frame of an H5MD recording back (boids run --init FILE.h5 --init-frame K).
// Everything is checked before it is used: a file that HDF5 cannot open (not HDF5, or cut
// short: HDF5 compares the file's size with the end-of-file address its superblock records),
// a missing group or dataset, a wrong rank, shape or type, rows out of order, and non-finite
// values all end in one Error line "PATH: DATASET: what", never in HDF5's own error stack.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "boids/h5md.hpp"
#include "core/engine.hpp"
#include "io/h5md_hdf5.hpp"
#include "io/h5md_read.hpp"

namespace boids::h5md {

namespace {

struct Row {
  std::uint32_t id;
  std::uint8_t kind;
  double p[3], v[3];
};

}  // namespace

RecordedFrame read_frame(const std::string& path, long long frame) {
  silence_hdf5_errors();
  Reader r{path, {}};
  if (std::FILE* probe = std::fopen(path.c_str(), "rb"))
    std::fclose(probe);
  else
    throw Error(path + ": cannot open file");
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw Error(path + ": not an HDF5 file (or cut short before its superblock)");
  r.file = Hid(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!r.file)
    throw Error(path +
                ": cannot open as HDF5 (truncated or damaged: the file is shorter than "
                "its superblock says, or its metadata is unreadable)");
  if (!r.exists("/h5md")) r.fail("/h5md", "missing (not an H5MD file)");

  RecordedFrame out;
  out.scenario_toml = r.read_string("/parameters/scenario");
  const auto steps =
      r.read_1d<std::int64_t>("/parameters/next_id/step", H5T_NATIVE_INT64, H5T_INTEGER, "integer");
  const auto next_ids = r.read_1d<std::uint32_t>("/parameters/next_id/value", H5T_NATIVE_UINT32,
                                                 H5T_INTEGER, "integer");
  if (next_ids.size() != steps.size())
    r.fail("/parameters/next_id/value", "wrong shape (" + std::to_string(next_ids.size()) +
                                            ",), expected (" + std::to_string(steps.size()) +
                                            ",) like its step");
  out.frames = steps.size();
  if (out.frames == 0) r.fail("/parameters/next_id/step", "the recording has no frames");
  if (frame < 0) frame = (long long)out.frames + frame;
  if (frame < 0 || std::uint64_t(frame) >= out.frames)
    throw Error(path + ": --init-frame: the recording has " + std::to_string(out.frames) +
                " frames (0.." + std::to_string(out.frames - 1) + ")");
  out.frame = std::uint64_t(frame);
  if (steps[out.frame] < 0) r.fail("/parameters/next_id/step", "negative step");
  out.step = std::uint64_t(steps[out.frame]);
  out.next_id = next_ids[out.frame];

  std::vector<Row> rows;
  int dims = 0;
  std::size_t real_bytes = 0;
  for (int k = 0; k < kKindCount; ++k) {
    const std::string gp = kind_path(k);
    if (!r.exists(gp)) continue;
    const auto ksteps =
        r.read_1d<std::int64_t>(gp + "/position/step", H5T_NATIVE_INT64, H5T_INTEGER, "integer");
    const auto it = std::find(ksteps.begin(), ksteps.end(), steps[out.frame]);
    const hsize_t j = hsize_t(it - ksteps.begin());
    const std::string pp = gp + "/position/value", vp = gp + "/velocity/value",
                      ip = gp + "/id/value", sp = gp + "/species/value";
    Hid pd = r.dataset(pp), vd = r.dataset(vp), id = r.dataset(ip), sd = r.dataset(sp);
    r.expect_class(pd, H5T_FLOAT, pp, "float");
    r.expect_class(vd, H5T_FLOAT, vp, "float");
    r.expect_class(id, H5T_INTEGER, ip, "integer");
    r.expect_class(sd, H5T_INTEGER, sp, "integer");
    const auto ps = r.shape(pd), vs = r.shape(vd), is = r.shape(id), ss = r.shape(sd);
    if (ps.size() != 3 || (ps[2] != 2 && ps[2] != 3) || ps[0] != ksteps.size())
      r.fail(pp, "wrong shape " + Reader::shape_text(ps) + ", expected (" +
                     std::to_string(ksteps.size()) + ", rows, 2 or 3)");
    if (vs != ps)
      r.fail(vp, "wrong shape " + Reader::shape_text(vs) + ", expected " + Reader::shape_text(ps) +
                     " like the position");
    const std::vector<hsize_t> s2 = {ps[0], ps[1]};
    if (is != s2)
      r.fail(ip, "wrong shape " + Reader::shape_text(is) + ", expected " + Reader::shape_text(s2));
    if (ss != s2)
      r.fail(sp, "wrong shape " + Reader::shape_text(ss) + ", expected " + Reader::shape_text(s2));
    if (dims != 0 && int(ps[2]) != dims) r.fail(pp, "dimension differs from another kind's");
    dims = int(ps[2]);
    Hid pt = type_handle(H5Dget_type(pd.get()));
    const std::size_t rb = H5Tget_size(pt.get());
    if ((rb != 4 && rb != 8) || (real_bytes != 0 && rb != real_bytes))
      r.fail(pp, "wrong type (expected float32 or float64, the same for every kind)");
    real_bytes = rb;
    if (it == ksteps.end()) continue;  // this kind had no group yet at that step

    const auto ids = r.read_rows<std::int64_t>(id, ip, H5T_NATIVE_INT64, j, is);
    const auto species = r.read_rows<std::int32_t>(sd, sp, H5T_NATIVE_INT32, j, ss);
    const auto pos = r.read_rows<double>(pd, pp, H5T_NATIVE_DOUBLE, j, ps);
    const auto vel = r.read_rows<double>(vd, vp, H5T_NATIVE_DOUBLE, j, vs);
    const std::size_t D = std::size_t(dims);
    bool padding = false;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string at = " (frame " + std::to_string(j) + ", row " + std::to_string(i) + ")";
      if (ids[i] == -1) {
        padding = true;
        continue;
      }
      if (padding) r.fail(ip, "live row after an id = -1 fill row" + at);
      if (ids[i] < 0 || ids[i] > std::int64_t(std::numeric_limits<std::uint32_t>::max()))
        r.fail(ip, "id " + std::to_string(ids[i]) + " out of range" + at);
      if (i > 0 && ids[i] <= ids[i - 1]) r.fail(ip, "ids not strictly increasing" + at);
      if (species[i] != k)
        r.fail(sp, "species " + std::to_string(species[i]) + " in the group of kind " +
                       std::to_string(k) + at);
      Row row{std::uint32_t(ids[i]), std::uint8_t(k), {0, 0, 0}, {0, 0, 0}};
      for (std::size_t c = 0; c < D; ++c) {
        row.p[c] = pos[i * D + c];
        row.v[c] = vel[i * D + c];
        if (!std::isfinite(row.p[c])) r.fail(pp, "non-finite value" + at);
        if (!std::isfinite(row.v[c])) r.fail(vp, "non-finite value" + at);
      }
      rows.push_back(row);
    }
  }
  if (dims == 0) r.fail("/particles", "missing (no particle group)");
  out.dims = dims;
  out.precision = real_bytes == 8 ? Precision::f64 : Precision::f32;
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id < b.id; });
  State& s = out.state;
  const std::size_t n = rows.size();
  s.id.resize(n);
  s.kind.resize(n);
  std::vector<double>* comps[6] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz};
  for (int c = 0; c < 6; ++c)
    if (c % 3 < dims) comps[c]->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && rows[i].id == rows[i - 1].id)
      r.fail("/particles", "id " + std::to_string(rows[i].id) + " appears in two kinds");
    if (rows[i].id >= out.next_id)
      r.fail("/parameters/next_id/value", "id " + std::to_string(rows[i].id) +
                                              " is not below next_id " +
                                              std::to_string(out.next_id));
    s.id[i] = rows[i].id;
    s.kind[i] = rows[i].kind;
    for (int c = 0; c < dims; ++c) {
      (*comps[c])[i] = rows[i].p[c];
      (*comps[3 + c])[i] = rows[i].v[c];
    }
  }
  return out;
}

World world_from_frame(const WorldDef& def, const RecordedFrame& f, const std::string& path) {
  if (def.dims != f.dims)
    throw Error(path + ": the recording is " + std::to_string(f.dims) +
                "D, the scenario's world.dims is " + std::to_string(def.dims));
  if (def.precision != f.precision)
    throw Error(path + ": the recording holds " + (f.precision == Precision::f64 ? "f64" : "f32") +
                " values, the scenario's engine.precision differs");
  World w = World::create(def);
  try {
    engine_of(w).restore(f.state, f.step, f.next_id);
  } catch (const Error& e) {
    throw Error(path + ": frame " + std::to_string(f.frame) + ": " + e.what());
  }
  return w;
}

}  // namespace boids::h5md
