#include "parallel/list_step.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/neighbour_list.hpp"

namespace boids {
namespace {

// The visible candidates of boid i among the cell's stencil runs: nlist::offer's arithmetic
// (the same d, |d|^2 and view test, so the same bits as the naive gather), with the
// distances of a chunk of candidates computed first in a loop the compiler vectorises
// (this file is compiled with -fno-trapping-math, parallel/CMakeLists.txt). Every slot in the
// cells holds a kind-0 boid.
//
// Out is a std::vector of every visible candidate, or an nlist::KBest that keeps only the k
// nearest: then a candidate farther than its current k-th is dropped after one comparison.
template <class Real, int D, bool Wrap, class Out>
void gather_runs(const ModelParams<Real>& m, const BoidStore<Real>& s, std::uint32_t i,
                 const CandidateRun<Real>* runs, int nr, Out& out) {
  constexpr bool kbest = !std::is_same_v<Out, std::vector<nlist::Neighbour<Real>>>;
  constexpr std::uint32_t kChunk = 64;
  const KindParams<Real>& kp = m.kind[0];
  Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0}, vi2 = 0;
  for (int c = 0; c < D; ++c) {
    pi[c] = s.p[c][i];
    vi[c] = s.v[c][i];
    vi2 += vi[c] * vi[c];
  }
  const Real vi_len = std::sqrt(vi2);
  const bool cone = !kp.full_view && vi_len > Real(0);
  const Real size = m.size, inv_size = m.inv_size, half = Real(0.5);
  alignas(64) Real dd[3][kChunk];
  alignas(64) Real d2[kChunk];
  for (int r = 0; r < nr; ++r) {
    for (std::uint32_t s0 = runs[r].begin; s0 < runs[r].end; s0 += kChunk) {
      const std::uint32_t len = std::min<std::uint32_t>(kChunk, runs[r].end - s0);
      for (int c = 0; c < D; ++c) {
        const Real* __restrict src = s.p[c].data() + s0;
        Real* __restrict dst = dd[c];
        const Real pc = pi[c];
        for (std::uint32_t q = 0; q < len; ++q) {
          Real d = src[q] - pc;
          if constexpr (Wrap) {
            const Real t = d * inv_size;
            d = (d - size * Real(t > half)) + size * Real(t < -half);
          }
          dst[q] = d;
        }
      }
      for (std::uint32_t q = 0; q < len; ++q) {
        Real x = 0;
        for (int c = 0; c < D; ++c) x += dd[c][q] * dd[c][q];
        d2[q] = x;
      }
      Real bound = kp.radius2;  // (KBest: the k-th nearest's |d|^2 once k are found)
      if constexpr (kbest) bound = std::min(bound, out.bound());
      for (std::uint32_t q = 0; q < len; ++q) {
        if (!(d2[q] <= bound)) continue;
        if (!(d2[q] < kp.radius2) || s0 + q == i) continue;
        if (cone) {
          Real dot = 0;
          for (int c = 0; c < D; ++c) dot += dd[c][q] * vi[c];
          if (!(dot >= std::sqrt(d2[q]) * vi_len * kp.cos_half_view)) continue;
        }
        nlist::Neighbour<Real> nb;
        for (int c = 0; c < 3; ++c) nb.d[c] = c < D ? dd[c][q] : Real(0);
        nb.dist2 = d2[q];
        nb.id = s.id[s0 + q];
        nb.slot = s0 + q;
        if constexpr (kbest) {
          out.offer(nb);
          bound = std::min(kp.radius2, out.bound());
        } else {
          out.push_back(nb);
        }
      }
    }
  }
}

template <class Real, int D>
void list_rows(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  ex.parallel_for(g.nrows(), 1, [&](std::size_t b, std::size_t e) {
    std::vector<nlist::Neighbour<Real>> list;
    nlist::KBest<Real> kbest;
    const bool select_early = m.list.topo_k > 0 && m.list.topo_k <= nlist::kMaxKBest;
    CandidateRun<Real> runs[kMaxRuns];
    for (std::size_t row = b; row < e; ++row) {
      const std::uint32_t c0 = std::uint32_t(row) * std::uint32_t(g.n[0]);
      for (std::uint32_t cell = c0; cell < c0 + std::uint32_t(g.n[0]); ++cell) {
        const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
        if (first == last) continue;
        const int nr = cell_runs(g, cell, runs);
        for (std::uint32_t i = first; i < last; ++i) {
          if (select_early) {
            kbest.reset(std::size_t(m.list.topo_k));
            if (m.boundary == Boundary::wrap)
              gather_runs<Real, D, true>(m, in, i, runs, nr, kbest);
            else
              gather_runs<Real, D, false>(m, in, i, runs, nr, kbest);
            nlist::finish_from_list<Real, D>(m, ctx, in, i, kbest.nb, out, i);
            continue;
          }
          list.clear();
          if (m.boundary == Boundary::wrap)
            gather_runs<Real, D, true>(m, in, i, runs, nr, list);
          else
            gather_runs<Real, D, false>(m, in, i, runs, nr, list);
          nlist::finish_from_list<Real, D>(m, ctx, in, i, list, out, i);
        }
      }
    }
  });
}

}  // namespace

template <class Real>
void list_step(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  if (m.dims == 2)
    list_rows<Real, 2>(m, ctx, g, in, out, ex);
  else
    list_rows<Real, 3>(m, ctx, g, in, out, ex);
}

template void list_step<float>(const ModelParams<float>&, const StepContext<float>&,
                               const GridView<float>&, const BoidStore<float>&, BoidStore<float>&,
                               Executor&);
template void list_step<double>(const ModelParams<double>&, const StepContext<double>&,
                                const GridView<double>&, const BoidStore<double>&,
                                BoidStore<double>&, Executor&);

}  // namespace boids
