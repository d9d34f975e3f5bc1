#include "parallel/list_step.hpp"

#include <vector>

#include "core/neighbour_list.hpp"

namespace boids {
namespace {

template <class Real, int D>
void list_rows(const ModelParams<Real>& m, const StepContext<Real>& ctx, const GridView<Real>& g,
               const BoidStore<Real>& in, BoidStore<Real>& out, Executor& ex) {
  ex.parallel_for(g.nrows(), 1, [&](std::size_t b, std::size_t e) {
    std::vector<nlist::Neighbour<Real>> list;
    CandidateRun<Real> runs[kMaxRuns];
    for (std::size_t row = b; row < e; ++row) {
      const std::uint32_t c0 = std::uint32_t(row) * std::uint32_t(g.n[0]);
      for (std::uint32_t cell = c0; cell < c0 + std::uint32_t(g.n[0]); ++cell) {
        const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
        if (first == last) continue;
        const int nr = cell_runs(g, cell, runs);
        for (std::uint32_t i = first; i < last; ++i) {
          list.clear();
          for (int r = 0; r < nr; ++r)
            nlist::gather<Real, D>(m, in, i, runs[r].begin, runs[r].end, list);
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
