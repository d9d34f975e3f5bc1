#include "parallel/cluster_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/cluster_kernels.hpp"

namespace boids {
template <class Real>
PairCounts cluster_count_pairs(const GridView<Real>& g, Executor& ex) {
  const int D = g.dims;
  const std::size_t ncells = g.ncells();
  std::vector<PairCounts> per_cell(ncells);
  ex.parallel_for(ncells, 64, [&](std::size_t c0, std::size_t c1) {
    std::vector<FlockSums<Real>> sums;
    KernelScratch<Real> scratch;
    struct Box {
      Real lo[3], hi[3];
      std::uint32_t size;
      bool own;
    };
    std::vector<Box> boxes;
    for (std::size_t cell = c0; cell < c1; ++cell) {
      const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
      if (first == last) continue;
      const int ci[3] = {int(cell % std::size_t(g.n[0])),
                         int(cell / std::size_t(g.n[0]) % std::size_t(g.n[1])),
                         int(cell / (std::size_t(g.n[0]) * std::size_t(g.n[1])))};
      // The candidate groups of the cell and their boxes, as the kernel builds them.
      boxes.clear();
      for (int dz = -g.reach[2]; dz <= g.reach[2]; ++dz)
        for (int dy = -g.reach[1]; dy <= g.reach[1]; ++dy)
          for (int dx = -g.reach[0]; dx <= g.reach[0]; ++dx) {
            const int dd[3] = {dx, dy, dz};
            int cc[3];
            Real sh[3] = {0, 0, 0};
            bool skip = false;
            for (int c = 0; c < 3; ++c) {
              cc[c] = ci[c] + dd[c];
              if (cc[c] < 0 || cc[c] >= g.n[c]) {
                if (g.wrap == WrapMode::none) skip = true;
                sh[c] = cc[c] < 0 ? -g.size : g.size;
                cc[c] = cc[c] < 0 ? cc[c] + g.n[c] : cc[c] - g.n[c];
              }
            }
            if (skip) continue;
            const std::size_t other =
                std::size_t(cc[0]) +
                std::size_t(g.n[0]) *
                    (std::size_t(cc[1]) + std::size_t(g.n[1]) * std::size_t(cc[2]));
            const std::uint32_t ob = g.cell_start[other], oe = g.cell_start[other + 1];
            for (std::uint32_t j0 = ob; j0 < oe; j0 += kGroup) {
              const std::uint32_t j1 = std::min<std::uint32_t>(oe, j0 + kGroup);
              Box bx{};
              bx.size = j1 - j0;
              bx.own = dx == 0 && dy == 0 && dz == 0;
              for (int c = 0; c < D; ++c) {
                bx.lo[c] = std::numeric_limits<Real>::infinity();
                bx.hi[c] = -bx.lo[c];
                for (std::uint32_t j = j0; j < j1; ++j) {
                  Real q = g.p[c][j];
                  if (g.wrap == WrapMode::shift) q = q + sh[c];
                  bx.lo[c] = q < bx.lo[c] ? q : bx.lo[c];
                  bx.hi[c] = q > bx.hi[c] ? q : bx.hi[c];
                }
              }
              boxes.push_back(bx);
            }
          }
      // Every i-pair (slots h, h + 1 of each group of 4 of the cell) streams the groups whose
      // box is within r of either of its boids (its own group always): each of its boids
      // examines every boid of those groups but itself.
      PairCounts& pc = per_cell[cell];
      for (std::uint32_t i0 = first; i0 < last; i0 += 2) {
        const std::uint32_t i1 = std::min<std::uint32_t>(last, i0 + 2);
        const std::uint32_t own_group = (i0 - first) / kGroup;
        std::uint64_t kept = 0;
        std::uint32_t own_seen = 0;
        for (const Box& bx : boxes) {
          bool keep = g.wrap == WrapMode::min_image || (bx.own && own_seen++ == own_group);
          for (std::uint32_t i = i0; i < i1 && !keep; ++i) {
            const Real p[3] = {g.p[0][i], g.p[1][i], g.p[2][i]};
            const Real d2 =
                D == 2 ? box_dist2<Real, 2>(p, bx.lo, bx.hi) : box_dist2<Real, 3>(p, bx.lo, bx.hi);
            keep = d2 < g.kp.radius2;
          }
          if (keep) kept += bx.size;
        }
        pc.candidates += (i1 - i0) * (kept - 1);
      }
      sums.resize(last - first);
      if (D == 2)
        generic_cell_sums<Real, 2>(g, std::uint32_t(cell), sums.data(), scratch);
      else
        generic_cell_sums<Real, 3>(g, std::uint32_t(cell), sums.data(), scratch);
      for (const FlockSums<Real>& s : sums) pc.neighbours += std::uint64_t(s.k);
    }
  });
  PairCounts total;
  for (const PairCounts& pc : per_cell) {
    total.candidates += pc.candidates;
    total.neighbours += pc.neighbours;
  }
  return total;
}

template PairCounts cluster_count_pairs(const GridView<float>&, Executor&);
template PairCounts cluster_count_pairs(const GridView<double>&, Executor&);

}  // namespace boids
