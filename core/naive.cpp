// The naive reference stepper. It is the source of truth the grid engine is tested against,
// so it is kept deliberately simple: every boid looks at every other boid, in id order, and
// the new state is written to a second store (synchronous update).
#include "core/naive.hpp"

#include "core/neighbour_list.hpp"
#include "core/sequential_order.hpp"

namespace boids {
namespace {

template <class Real>
class NaiveEngine final : public EngineT<Real> {
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

  std::string kernel_name() const override { return "naive"; }
  std::size_t bytes_per_boid() const override { return 2 * BoidStore<Real>::bytes_per_boid(); }

  PairCounts count_pairs() const override {
    PairCounts pc;
    const BoidStore<Real>& s = this->s_;
    for (std::size_t i = 0; i < s.n; ++i) {
      const std::int32_t k = sums_for(i).k;
      for (std::size_t j = 0; j < s.n; ++j) pc.candidates += (j != i && s.kind[j] == s.kind[i]);
      pc.neighbours += std::uint64_t(k);
    }
    return pc;
  }

 private:
  FlockSums<Real> sums_for(std::size_t i) const {
    return this->m_.dims == 2 ? sums_for<2>(i) : sums_for<3>(i);
  }

  template <int D>
  FlockSums<Real> sums_for(std::size_t i) const {
    return naive_sums<Real, D>(this->m_, this->s_, i);
  }

  template <int D>
  void step_once() {
    const ModelParams<Real>& m = this->m_;
    const BoidStore<Real>& s = this->s_;
    next_.dims = s.dims;
    next_.resize(s.n);
    const StepContext<Real> ctx = prepare_step(m, s, this->steps_, this->def_.seed);
    // One boid's new state into next_ at slot i.
    auto update = [&](std::size_t i) {
      if (m.list.active && s.kind[i] == 0) {
        // Topological neighbours and the couzin profile (core/neighbour_list.hpp).
        list_.clear();
        nlist::gather<Real, D>(m, s, i, 0, std::uint32_t(s.n), list_);
        nlist::finish_from_list<Real, D>(m, ctx, s, i, list_, next_, i);
      } else {
        finish_slot<Real, D>(m, ctx, s, i, sums_for<D>(i), next_, i);
      }
    };
    if (this->def_.update == UpdateOrder::sequential) {
      // In place, one agent at a time in a random order (a Fisher-Yates shuffle drawn from
      // (seed, step)): later agents see earlier agents' new state of the same step. The
      // per-step context (centres, predators' view) stays that of the step's start.
      sequential_order(this->def_.seed, this->steps_, s.n, order_);
      for (std::size_t i : order_) {
        update(i);
        for (int c = 0; c < D; ++c) {
          this->s_.p[c][i] = next_.p[c][i];
          this->s_.v[c][i] = next_.v[c][i];
        }
      }
      return;
    }
    for (std::size_t i = 0; i < s.n; ++i) update(i);
    this->s_.swap(next_);
  }

  std::vector<std::size_t> order_;

  BoidStore<Real> next_;
  std::vector<nlist::Neighbour<Real>> list_;
};

}  // namespace

std::unique_ptr<EngineBase> make_naive_engine(const WorldDef& def) {
  if (def.precision == Precision::f64) return std::make_unique<NaiveEngine<double>>(def);
  return std::make_unique<NaiveEngine<float>>(def);
}

}  // namespace boids
