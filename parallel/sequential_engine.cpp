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
// Bits. The candidates are sorted by slot (slots are id ranks, as in the naive engine) and
// go through the naive engine's own pair code (sums_over, nlist::offer) in that order; the
// boids the naive engine adds beyond them are all out of reach and add nothing. So each
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

// Hashed cells: bucket = hash(cell coordinates) & mask, each bucket a doubly linked list of
// slots. Different cells may share a bucket (only more candidates, removed by the exact
// test); a slot is in exactly one bucket.
class CellHash {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  void reset(std::size_t n) {
    std::size_t b = 64;
    while (b < 2 * n) b *= 2;
    head_.assign(b, kNone);
    mask_ = b - 1;
    next_.assign(n, kNone);
    prev_.assign(n, kNone);
    bucket_.assign(n, 0);
  }
  void insert(std::uint32_t j, std::size_t b) {
    bucket_[j] = std::uint32_t(b);
    prev_[j] = kNone;
    next_[j] = head_[b];
    if (head_[b] != kNone) prev_[head_[b]] = j;
    head_[b] = j;
  }
  void erase(std::uint32_t j) {
    if (prev_[j] != kNone)
      next_[prev_[j]] = next_[j];
    else
      head_[bucket_[j]] = next_[j];
    if (next_[j] != kNone) prev_[next_[j]] = prev_[j];
  }
  void move(std::uint32_t j, std::size_t b) {
    if (bucket_[j] == b) return;
    erase(j);
    insert(j, b);
  }
  template <class F>
  void visit(std::size_t b, F&& f) const {
    for (std::uint32_t j = head_[b]; j != kNone; j = next_[j]) f(j);
  }
  std::size_t mask() const { return mask_; }
  std::size_t bytes() const {
    return sizeof(std::uint32_t) *
           (head_.capacity() + next_.capacity() + prev_.capacity() + bucket_.capacity());
  }

 private:
  std::vector<std::uint32_t> head_, next_, prev_, bucket_;
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

  // The slots of the 3^D cells around slot i, ascending, each once.
  template <int D>
  void candidates(std::size_t i) {
    cand_.clear();
    if (full_) {
      for (std::size_t j = 0; j < this->s_.n; ++j) cand_.push_back(std::uint32_t(j));
      return;
    }
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
    for (std::size_t b : buckets_) cells_.visit(b, [&](std::uint32_t j) { cand_.push_back(j); });
    std::sort(cand_.begin(), cand_.end());
  }

  template <int D>
  void index_all() {
    plan();
    cells_.reset(this->s_.n);
    for (std::size_t j = 0; j < this->s_.n; ++j) cells_.insert(std::uint32_t(j), bucket_of<D>(j));
  }

  template <int D>
  PairCounts count() {
    index_all<D>();
    PairCounts pc;
    const BoidStore<Real>& s = this->s_;
    for (std::size_t i = 0; i < s.n; ++i) {
      candidates<D>(i);
      for (std::uint32_t j : cand_) pc.candidates += (j != i && s.kind[j] == s.kind[i]);
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
      candidates<D>(i);
      if (m.list.active && s.kind[i] == 0) {
        // Topological neighbours and the couzin profile (core/neighbour_list.hpp): the
        // visible candidates, then the list's own selection and id order.
        list_.clear();
        const KindParams<Real>& kp = m.kind[0];
        Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, vi2 = 0;
        for (int c = 0; c < D; ++c) {
          pi[c] = s.p[c][i];
          vi[c] = s.v[c][i];
          vi2 += vi[c] * vi[c];
        }
        const Real vi_len = std::sqrt(vi2);
        for (std::uint32_t j : cand_) {
          if (j == i || s.kind[j] != 0) continue;
          nlist::offer<Real, D>(m, kp, s, j, pi, vi, vi_len, list_);
        }
        nlist::finish_from_list<Real, D>(m, ctx, s, i, list_, next_, i);
      } else {
        finish_slot<Real, D>(m, ctx, s, i, sums_over<Real, D>(m, s, i, each()), next_, i);
      }
      for (int c = 0; c < D; ++c) {
        s.p[c][i] = next_.p[c][i];
        s.v[c][i] = next_.v[c][i];
      }
      if (!full_) cells_.move(std::uint32_t(i), bucket_of<D>(i));
    }
  }

  double edge_ = 1;
  std::int64_t ncell_[3] = {1, 1, 1};
  bool full_ = false;
  CellHash cells_;
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
