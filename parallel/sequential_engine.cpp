// world.update = "sequential" on the grid and cluster engines: the naive engine's in-place,
// random-order update (core/naive.cpp) with a cell index instead of the scan over all boids.
//
// The update is serial by definition (agent k of the order sees the new state of agents
// 0 .. k-1), so this engine is one thread. What it changes is the cost of a boid's look-up:
// O(neighbours) instead of O(n). The index is a hashed grid of cells at least as wide as the
// largest radius, kept exact while the step runs: when a boid moves, it moves to its new
// cell's bucket at once, so a later boid's candidates (the boids of the 3^D cells around it)
// always hold every boid within its radius at their current positions.
//
// Bits. The candidates within reach are sorted by slot (slots are id ranks, as in the naive
// engine) and go through the naive engine's own pair code (sums_over, nlist::offer) in that
// order; every boid the naive engine adds beyond them is out of reach and adds nothing. So each
// update, and the whole run, is bit-identical to engine.kind = "naive" with the same update
// (tests/test_sequential_engine.cpp), whatever the engine.kind and thread count.
#include "parallel/sequential_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/neighbour_list.hpp"
#include "core/sequential_order.hpp"

namespace boids {
namespace {

// Hashed cells: bucket = hash(cell coordinates) & mask, each bucket an array of its boids'
// slot, kind and position (a copy of the store's, kept current), so a look-up reads a few
// short contiguous arrays instead of chasing slots scattered over the store. Different cells
// may share a bucket (only more candidates, removed by the exact test); a slot is in exactly
// one bucket, at where_[slot].
template <class Real>
class CellHash {
 public:
  struct Entry {
    Real p[3];
    std::uint32_t slot;
    std::uint32_t kind;
  };

  void reset(std::size_t n) {
    std::size_t b = 64;
    while (b < 2 * n) b *= 2;
    if (cells_.size() != b) cells_.assign(b, {});
    for (auto& c : cells_) c.clear();  // keeps each bucket's capacity from step to step
    mask_ = b - 1;
    where_.assign(n, {0, 0});
  }
  void insert(std::uint32_t j, std::size_t b, const Real* p, std::uint32_t kind) {
    std::vector<Entry>& c = cells_[b];
    where_[j] = {std::uint32_t(b), std::uint32_t(c.size())};
    c.push_back({{p[0], p[1], p[2]}, j, kind});
  }
  // Moves slot j to bucket b with position p (the same bucket: only the position changes).
  void update(std::uint32_t j, std::size_t b, const Real* p) {
    const Where w = where_[j];
    Entry& e = cells_[w.bucket][w.index];
    if (w.bucket == b) {
      for (int c = 0; c < 3; ++c) e.p[c] = p[c];
      return;
    }
    const std::uint32_t kind = e.kind;
    std::vector<Entry>& old = cells_[w.bucket];
    old[w.index] = old.back();
    where_[old[w.index].slot].index = w.index;
    old.pop_back();
    insert(j, b, p, kind);
  }
  const std::vector<Entry>& bucket(std::size_t b) const { return cells_[b]; }
  std::size_t mask() const { return mask_; }
  std::size_t bytes() const {
    std::size_t e = 0;
    for (const auto& c : cells_) e += c.capacity();
    return sizeof(Entry) * e + sizeof(std::vector<Entry>) * cells_.capacity() +
           sizeof(Where) * where_.capacity();
  }

 private:
  struct Where {
    std::uint32_t bucket, index;
  };
  std::vector<std::vector<Entry>> cells_;
  std::vector<Where> where_;
  std::size_t mask_ = 0;
};

template <class Real>
class SequentialEngine final : public EngineT<Real> {
 public:
  using EngineT<Real>::EngineT;

  void step(int count) override {
    for (int s = 0; s < count; ++s) {
      if (this->m_.dims == 2)
        step_once<2>();
      else
        step_once<3>();
      ++this->steps_;
    }
  }

  std::string kernel_name() const override { return "sequential"; }
  std::size_t bytes_per_boid() const override {
    const std::size_t n = std::max<std::size_t>(1, this->s_.n);
    return 2 * BoidStore<Real>::bytes_per_boid() + (cells_.bytes() + n - 1) / n;
  }

  PairCounts count_pairs() const override {
    auto* self = const_cast<SequentialEngine*>(this);  // the index is scratch, not state
    return this->m_.dims == 2 ? self->template count<2>() : self->template count<3>();
  }

 private:
  // Cell edge and cells per axis (0: no cells on that axis, under wrap fewer than 3 fit).
  void plan() {
    const ModelParams<Real>& m = this->m_;
    // The largest radius of the kinds present (an absent kind's radius would only widen
    // every cell).
    bool present[kKindCount] = {};
    for (std::size_t j = 0; j < this->s_.n; ++j) present[this->s_.kind[j] % kKindCount] = true;
    double r = 0;
    for (int k = 0; k < kKindCount; ++k)
      if (present[k]) r = std::max(r, double(m.kind[k].radius));
    edge_ = std::max(r * (1 + 1e-6), 1e-9);
    full_ = false;
    for (int c = 0; c < 3; ++c) ncell_[c] = 1;
    if (m.boundary == Boundary::wrap) {
      for (int c = 0; c < m.dims; ++c) {
        const double n = std::floor(double(m.size) / edge_);
        if (n < 3) full_ = true;  // the 3 cells around a boid would meet themselves
        ncell_[c] = std::int64_t(std::min(n, 1e6));
      }
      if (!full_) edge_ = double(m.size) / double(ncell_[0]);  // n cells tile the side exactly
    }
  }

  std::int64_t coord(double x, int c) const {
    double f = std::floor(x / edge_);
    f = std::clamp(f, -1e15, 1e15);  // open worlds: far cells share a coordinate (still exact)
    std::int64_t k = std::int64_t(f);
    if (this->m_.boundary == Boundary::wrap) {
      k %= ncell_[c];
      if (k < 0) k += ncell_[c];
    }
    return k;
  }
  std::size_t bucket(const std::int64_t* k) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int c = 0; c < 3; ++c) h = (h ^ std::uint64_t(k[c])) * 0xBF58476D1CE4E5B9ull;
    return std::size_t(h ^ (h >> 31)) & cells_.mask();
  }
  template <int D>
  std::size_t bucket_of(std::size_t j) const {
    std::int64_t k[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) k[c] = coord(double(this->s_.p[c][j]), c);
    return bucket(k);
  }

  // The buckets of the 3^D cells around slot i, each once.
  template <int D>
  void stencil(std::size_t i) {
    std::int64_t k0[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) k0[c] = coord(double(this->s_.p[c][i]), c);
    const int span[3] = {1, D > 1 ? 1 : 0, D > 2 ? 1 : 0};
    buckets_.clear();
    for (int dz = -span[2]; dz <= span[2]; ++dz)
      for (int dy = -span[1]; dy <= span[1]; ++dy)
        for (int dx = -span[0]; dx <= span[0]; ++dx) {
          std::int64_t k[3] = {k0[0] + dx, k0[1] + dy, k0[2] + dz};
          if (this->m_.boundary == Boundary::wrap)
            for (int c = 0; c < D; ++c) k[c] = (k[c] + ncell_[c]) % ncell_[c];
          buckets_.push_back(bucket(k));
        }
    std::sort(buckets_.begin(), buckets_.end());
    buckets_.erase(std::unique(buckets_.begin(), buckets_.end()), buckets_.end());
  }

  // Calls f(slot, p) for every other boid of i's kind near i (all of them when there are no
  // cells); returns how many.
  template <int D, class F>
  std::uint64_t for_candidates(std::size_t i, F&& f) {
    const BoidStore<Real>& s = this->s_;
    std::uint64_t n = 0;
    if (full_) {
      for (std::size_t j = 0; j < s.n; ++j) {
        if (j == i || s.kind[j] != s.kind[i]) continue;
        const Real p[3] = {s.p[0][j], s.p[1][j], D > 2 ? s.p[2][j] : Real(0)};
        f(std::uint32_t(j), p);
        ++n;
      }
      return n;
    }
    stencil<D>(i);
    for (std::size_t b : buckets_) {
      for (const auto& e : cells_.bucket(b)) {
        if (e.slot == i || e.kind != s.kind[i]) continue;
        f(e.slot, e.p);
        ++n;
      }
    }
    return n;
  }

  // Into cand_, ascending: the other boids of i's kind nearer than its radius (accumulate_pair's
  // first test, the same arithmetic), the pairs that can add to i's sums, in the naive
  // engine's order. Returns the number of candidates looked at.
  template <int D>
  std::uint64_t near(std::size_t i) {
    const BoidStore<Real>& s = this->s_;
    const ModelParams<Real>& m = this->m_;
    const Real r2 = m.kind[s.kind[i]].radius2;
    Real pi[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) pi[c] = s.p[c][i];
    cand_.clear();
    const std::uint64_t looked = for_candidates<D>(i, [&](std::uint32_t j, const Real* p) {
      Real dist2 = 0;
      for (int c = 0; c < D; ++c) {
        Real d = p[c] - pi[c];
        if (m.boundary == Boundary::wrap) d = min_image(d, m.size, m.inv_size);
        dist2 += d * d;
      }
      if (dist2 < r2) cand_.push_back(j);
    });
    std::sort(cand_.begin(), cand_.end());
    return looked;
  }

  template <int D>
  void index_all() {
    plan();
    cells_.reset(this->s_.n);
    const BoidStore<Real>& s = this->s_;
    for (std::size_t j = 0; j < s.n; ++j) {
      const Real p[3] = {s.p[0][j], s.p[1][j], D > 2 ? s.p[2][j] : Real(0)};
      cells_.insert(std::uint32_t(j), bucket_of<D>(j), p, s.kind[j]);
    }
  }

  template <int D>
  PairCounts count() {
    index_all<D>();
    PairCounts pc;
    const BoidStore<Real>& s = this->s_;
    for (std::size_t i = 0; i < s.n; ++i) {
      pc.candidates += near<D>(i);
      pc.neighbours += std::uint64_t(sums_over<Real, D>(this->m_, s, i, each()).k);
    }
    return pc;
  }

  auto each() const {
    return [this](const auto& f) {
      for (std::uint32_t j : cand_) f(j);
    };
  }

  template <int D>
  void step_once() {
    const ModelParams<Real>& m = this->m_;
    BoidStore<Real>& s = this->s_;
    next_.dims = s.dims;
    next_.resize(s.n);
    // The per-step context (centres, predators' view) is that of the step's start, as in
    // the naive engine.
    const StepContext<Real> ctx = prepare_step(m, s, this->steps_, this->def_.seed);
    index_all<D>();
    sequential_order(this->def_.seed, this->steps_, s.n, order_);
    for (std::size_t i : order_) {
      if (m.list.active && s.kind[i] == 0) {
        // Topological neighbours and the couzin profile (core/neighbour_list.hpp): the
        // candidates within reach offered as the naive engine offers them (nlist::offer's
        // distance test is accumulate_pair's, so near() drops none it would keep), then the
        // list's own selection and id order.
        near<D>(i);
        list_.clear();
        for (std::uint32_t j : cand_) nlist::gather<Real, D>(m, s, i, j, j + 1, list_);
        nlist::finish_from_list<Real, D>(m, ctx, s, i, list_, next_, i);
      } else {
        near<D>(i);
        finish_slot<Real, D>(m, ctx, s, i, sums_over<Real, D>(m, s, i, each()), next_, i);
      }
      for (int c = 0; c < D; ++c) {
        s.p[c][i] = next_.p[c][i];
        s.v[c][i] = next_.v[c][i];
      }
      if (!full_) {
        const Real p[3] = {s.p[0][i], s.p[1][i], D > 2 ? s.p[2][i] : Real(0)};
        cells_.update(std::uint32_t(i), bucket_of<D>(i), p);
      }
    }
  }

  double edge_ = 1;
  std::int64_t ncell_[3] = {1, 1, 1};
  bool full_ = false;
  CellHash<Real> cells_;
  std::vector<std::size_t> order_, buckets_;
  std::vector<std::uint32_t> cand_;
  BoidStore<Real> next_;
  std::vector<nlist::Neighbour<Real>> list_;
};

}  // namespace

std::unique_ptr<EngineBase> make_sequential_engine(const WorldDef& def) {
  if (def.precision == Precision::f64) return std::make_unique<SequentialEngine<double>>(def);
  return std::make_unique<SequentialEngine<float>>(def);
}

}  // namespace boids
