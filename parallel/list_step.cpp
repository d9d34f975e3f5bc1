#include "parallel/list_step.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/neighbour_list.hpp"
#include "parallel/list_gather.hpp"

namespace boids {
namespace {

// The visible candidates of boid i among the cell's stencil runs: nlist::offer's arithmetic
// (the same d, |d|^2 and view test, so the same bits as the naive gather), with the
// distances of a chunk of candidates computed first in a loop the compiler vectorises
// (this file is compiled with -fno-trapping-math, parallel/CMakeLists.txt). Every slot in the
// cells holds a kind-0 boid.
template <class Real, int D, bool Wrap>
void gather_runs(const ModelParams<Real>& m, const BoidStore<Real>& s, std::uint32_t i,
                 const CandidateRun<Real>* runs, int nr, std::vector<nlist::Neighbour<Real>>& out) {
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
      for (std::uint32_t q = 0; q < len; ++q) {
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
        out.push_back(nb);
      }
    }
  }
}

template <class Real, int D>
void list_rows(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  // Topological k up to kMaxKBest: the per-ISA gather keeps the k nearest as it goes
  // (parallel/list_gather.hpp); beyond, every visible candidate and a partial sort.
  const bool select_early = m.list.topo_k > 0 && m.list.topo_k <= nlist::kMaxKBest;
  list_detail::GatherInput<Real> gin;
  for (int c = 0; c < D; ++c) {
    gin.p[c] = in.p[c].data();
    gin.v[c] = in.v[c].data();
  }
  gin.id = in.id.data();
  gin.size = m.size;
  gin.inv_size = m.inv_size;
  gin.radius2 = m.kind[0].radius2;
  gin.cos_half_view = m.kind[0].cos_half_view;
  gin.full_view = m.kind[0].full_view;
  const list_detail::GatherFn<Real> gather =
      list_detail::select_gather_fn<Real>(D, m.boundary == Boundary::wrap);
  ex.parallel_for(g.nrows(), 1, [&](std::size_t b, std::size_t e) {
    std::vector<nlist::Neighbour<Real>> list;
    std::vector<nlist::Neighbour<Real>> best(select_early ? std::size_t(m.list.topo_k) : 1);
    CandidateRun<Real> runs[kMaxRuns];
    for (std::size_t row = b; row < e; ++row) {
      const std::uint32_t c0 = std::uint32_t(row) * std::uint32_t(g.n[0]);
      for (std::uint32_t cell = c0; cell < c0 + std::uint32_t(g.n[0]); ++cell) {
        const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
        if (first == last) continue;
        const int nr = cell_runs(g, cell, runs);
        for (std::uint32_t i = first; i < last; ++i) {
          if (select_early) {
            int found = 0;
            gather(gin, i, runs, nr, m.list.topo_k, best.data(), &found);
            list.assign(best.begin(), best.begin() + found);
            nlist::finish_from_list<Real, D>(m, ctx, in, i, list, out, i);
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
