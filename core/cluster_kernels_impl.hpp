// The cluster-pair kernel (core/cluster_kernels.hpp has the design), written once over a pack
// and compiled per instruction set by cluster_kernels_<isa>.cpp. Only those files include it.
//
// A pack here (W = 1, 2, 4, 8 or 16 lanes) provides, beyond load/splat/masked add of the row
// kernel's pack (kernels_impl.hpp): max, bits (the mask as an integer, lane l = bit l), K /
// kzero / count_if / kstore (integer count lanes), copy_group (copy_group_scalar's values),
// for W = 8 load_quad2 (4 values into both quarters), for W = 16 load_quad4 (two groups' 4
// values, each in one half) and splat2, and optionally tile_tree (the lane tree of
// StandardRule::finish, core/cluster_rule.hpp, in registers).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cluster_kernels.hpp"
#include "core/cluster_prune.hpp"
#include "core/cluster_row_copy.hpp"
#include "core/cluster_rule.hpp"
#include "core/cluster_tiles.hpp"

namespace boids {
namespace {
namespace cluster_detail {

// One x-row: the row copy (cluster_row_copy.hpp), then per i-group the pruning
// (cluster_prune.hpp) and per i-pair the tiles (cluster_tiles.hpp).
template <class P, class Real, int D, WrapMode WM, bool FV>
struct ClusterKernel {
  using Copy = ClusterRowCopy<P, Real, D, WM>;
  using Prune = ClusterPrune<P, Real, D>;
  using Tiles = ClusterTiles<P, Real, D, WM, FV>;
  static constexpr std::size_t GS = ClusterBuf<Real, D>::GS;

  static void row(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                  KernelScratch<Real>& scratch) {
    const int n0 = g.n[0], rx = g.reach[0];
    const RowLayout<Real, D> lay = Copy::copy(g, row, scratch);
    const ClusterBuf<Real, D>& b = lay.b;
    const std::uint32_t* const col_group = lay.col_group;
    const std::uint32_t* const own_group = lay.own_group;
    std::uint32_t* const(&keep)[2] = lay.keep;
    const std::uint32_t row_first = g.cell_start[row * std::uint32_t(n0)];
    for (int x = 0; x < n0; ++x) {
      const std::uint32_t cell = row * std::uint32_t(n0) + std::uint32_t(x);
      const std::uint32_t first = g.cell_start[cell], len = g.cell_start[cell + 1] - first;
      const std::uint32_t g0 = col_group[x], g1 = col_group[x + 2 * rx + 1];
      const std::uint32_t own0 = own_group[x + rx];
      for (std::uint32_t q0 = 0; q0 < len; q0 += kGroup) {
        const std::uint32_t og = own0 + q0 / kGroup;  // the i-group
        const std::uint32_t gm = std::min<std::uint32_t>(kGroup, len - q0);
        const std::uint32_t npairs = (gm + 1) / 2;
        Real p[kGroup][D];  // padding slots: +inf, velocity 0
        for (int e = 0; e < kGroup; ++e)
          for (int c = 0; c < D; ++c) p[e][c] = b.p[c][std::size_t(og) * GS + std::size_t(e)];
        std::uint32_t nk[2] = {0, 0}, own_at[2] = {0, 0};
        if constexpr (WM == WrapMode::min_image) {
          // Boxes mean nothing under the per-pair minimum image: every group, for both pairs.
          for (std::uint32_t gk = g0; gk < g1; ++gk) keep[0][nk[0]++] = gk;
          nk[1] = nk[0];
          own_at[0] = own_at[1] = og - g0;
        } else {
          Prune::prune_group(g, b, p, npairs, og, g0, g1, keep, nk, own_at);
        }
        for (std::uint32_t h = 0; h < npairs; ++h) {
          const std::uint32_t* kp = WM == WrapMode::min_image ? keep[0] : keep[h];
          Tiles::pair(g, b, og, 2 * h, gm, p, kp, nk[h], own_at[h], out + (first + q0 - row_first));
        }
      }
    }
    cluster_keep_row(scratch, lay.whole ? row : KernelScratch<Real>::kNoPrevRow);
  }
};

template <template <class> class PF, class Real>
void fill_table(ClusterTable<Real>& t) {
  auto put = [&]<int D, WrapMode WM>() {
    t.row[D - 2][int(WM)][0] = &ClusterKernel<PF<Real>, Real, D, WM, false>::row;
    t.row[D - 2][int(WM)][1] = &ClusterKernel<PF<Real>, Real, D, WM, true>::row;
  };
  put.template operator()<2, WrapMode::none>();
  put.template operator()<2, WrapMode::shift>();
  put.template operator()<2, WrapMode::min_image>();
  put.template operator()<3, WrapMode::none>();
  put.template operator()<3, WrapMode::shift>();
  put.template operator()<3, WrapMode::min_image>();
}

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
