// boids::Recording over an H5MD file (include/boids/recording.hpp, layout in docs/formats.md).
//
// Opening checks the structure once: /h5md, the frame clock /parameters/next_id/step, and for
// each kind group present its position, velocity, id and species values (rank, shape, type,
// one row of frames per step of the group). It keeps the dataset handles and, per kind, which
// of the group's frames belongs to each frame of the recording (a kind added later through
// the API has fewer frames). Reading frame k is then one hyperslab per dataset and kind,
// straight into reused buffers; the kinds' live rows (the prefix before the id = -1 fill) are
// merged into id order, which for files of `boids run` is their concatenation already.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "io/h5md_read.hpp"
#include "io/recording_impl.hpp"

namespace boids::io_detail {

namespace {

using h5md::Hid;

class H5mdRec final : public Recording::Impl {
 public:
  explicit H5mdRec(const std::string& p) : r_{p, {}} {
    path = p;
    format = RecordingFormat::h5md;
    h5md::silence_hdf5_errors();
    if (H5Fis_hdf5(p.c_str()) <= 0)
      throw Error(p + ": not an HDF5 file (or cut short before its superblock)");
    r_.file = Hid(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!r_.file)
      throw Error(p +
                  ": /: cannot open as HDF5 (truncated or damaged: the file is shorter than its "
                  "superblock says, or its metadata is unreadable)");
    if (!r_.exists("/h5md")) r_.fail("/h5md", "missing (not an H5MD file)");
    if (r_.exists("/parameters/scenario")) scenario = r_.read_string("/parameters/scenario");
    read_every();
    const auto clock = r_.read_1d<std::int64_t>("/parameters/next_id/step", H5T_NATIVE_INT64,
                                                H5T_INTEGER, "integer");
    if (clock.empty()) r_.fail("/parameters/next_id/step", "the recording has no frames");
    for (const std::int64_t s : clock) {
      if (s < 0) r_.fail("/parameters/next_id/step", "negative step");
      steps.push_back(std::uint64_t(s));
    }
    std::size_t real_bytes = 0;
    dims = 0;
    for (int kind = 0; kind < kKindCount; ++kind) {
      const std::string gp = h5md::kind_path(kind);
      if (!r_.exists(gp)) continue;
      Group g{kind, gp, {}, {}, {}, {}, 0, {}};
      const auto ksteps =
          r_.read_1d<std::int64_t>(gp + "/position/step", H5T_NATIVE_INT64, H5T_INTEGER, "integer");
      const std::string pp = gp + "/position/value", vp = gp + "/velocity/value",
                        ip = gp + "/id/value", sp = gp + "/species/value";
      g.pos = r_.dataset(pp);
      g.vel = r_.dataset(vp);
      g.id = r_.dataset(ip);
      g.species = r_.dataset(sp);
      r_.expect_class(g.pos, H5T_FLOAT, pp, "float");
      r_.expect_class(g.vel, H5T_FLOAT, vp, "float");
      r_.expect_class(g.id, H5T_INTEGER, ip, "integer");
      r_.expect_class(g.species, H5T_INTEGER, sp, "integer");
      const auto ps = r_.shape(g.pos), vs = r_.shape(g.vel), is = r_.shape(g.id),
                 ss = r_.shape(g.species);
      if (ps.size() != 3 || (ps[2] != 2 && ps[2] != 3) || ps[0] != ksteps.size())
        r_.fail(pp, "wrong shape " + h5md::Reader::shape_text(ps) + ", expected (" +
                        std::to_string(ksteps.size()) + ", rows, 2 or 3)");
      if (vs != ps)
        r_.fail(vp, "wrong shape " + h5md::Reader::shape_text(vs) + ", expected " +
                        h5md::Reader::shape_text(ps) + " like the position");
      const std::vector<hsize_t> s2 = {ps[0], ps[1]};
      if (is != s2)
        r_.fail(ip, "wrong shape " + h5md::Reader::shape_text(is) + ", expected " +
                        h5md::Reader::shape_text(s2));
      if (ss != s2)
        r_.fail(sp, "wrong shape " + h5md::Reader::shape_text(ss) + ", expected " +
                        h5md::Reader::shape_text(s2));
      if (dims != 0 && int(ps[2]) != dims) r_.fail(pp, "dimension differs from another kind's");
      dims = int(ps[2]);
      Hid pt = h5md::type_handle(H5Dget_type(g.pos.get()));
      const std::size_t rb = H5Tget_size(pt.get());
      if ((rb != 4 && rb != 8) || (real_bytes != 0 && rb != real_bytes))
        r_.fail(pp, "wrong type (expected float32 or float64, the same for every kind)");
      real_bytes = rb;
      g.rows = ps[1];
      std::unordered_map<std::int64_t, long long> at;
      for (std::size_t j = 0; j < ksteps.size(); ++j) at.emplace(ksteps[j], (long long)j);
      g.index.resize(steps.size(), -1);
      for (std::size_t k = 0; k < steps.size(); ++k) {
        const auto it = at.find(clock[k]);
        if (it != at.end()) g.index[k] = it->second;
      }
      groups_.push_back(std::move(g));
    }
    if (groups_.empty()) r_.fail("/particles", "missing (no particle group)");
    precision = real_bytes == 8 ? Precision::f64 : Precision::f32;
  }

  void read_f(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<float>* comps[6]) override {
    read_t(k, id, kind, comps, H5T_NATIVE_FLOAT, pf_, vf_);
  }
  void read_d(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<double>* comps[6]) override {
    read_t(k, id, kind, comps, H5T_NATIVE_DOUBLE, pd_, vd_);
  }

 private:
  struct Group {
    int kind;
    std::string path;
    Hid pos, vel, id, species;
    hsize_t rows;
    std::vector<long long> index;  // the group's frame of each recording frame, -1 = none
  };

  void read_every() {
    if (!r_.exists("/parameters")) return;
    Hid g = h5md::group_handle(H5Gopen2(r_.file.get(), "/parameters", H5P_DEFAULT));
    if (!g || H5Aexists(g.get(), "every") <= 0) return;
    Hid a = h5md::attr_handle(H5Aopen(g.get(), "every", H5P_DEFAULT));
    std::uint64_t v = 1;
    if (!a || H5Aread(a.get(), H5T_NATIVE_UINT64, &v) < 0)
      r_.fail("/parameters", "attribute every: unreadable");
    every = v;
  }

  // Reads frame j of `d` (rows x inner values) into out as mem_type.
  template <class T>
  void slab(const Group& g, const Hid& d, const char* what, hid_t mem_type, long long j,
            hsize_t inner, std::vector<T>& out) {
    const int rank = inner == 0 ? 2 : 3;
    const hsize_t start[3] = {hsize_t(j), 0, 0};
    const hsize_t count[3] = {1, g.rows, inner};
    out.resize(std::size_t(g.rows * (inner ? inner : 1)));
    if (out.empty()) return;
    Hid fs = h5md::space_handle(H5Dget_space(d.get()));
    Hid ms = h5md::space_handle(H5Screate_simple(rank, count, nullptr));
    if (H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(d.get(), mem_type, ms.get(), fs.get(), H5P_DEFAULT, out.data()) < 0)
      r_.fail(g.path + "/" + what + "/value",
              "cannot read frame " + std::to_string(j) + " (file damaged?)");
  }

  template <class Real>
  void read_t(std::size_t k, std::vector<std::uint32_t>& id, std::vector<std::uint8_t>& kind,
              std::vector<Real>* comps[6], hid_t real_type, std::vector<Real>& pos,
              std::vector<Real>& vel) {
    const std::size_t D = std::size_t(dims);
    // Live rows of every kind, concatenated in kind order (interleaved values).
    all_id_.clear();
    all_kind_.clear();
    std::vector<Real>& allp = pos;
    std::vector<Real>& allv = vel;
    allp.clear();
    allv.clear();
    std::vector<Real> gp, gv;
    for (const Group& g : groups_) {
      const long long j = g.index[k];
      if (j < 0) continue;  // this kind had no group yet at that step
      const std::string at = " (frame " + std::to_string(j) + ", row ";
      slab(g, g.id, "id", H5T_NATIVE_INT64, j, 0, ids_);
      slab(g, g.species, "species", H5T_NATIVE_INT32, j, 0, species_);
      slab(g, g.pos, "position", real_type, j, D, gp);
      slab(g, g.vel, "velocity", real_type, j, D, gv);
      std::size_t live = 0;
      while (live < ids_.size() && ids_[live] != -1) ++live;
      for (std::size_t i = live; i < ids_.size(); ++i)
        if (ids_[i] != -1)
          r_.fail(g.path + "/id/value",
                  "live row after an id = -1 fill row" + at + std::to_string(i) + ")");
      for (std::size_t i = 0; i < live; ++i) {
        if (ids_[i] < 0 || ids_[i] > 0xffffffffLL)
          r_.fail(g.path + "/id/value",
                  "id " + std::to_string(ids_[i]) + " out of range" + at + std::to_string(i) + ")");
        if (species_[i] != g.kind)
          r_.fail(g.path + "/species/value", "species " + std::to_string(species_[i]) +
                                                 " in the group of kind " + std::to_string(g.kind) +
                                                 at + std::to_string(i) + ")");
        for (std::size_t c = 0; c < D; ++c) {
          if (!std::isfinite(gp[i * D + c]))
            r_.fail(g.path + "/position/value", "non-finite value" + at + std::to_string(i) + ")");
          if (!std::isfinite(gv[i * D + c]))
            r_.fail(g.path + "/velocity/value", "non-finite value" + at + std::to_string(i) + ")");
        }
        all_id_.push_back(std::uint32_t(ids_[i]));
        all_kind_.push_back(std::uint8_t(g.kind));
      }
      allp.insert(allp.end(), gp.begin(), gp.begin() + std::ptrdiff_t(live * D));
      allv.insert(allv.end(), gv.begin(), gv.begin() + std::ptrdiff_t(live * D));
    }
    const std::size_t n = all_id_.size();
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), std::uint32_t(0));
    if (!std::is_sorted(all_id_.begin(), all_id_.end()))
      std::sort(order_.begin(), order_.end(),
                [&](std::uint32_t a, std::uint32_t b) { return all_id_[a] < all_id_[b]; });
    id.resize(n);
    kind.resize(n);
    for (int c = 0; c < 6; ++c)
      if (std::size_t(c % 3) < D) comps[c]->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t s = order_[i];
      id[i] = all_id_[s];
      kind[i] = all_kind_[s];
      if (i > 0 && id[i] <= id[i - 1])
        r_.fail("/particles", "id " + std::to_string(id[i]) +
                                  (id[i] == id[i - 1] ? " appears twice" : " out of order") +
                                  " (frame " + std::to_string(k) + ")");
      for (std::size_t c = 0; c < D; ++c) {
        (*comps[c])[i] = allp[s * D + c];
        (*comps[3 + c])[i] = allv[s * D + c];
      }
    }
  }

  h5md::Reader r_;
  std::vector<Group> groups_;
  std::vector<std::int64_t> ids_;
  std::vector<std::int32_t> species_;
  std::vector<std::uint32_t> all_id_, order_;
  std::vector<std::uint8_t> all_kind_;
  std::vector<float> pf_, vf_;
  std::vector<double> pd_, vd_;
};

}  // namespace

std::unique_ptr<Recording::Impl> open_h5md(const std::string& path) {
  return std::make_unique<H5mdRec>(path);
}

}  // namespace boids::io_detail
