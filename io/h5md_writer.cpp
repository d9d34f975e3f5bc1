// The H5MD writer. Design:
// - Every time-dependent element is an H5MD group {step, time, value} whose datasets grow by
//   one frame per frame(); `value` is chunked (1, C, dims) with C rows of about 1 MiB, so a
//   frame is written as whole chunks, each straight from a bounded staging buffer that
//   interleaves the id-order SoA views (no copy of the whole state is ever made). The chunk
//   cache is off: every chunk is written once, completely, and never read back.
// - Per kind the rows are that kind's boids in id order, then fill rows up to the largest
//   population the group has had (id = -1, species = -1, position and velocity NaN: the
//   dataset's fill value, so growing the row count costs nothing for earlier frames).
// - Object timestamps are off and nothing depends on threads, so one input gives the same
//   file (compare with h5diff). The file is flushed after each frame.
// - The XDMF side (h5md_xdmf.cpp) adds per-frame virtual datasets and the XML.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "boids/h5md.hpp"
#include "core/id_rows.hpp"
#include "core/scenario.hpp"
#include "io/h5md_hdf5.hpp"
#include "io/h5md_xdmf.hpp"

namespace boids::h5md {

bool available() noexcept { return true; }

namespace {

constexpr std::size_t kChunkBytes = std::size_t(1) << 20;

std::string xdmf_path_of(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_ext ? path.substr(0, dot) : path) + ".xdmf";
}

const char* boundary_name(Boundary b) {
  return b == Boundary::wrap ? "wrap" : b == Boundary::reflect ? "reflect" : "open";
}

}  // namespace

/// One time-dependent particle group (/particles/<kind>).
struct KindSeries {
  bool open = false;
  Hid group, step, time, pos, vel, id, species, edges;
  hsize_t frames = 0, rows = 0, chunk = 1;
};

struct Writer::Impl {
  std::string path, xdmf;
  Hid file, gcpl, dcpl_plain, particles;
  int dims = 3;
  Precision precision = Precision::f32;
  double dt = 0.1;
  int compress = 0;
  std::uint64_t frames = 0;
  KindSeries kinds[kKindCount];
  Hid clock_step, clock_time, clock_next_id;  // /parameters/next_id
  Hid obs_group;
  struct Observable {
    Hid group, step, time, value;
    hsize_t n = 0;
  };
  std::map<std::string, Observable> observables;
  XdmfWriter xdmf_writer;
  // Staging buffers of one chunk each: the only copy of state data the writer makes.
  std::vector<unsigned char> pbuf, vbuf;
  std::vector<std::int64_t> ibuf;
  std::vector<std::int8_t> sbuf;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(path + ": " + where + ": " + what);
  }
  hid_t real_type() const {
    return precision == Precision::f64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
  }
  std::size_t real_bytes() const { return precision == Precision::f64 ? 8 : 4; }

  Hid make_group(hid_t loc, const std::string& name) {
    Hid g = group_handle(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT));
    if (!g) fail(name, "cannot create group");
    return g;
  }
  void attr_string(hid_t loc, const char* name, const std::string& value) {
    Hid t = type_handle(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), H5T_VARIABLE);
    H5Tset_cset(t.get(), H5T_CSET_UTF8);
    Hid s = space_handle(H5Screate(H5S_SCALAR));
    Hid a = attr_handle(H5Acreate2(loc, name, t.get(), s.get(), H5P_DEFAULT, H5P_DEFAULT));
    const char* p = value.c_str();
    if (!a || H5Awrite(a.get(), t.get(), &p) < 0) fail(name, "cannot write attribute");
  }
  void attr_strings(hid_t loc, const char* name, const std::vector<std::string>& values) {
    Hid t = type_handle(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), H5T_VARIABLE);
    H5Tset_cset(t.get(), H5T_CSET_UTF8);
    const hsize_t n = values.size();
    Hid s = space_handle(H5Screate_simple(1, &n, nullptr));
    std::vector<const char*> p;
    for (const auto& v : values) p.push_back(v.c_str());
    Hid a = attr_handle(H5Acreate2(loc, name, t.get(), s.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a || H5Awrite(a.get(), t.get(), p.data()) < 0) fail(name, "cannot write attribute");
  }
  template <class T>
  void attr_num(hid_t loc, const char* name, hid_t type, const T* v, hsize_t n = 0) {
    Hid s = space_handle(n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr));
    Hid a = attr_handle(H5Acreate2(loc, name, type, s.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a || H5Awrite(a.get(), type, v) < 0) fail(name, "cannot write attribute");
  }

  // An extendible dataset with `rank` dims, the first (frames) starting at 0; `inner` are the
  // other dims (their first may grow too). Chunked (1, inner...).
  Hid make_series(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* inner,
                  const hsize_t* chunk_inner, const void* fill, bool compressible) {
    hsize_t cur[3] = {0, 0, 0}, max[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {1, 1, 1};
    for (int i = 1; i < rank; ++i) {
      cur[i] = inner[i - 1];
      max[i] = i == 1 && compressible ? H5S_UNLIMITED : inner[i - 1];  // rows may grow
      chunk[i] = chunk_inner[i - 1];
    }
    if (rank == 1) chunk[0] = 512;  // step, time, scalar series: many frames per chunk
    if (!compressible && rank > 1) chunk[0] = 256;  // box edges: small rows
    Hid space = space_handle(H5Screate_simple(rank, cur, max));
    Hid dcpl = plist_handle(H5Pcopy(dcpl_plain.get()));
    H5Pset_chunk(dcpl.get(), rank, chunk);
    if (fill) H5Pset_fill_value(dcpl.get(), type, fill);
    if (compressible && compress > 0) {
      H5Pset_shuffle(dcpl.get());
      H5Pset_deflate(dcpl.get(), unsigned(compress));
    }
    Hid dapl = plist_handle(H5Pcreate(H5P_DATASET_ACCESS));
    H5Pset_chunk_cache(dapl.get(), 0, 0, 1.0);
    Hid d = dataset_handle(
        H5Dcreate2(loc, name, type, space.get(), H5P_DEFAULT, dcpl.get(), dapl.get()));
    if (!d) fail(name, "cannot create dataset");
    return d;
  }

  // Grows a 1-D series by one and writes `v` at the end.
  void append1(hid_t d, hid_t type, const void* v, hsize_t at, const char* what) {
    const hsize_t n = at + 1, one = 1;
    if (H5Dset_extent(d, &n) < 0) fail(what, "cannot extend");
    Hid fs = space_handle(H5Dget_space(d));
    H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, &at, nullptr, &one, nullptr);
    Hid ms = space_handle(H5Screate_simple(1, &one, nullptr));
    if (H5Dwrite(d, type, ms.get(), fs.get(), H5P_DEFAULT, v) < 0) fail(what, "write failed");
  }

  void open_kind(int k, std::size_t n) {
    KindSeries& g = kinds[k];
    const std::string gp = kind_path(k);
    if (!particles) particles = make_group(file.get(), "particles");
    g.group = make_group(particles.get(), kKindGroup[k]);
    Hid box = make_group(g.group.get(), "box");
    {
      const std::int32_t d = dims;
      attr_num(box.get(), "dimension", H5T_NATIVE_INT32, &d);
      attr_strings(box.get(), "boundary",
                   std::vector<std::string>(std::size_t(dims),
                                            def_.boundary == Boundary::wrap ? "periodic" : "none"));
    }
    g.rows = hsize_t(n);
    const std::size_t row_bytes = std::size_t(dims) * real_bytes();
    // Rows per chunk: at most about 1 MiB of positions, and the population split into equal
    // chunks, so the last chunk of a frame is not mostly padding.
    const std::size_t cap = std::max<std::size_t>(1, kChunkBytes / row_bytes);
    const std::size_t rows = std::max<std::size_t>(n, 16), pieces = (rows + cap - 1) / cap;
    g.chunk = hsize_t((rows + pieces - 1) / pieces);
    const hsize_t inner[2] = {g.rows, hsize_t(dims)}, chunk[2] = {g.chunk, hsize_t(dims)};
    const double nan64 = std::numeric_limits<double>::quiet_NaN();
    const float nan32 = std::numeric_limits<float>::quiet_NaN();
    const void* nan = precision == Precision::f64 ? static_cast<const void*>(&nan64) : &nan32;
    const std::int64_t no_id = -1;
    const std::int8_t no_species = -1;
    Hid pos = make_group(g.group.get(), "position");
    g.step = make_series(pos.get(), "step", H5T_NATIVE_INT64, 1, nullptr, nullptr, nullptr, false);
    g.time = make_series(pos.get(), "time", H5T_NATIVE_DOUBLE, 1, nullptr, nullptr, nullptr, false);
    g.pos = make_series(pos.get(), "value", real_type(), 3, inner, chunk, nan, true);
    Hid vel = make_group(g.group.get(), "velocity");
    g.vel = make_series(vel.get(), "value", real_type(), 3, inner, chunk, nan, true);
    Hid id = make_group(g.group.get(), "id");
    g.id = make_series(id.get(), "value", H5T_NATIVE_INT64, 2, inner, chunk, &no_id, true);
    Hid sp = make_group(g.group.get(), "species");
    g.species = make_series(sp.get(), "value", H5T_NATIVE_INT8, 2, inner, chunk, &no_species, true);
    // The box is fixed, but MDAnalysis reads box/edges/value[frame] and (2.4) only as a
    // D x D matrix: a time-dependent element of diagonal matrices (both forms are H5MD 1.1).
    Hid edges = make_group(box.get(), "edges");
    const hsize_t edge_inner[2] = {hsize_t(dims), hsize_t(dims)};
    g.edges = make_series(edges.get(), "value", H5T_NATIVE_DOUBLE, 3, edge_inner, edge_inner,
                          nullptr, false);
    // One step and one time dataset per group, hard-linked into the others (H5MD 1.1 allows
    // this; readers see ordinary datasets).
    for (const char* e : {"velocity", "id", "species", "box/edges"}) {
      for (const char* t : {"step", "time"}) {
        const std::string from = gp + "/position/" + t, to = gp + "/" + e + "/" + t;
        if (H5Lcreate_hard(file.get(), from.c_str(), file.get(), to.c_str(), H5P_DEFAULT,
                           H5P_DEFAULT) < 0)
          fail(to, "cannot link");
      }
    }
    g.open = true;
  }

  template <class Real>
  void write_kind(int k, const World& w, std::size_t n_k);

  WorldDef def_;
};

Writer::Writer(const std::string& path, const World& w, const WriterOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  silence_hdf5_errors();
  m.path = path;
  m.xdmf = xdmf_path_of(path);
  m.dims = w.dims();
  m.precision = w.precision();
  m.def_ = w.def();
  m.def_.host_parallel_for = nullptr;
  m.def_.host_context = nullptr;
  // The thread count never changes a result; storing 0 keeps recordings of one input equal
  // whatever --threads was (docs/formats.md).
  m.def_.threads = 0;
  m.dt = m.def_.dt;
  m.compress = options.compress;
  if (options.every == 0) throw Error("--every: must be at least 1");
  if (m.compress < 0 || m.compress > 9)
    throw Error("--record-compress: must be 0 (off) to 9, got " + std::to_string(m.compress));
  if (m.compress > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    throw Error("--record-compress: this HDF5 library has no deflate filter");

  m.gcpl = plist_handle(H5Pcreate(H5P_GROUP_CREATE));
  H5Pset_obj_track_times(m.gcpl.get(), false);
  m.dcpl_plain = plist_handle(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_obj_track_times(m.dcpl_plain.get(), false);
  Hid fcpl = plist_handle(H5Pcreate(H5P_FILE_CREATE));
  H5Pset_obj_track_times(fcpl.get(), false);
  m.file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose);
  if (!m.file)
    throw Error(path + ": cannot create the HDF5 file (directory missing or not writable)");

  // /h5md
  {
    Hid h = m.make_group(m.file.get(), "h5md");
    const std::int32_t version[2] = {1, 1};
    m.attr_num(h.get(), "version", H5T_NATIVE_INT32, version, 2);
    Hid author = m.make_group(h.get(), "author");
    const char* user = std::getenv("USER");
    m.attr_string(author.get(), "name", user && *user ? user : "unknown");
    Hid creator = m.make_group(h.get(), "creator");
    m.attr_string(creator.get(), "name", "boids");
    m.attr_string(creator.get(), "version", boids::version());
  }
  // /parameters: the scenario (a valid scenario file) and its main keys.
  {
    Hid p = m.make_group(m.file.get(), "parameters");
    const std::string toml = scenario_to_toml(m.def_);
    Hid t = type_handle(H5Tcopy(H5T_C_S1));
    H5Tset_size(t.get(), H5T_VARIABLE);
    H5Tset_cset(t.get(), H5T_CSET_UTF8);
    Hid s = space_handle(H5Screate(H5S_SCALAR));
    Hid d = dataset_handle(H5Dcreate2(p.get(), "scenario", t.get(), s.get(), H5P_DEFAULT,
                                      m.dcpl_plain.get(), H5P_DEFAULT));
    const char* text = toml.c_str();
    if (!d || H5Dwrite(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0)
      m.fail("/parameters/scenario", "cannot write");
    const WorldDef& def = m.def_;
    const std::int32_t dims = def.dims;
    const std::int64_t count = def.count, predators = def.predators, leaders = def.leaders;
    const std::uint64_t seed = def.seed, every = options.every;
    m.attr_num(p.get(), "dims", H5T_NATIVE_INT32, &dims);
    m.attr_num(p.get(), "size", H5T_NATIVE_DOUBLE, &def.size);
    m.attr_string(p.get(), "boundary", boundary_name(def.boundary));
    m.attr_num(p.get(), "count", H5T_NATIVE_INT64, &count);
    m.attr_num(p.get(), "predators", H5T_NATIVE_INT64, &predators);
    m.attr_num(p.get(), "leaders", H5T_NATIVE_INT64, &leaders);
    m.attr_num(p.get(), "seed", H5T_NATIVE_UINT64, &seed);
    m.attr_num(p.get(), "dt", H5T_NATIVE_DOUBLE, &def.dt);
    m.attr_string(p.get(), "engine",
                  def.engine == EngineKind::naive  ? "naive"
                  : def.engine == EngineKind::grid ? "grid"
                                                   : "cluster");
    m.attr_string(p.get(), "precision", def.precision == Precision::f64 ? "double" : "float");
    m.attr_num(p.get(), "every", H5T_NATIVE_UINT64, &every);
    Hid clock = m.make_group(p.get(), "next_id");
    m.clock_step =
        m.make_series(clock.get(), "step", H5T_NATIVE_INT64, 1, nullptr, nullptr, nullptr, false);
    m.clock_time =
        m.make_series(clock.get(), "time", H5T_NATIVE_DOUBLE, 1, nullptr, nullptr, nullptr, false);
    m.clock_next_id =
        m.make_series(clock.get(), "value", H5T_NATIVE_UINT32, 1, nullptr, nullptr, nullptr, false);
  }
  m.xdmf_writer.open(m.xdmf, path, m.file.get(), m.dims, m.precision, m.gcpl.get(),
                     m.dcpl_plain.get());
}

Writer::~Writer() = default;

std::uint64_t Writer::frames() const noexcept { return impl_->frames; }
const std::string& Writer::xdmf_path() const noexcept { return impl_->xdmf; }

template <class Real>
void Writer::Impl::write_kind(int k, const World& w, std::size_t n_k) {
  KindSeries& g = kinds[k];
  const hsize_t f = g.frames;
  const std::int64_t step = std::int64_t(w.step_count());
  const double time = double(w.step_count()) * dt;
  const std::string gp = kind_path(k);
  append1(g.step.get(), H5T_NATIVE_INT64, &step, f, (gp + "/position/step").c_str());
  append1(g.time.get(), H5T_NATIVE_DOUBLE, &time, f, (gp + "/position/time").c_str());
  {
    double edges[9] = {};
    for (int c = 0; c < dims; ++c) edges[c * dims + c] = def_.size;
    const hsize_t D2 = hsize_t(dims);
    const hsize_t ext[3] = {f + 1, D2, D2}, start[3] = {f, 0, 0}, count[3] = {1, D2, D2};
    const hsize_t nd = D2 * D2;
    Hid fs;
    if (H5Dset_extent(g.edges.get(), ext) >= 0) fs = space_handle(H5Dget_space(g.edges.get()));
    Hid ms = space_handle(H5Screate_simple(1, &nd, nullptr));
    if (!fs || H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dwrite(g.edges.get(), H5T_NATIVE_DOUBLE, ms.get(), fs.get(), H5P_DEFAULT, edges) < 0)
      fail(gp + "/box/edges/value", "write failed");
  }
  g.rows = std::max<hsize_t>(g.rows, hsize_t(n_k));
  const hsize_t D = hsize_t(dims);
  const hsize_t ext3[3] = {f + 1, g.rows, D};
  if (H5Dset_extent(g.pos.get(), ext3) < 0 || H5Dset_extent(g.vel.get(), ext3) < 0 ||
      H5Dset_extent(g.id.get(), ext3) < 0 || H5Dset_extent(g.species.get(), ext3) < 0)
    fail(gp, "cannot extend the datasets");

  // The boids of kind k in id order, read from the engine's store a chunk at a time
  // (core/id_rows.hpp): no id-order copy of the store (29 B per boid in 3D float).
  const IdRows src(w);
  const std::size_t N = src.count(), K = IdRows::kChunk;
  std::vector<std::uint8_t> skind(K);
  std::vector<std::uint32_t> sid(K);
  std::vector<Real> scol[6];
  for (std::size_t c = 0; c < 2 * D; ++c) scol[c].resize(K);
  std::size_t next = 0, have = 0, i = 0;  // next id rank to read; rows read; row i of them
  const bool all_one_kind = n_k == N;
  auto load = [&] {
    have = std::min(K, N - next);
    for (std::size_t c = 0; c < D; ++c) {
      src.gather(IdRows::x + int(c), next, have, scol[c].data());
      src.gather(IdRows::vx + int(c), next, have, scol[D + c].data());
    }
    src.gather(IdRows::id, next, have, sid.data());
    if (!all_one_kind) src.gather(IdRows::kind, next, have, skind.data());
    next += have;
    i = 0;
  };
  const std::size_t C = std::size_t(g.chunk);
  pbuf.resize(C * D * sizeof(Real));
  vbuf.resize(C * D * sizeof(Real));
  ibuf.resize(C);
  sbuf.resize(C);
  Real* pb = reinterpret_cast<Real*>(pbuf.data());
  Real* vb = reinterpret_cast<Real*>(vbuf.data());
  for (hsize_t b = 0; b < g.rows; b += C) {
    const std::size_t len = std::size_t(std::min<hsize_t>(C, g.rows - b));
    for (std::size_t r = 0; r < len; ++r) {
      if (b + r < n_k) {
        for (;;) {
          if (i == have) load();
          if (all_one_kind || skind[i] == k) break;
          ++i;
        }
        for (std::size_t c = 0; c < D; ++c) {
          pb[r * D + c] = scol[c][i];
          vb[r * D + c] = scol[D + c][i];
        }
        ibuf[r] = std::int64_t(sid[i]);
        sbuf[r] = std::int8_t(k);
        ++i;
      } else {
        for (std::size_t c = 0; c < D; ++c)
          pb[r * D + c] = vb[r * D + c] = std::numeric_limits<Real>::quiet_NaN();
        ibuf[r] = -1;
        sbuf[r] = -1;
      }
    }
    const hsize_t start[3] = {f, b, 0}, count[3] = {1, hsize_t(len), D};
    // Memory spaces of the same shape as the file selection: HDF5 then maps the block onto
    // its chunk in one piece instead of element by element.
    Hid ms3 = space_handle(H5Screate_simple(3, count, nullptr));
    Hid ms2 = space_handle(H5Screate_simple(2, count, nullptr));
    // (The rank-2 id and species datasets read the first two entries of start and count.)
    auto put = [&](const Hid& d, hid_t type, const Hid& ms, const void* buf, const char* e) {
      Hid fs = space_handle(H5Dget_space(d.get()));
      H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
      if (H5Dwrite(d.get(), type, ms.get(), fs.get(), H5P_DEFAULT, buf) < 0)
        fail(gp + "/" + e + "/value", "write failed (disk full?)");
    };
    put(g.pos, real_type(), ms3, pb, "position");
    put(g.vel, real_type(), ms3, vb, "velocity");
    put(g.id, H5T_NATIVE_INT64, ms2, ibuf.data(), "id");
    put(g.species, H5T_NATIVE_INT8, ms2, sbuf.data(), "species");
  }
  g.frames = f + 1;
}

void Writer::frame(const World& w) {
  Impl& m = *impl_;
  if (!m.file) throw Error(m.path + ": recording already finished");
  if (w.dims() != m.dims || w.precision() != m.precision)
    throw Error(m.path + ": recording a world of another shape");
  std::size_t n[kKindCount] = {0, 0, 0};
  {
    const IdRows src(w);
    std::vector<std::uint8_t> kind(IdRows::kChunk);
    for (std::size_t at = 0; at < src.count(); at += IdRows::kChunk) {
      const std::size_t len = std::min(IdRows::kChunk, src.count() - at);
      src.gather(IdRows::kind, at, len, kind.data());
      for (std::size_t r = 0; r < len; ++r) ++n[kind[r] < kKindCount ? kind[r] : 0];
    }
  }
  std::vector<XdmfPart> parts;
  for (int k = 0; k < kKindCount; ++k) {
    if (!m.kinds[k].open && n[k] > 0) m.open_kind(k, n[k]);
    if (!m.kinds[k].open) continue;
    if (m.precision == Precision::f64)
      m.write_kind<double>(k, w, n[k]);
    else
      m.write_kind<float>(k, w, n[k]);
    if (n[k] > 0) parts.push_back({k, m.kinds[k].frames - 1, n[k]});
  }
  const std::int64_t step = std::int64_t(w.step_count());
  const double time = double(w.step_count()) * m.dt;
  const std::uint32_t next_id = w.next_id();
  m.append1(m.clock_step.get(), H5T_NATIVE_INT64, &step, m.frames, "/parameters/next_id/step");
  m.append1(m.clock_time.get(), H5T_NATIVE_DOUBLE, &time, m.frames, "/parameters/next_id/time");
  m.append1(m.clock_next_id.get(), H5T_NATIVE_UINT32, &next_id, m.frames,
            "/parameters/next_id/value");
  m.xdmf_writer.add_frame(m.frames, time, parts);
  if (H5Fflush(m.file.get(), H5F_SCOPE_LOCAL) < 0)
    throw Error(m.path + ": flush failed (disk full?)");
  ++m.frames;
}

void Writer::append_observables(std::uint64_t step, double time,
                                const std::vector<std::pair<std::string, double>>& values) {
  Impl& m = *impl_;
  if (!m.file) throw Error(m.path + ": recording already finished");
  if (!m.obs_group) m.obs_group = m.make_group(m.file.get(), "observables");
  for (const auto& [name, value] : values) {
    if (name.empty() || name.find_first_of("/.") != std::string::npos)
      throw Error(m.path + ": observable name '" + name + "' must be non-empty, without / or .");
    auto it = m.observables.find(name);
    if (it == m.observables.end()) {
      Impl::Observable o;
      o.group = m.make_group(m.obs_group.get(), name);
      o.step = m.make_series(o.group.get(), "step", H5T_NATIVE_INT64, 1, nullptr, nullptr, nullptr,
                             false);
      o.time = m.make_series(o.group.get(), "time", H5T_NATIVE_DOUBLE, 1, nullptr, nullptr, nullptr,
                             false);
      o.value = m.make_series(o.group.get(), "value", H5T_NATIVE_DOUBLE, 1, nullptr, nullptr,
                              nullptr, false);
      it = m.observables.emplace(name, std::move(o)).first;
    }
    Impl::Observable& o = it->second;
    const std::int64_t s = std::int64_t(step);
    const std::string where = "/observables/" + name;
    m.append1(o.step.get(), H5T_NATIVE_INT64, &s, o.n, (where + "/step").c_str());
    m.append1(o.time.get(), H5T_NATIVE_DOUBLE, &time, o.n, (where + "/time").c_str());
    m.append1(o.value.get(), H5T_NATIVE_DOUBLE, &value, o.n, (where + "/value").c_str());
    ++o.n;
  }
  if (H5Fflush(m.file.get(), H5F_SCOPE_LOCAL) < 0)
    throw Error(m.path + ": flush failed (disk full?)");
}

void Writer::finish() {
  Impl& m = *impl_;
  if (!m.file) return;
  const bool flushed = H5Fflush(m.file.get(), H5F_SCOPE_LOCAL) >= 0;
  for (KindSeries& g : m.kinds) g = KindSeries{};
  m.particles.reset();
  m.observables.clear();
  m.obs_group.reset();
  m.clock_step.reset();
  m.clock_time.reset();
  m.clock_next_id.reset();
  m.xdmf_writer.close_datasets();
  const bool closed = H5Fclose(m.file.release()) >= 0;
  m.xdmf_writer.finish();
  if (!flushed || !closed) throw Error(m.path + ": write failed (disk full?)");
}

}  // namespace boids::h5md
