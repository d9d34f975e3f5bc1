// The cluster kernels' summation order (core/cluster_kernels.hpp) against a scalar emulation of
// its contract: each i-pair's list of the candidate groups whose box is within r of either of
// its boids, in the row buffer's order; entry t of the list in half t mod 2 of a 16-lane tile,
// lane 8k + 4e + l summing slot l of the entries of parity k for i-boid e in list order; a
// boid's lanes combined as x_l = half 0 + half 1, then (x_0 + x_1) + (x_2 + x_3). Every
// instruction set must give these bits exactly (the AVX-512 float kernel one register per
// tile, the narrower ones one half at a time).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "boids/world.hpp"
#include "core/cluster_kernels.hpp"
#include "core/kernels.hpp"
#include "core/model.hpp"
#include "kernel_fixture.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/cluster_grid.hpp"
#include "parallel/threading.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;

// The FlockSums of slot i by the contract above, in a reflecting world (no image shifts).
template <class Real, int D>
FlockSums<Real> cluster_lane_sums(const GridView<Real>& g, std::uint32_t i) {
  const KindParams<Real>& kp = g.kp;
  std::uint32_t cell = 0;
  while (g.cell_start[cell + 1] <= i) ++cell;
  const int ci[3] = {int(cell % std::uint32_t(g.n[0])),
                     int(cell / std::uint32_t(g.n[0]) % std::uint32_t(g.n[1])),
                     int(cell / std::uint32_t(g.n[0]) / std::uint32_t(g.n[1]))};
  const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
  const std::uint32_t q = i - first;
  const std::uint32_t a = first + q / 2 * 2;  // the pair's boids: a and (if real) a + 1
  const std::uint32_t npair = a + 1 < last ? 2 : 1;
  Real vi2 = 0;
  for (int c = 0; c < D; ++c) vi2 += g.v[c][i] * g.v[c][i];
  const Real vlen = std::sqrt(vi2);
  Real ld[2][kGroup][D] = {}, lv[2][kGroup][D] = {}, ls[2][kGroup][D] = {};
  std::int32_t count = 0;
  std::uint32_t t = 0;  // list entries so far
  for (int x = ci[0] - g.reach[0]; x <= ci[0] + g.reach[0]; ++x) {
    if (x < 0 || x >= g.n[0]) continue;
    for (int z = ci[2] - g.reach[2]; z <= ci[2] + g.reach[2]; ++z) {
      if (z < 0 || z >= g.n[2]) continue;
      for (int y = ci[1] - g.reach[1]; y <= ci[1] + g.reach[1]; ++y) {
        if (y < 0 || y >= g.n[1]) continue;
        const std::uint32_t c = std::uint32_t(x + g.n[0] * (y + g.n[1] * z));
        for (std::uint32_t j0 = g.cell_start[c]; j0 < g.cell_start[c + 1]; j0 += kGroup) {
          const std::uint32_t j1 = std::min<std::uint32_t>(g.cell_start[c + 1], j0 + kGroup);
          Real lo[3], hi[3];
          for (int k = 0; k < D; ++k) {
            lo[k] = std::numeric_limits<Real>::infinity();
            hi[k] = -lo[k];
            for (std::uint32_t j = j0; j < j1; ++j) {
              lo[k] = std::min(lo[k], g.p[k][j]);
              hi[k] = std::max(hi[k], g.p[k][j]);
            }
          }
          bool keep = false;
          for (std::uint32_t b = a; b < a + npair; ++b) {
            Real p[3];
            for (int k = 0; k < D; ++k) p[k] = g.p[k][b];
            keep = keep || box_dist2<Real, D>(p, lo, hi) < kp.radius2;
          }
          if (!keep) continue;
          const int half = int(t++ % 2);
          for (std::uint32_t j = j0; j < j1; ++j) {
            if (j == i) continue;
            Real d[D];
            Real d2 = 0, dot = 0;
            for (int k = 0; k < D; ++k) {
              d[k] = g.p[k][j] - g.p[k][i];
              d2 = d2 + d[k] * d[k];
            }
            for (int k = 0; k < D; ++k) dot = dot + d[k] * g.v[k][i];
            if (!(d2 < kp.radius2)) continue;
            if (!kp.full_view && !(dot >= std::sqrt(d2) * vlen * kp.cos_half_view)) continue;
            const int l = int(j - j0);
            ++count;
            for (int k = 0; k < D; ++k) {
              ld[half][l][k] = ld[half][l][k] + d[k];
              lv[half][l][k] = lv[half][l][k] + g.v[k][j];
            }
            if (d2 >= std::numeric_limits<Real>::min() && d2 < kp.sep_radius2) {
              const Real inv = Real(1) / d2;
              for (int k = 0; k < D; ++k) ls[half][l][k] = ls[half][l][k] - d[k] * inv;
            }
          }
        }
      }
    }
  }
  auto tree = [](const Real(&x)[2][kGroup][D], int k) {
    Real s[kGroup];
    for (int l = 0; l < kGroup; ++l) s[l] = x[0][l][k] + x[1][l][k];
    return (s[0] + s[1]) + (s[2] + s[3]);
  };
  FlockSums<Real> s{};
  s.k = count;
  for (int k = 0; k < D; ++k) {
    s.d[k] = tree(ld, k);
    s.v[k] = tree(lv, k);
    s.sep[k] = tree(ls, k);
  }
  return s;
}

template <class Real, int D>
void check_cluster_lanes(double view_angle, std::uint64_t seed) {
  const WorldDef d = test::small_world(D, Boundary::reflect, view_angle);
  const ModelParams<Real> m = ModelParams<Real>::from_def(d);
  REQUIRE(simd_pair_rule(m.kind[0]));
  const std::size_t n = D == 3 ? 2500 : 900;  // ~ 10 boids per cell: several groups per cell
  BoidStore<Real> src, dst;
  test::random_store(src, D, n, 30.0, seed);
  CellList<Real> cells;
  const GridView<Real> g = test::build_cells(d, m, src, dst, cells, true);
  REQUIRE(cells.max_occupancy() > std::uint32_t(2 * kGroup));  // lists of several entries
  std::vector<FlockSums<Real>> ref(n), got(n);
  for (std::uint32_t i = 0; i < n; ++i) ref[i] = cluster_lane_sums<Real, D>(g, i);
  KernelScratch<Real> scratch;
  for (Isa isa : test::testable_isas()) {
    const RowKernel<Real> kernel = select_cluster_kernel<Real>(isa, D, g.wrap, g.kp.full_view);
    for (std::uint32_t r = 0; r < g.nrows(); ++r)
      if (g.row_start(r) != g.row_start(r + 1)) kernel(g, r, got.data() + g.row_start(r), scratch);
    INFO(isa_name(isa) << " " << D << "D " << sizeof(Real) << "-byte reals, view " << view_angle);
    test::require_same_sums<Real, D>(got, ref);
  }
}

}  // namespace

TEST_CASE("cluster kernels: 16-lane tiles give the contract's sums exactly on every ISA",
          "[cluster]") {
  for (double view : {360.0, 250.0}) {
    check_cluster_lanes<float, 2>(view, 1);
    check_cluster_lanes<double, 2>(view, 2);
    check_cluster_lanes<float, 3>(view, 3);
    check_cluster_lanes<double, 3>(view, 4);
  }
}

TEST_CASE("cluster sweep: the blocked row order visits every x-row once", "[cluster]") {
  for (int n1 : {1, 3, 8, 13, 16, 51})
    for (int n2 : {1, 2, 7, 51}) {
      const std::size_t rows = std::size_t(n1) * std::size_t(n2);
      std::vector<int> seen(rows, 0);
      for (std::size_t at = 0; at < rows; ++at) {
        const std::size_t r = cluster_sweep_row(at, n1, n2);
        REQUIRE(r < rows);
        ++seen[r];
      }
      INFO(n1 << " x " << n2);
      CHECK(std::count(seen.begin(), seen.end(), 1) == std::ptrdiff_t(rows));
      // Blocks of kSweepBlock y-rows, z by z: the second row visited is y = 1 of plane 0.
      if (n1 >= int(kSweepBlock) && n2 > 1) CHECK(cluster_sweep_row(1, n1, n2) == 1);
      if (n1 >= int(kSweepBlock) && n2 > 1)
        CHECK(cluster_sweep_row(kSweepBlock, n1, n2) == std::size_t(n1));
    }
}

namespace {

// The sliding row copy (ClusterRowCopy::copy): x-rows run in order with one
// scratch take the stencil rows y - 1 and y of every plane from the previous row's copy. Their
// sums must equal, bit for bit, those of the same rows each copied whole from the store (the
// previous row forgotten before every call), with image shifts (wrap) and without (reflect),
// and exactly the rows after a row with the whole stencil, in the same plane, must slide.
template <class Real, int D>
void check_cluster_slide(Boundary boundary, std::uint64_t seed) {
  const WorldDef d = test::small_world(D, boundary, 250);
  const ModelParams<Real> m = ModelParams<Real>::from_def(d);
  const std::size_t n = D == 3 ? 2500 : 900;
  BoidStore<Real> src, dst;
  test::random_store(src, D, n, 30.0, seed);
  CellList<Real> cells;
  const GridView<Real> g = test::build_cells(d, m, src, dst, cells, true);
  REQUIRE(g.n[1] >= 4);
  // The stencil is whole (3 rows deep in y and, in 3D, in z) everywhere under wrap, in the
  // interior rows otherwise; a row slides when it and the row before it (y - 1, the same z)
  // have it.
  const bool wrap = boundary == Boundary::wrap;
  auto whole = [&](std::uint32_t r) {
    const int y = int(r % std::uint32_t(g.n[1])), z = int(r / std::uint32_t(g.n[1]));
    return wrap || (y > 0 && y + 1 < g.n[1] && (D == 2 || (z > 0 && z + 1 < g.n[2])));
  };
  std::uint64_t want = 0;
  for (std::uint32_t r = 1; r < g.nrows(); ++r) {
    REQUIRE(g.row_start(r) != g.row_start(r + 1));  // every row runs
    if (r % std::uint32_t(g.n[1]) != 0 && whole(r) && whole(r - 1)) ++want;
  }
  REQUIRE(want > 0);
  std::vector<FlockSums<Real>> ref(n), got(n);
  KernelScratch<Real> scratch;
  for (Isa isa : test::testable_isas()) {
    const RowKernel<Real> kernel = select_cluster_kernel<Real>(isa, D, g.wrap, g.kp.full_view);
    const std::uint64_t slid0 = cluster_slid_rows();
    for (std::uint32_t r = 0; r < g.nrows(); ++r) {
      scratch.prev_row = KernelScratch<Real>::kNoPrevRow;
      kernel(g, r, ref.data() + g.row_start(r), scratch);
    }
    CHECK(cluster_slid_rows() == slid0);
    scratch.prev_row = KernelScratch<Real>::kNoPrevRow;
    for (std::uint32_t r = 0; r < g.nrows(); ++r)
      kernel(g, r, got.data() + g.row_start(r), scratch);
    INFO(isa_name(isa) << " " << D << "D " << sizeof(Real) << "-byte reals, wrap " << wrap);
    CHECK(cluster_slid_rows() - slid0 == want);
    test::require_same_sums<Real, D>(got, ref);
  }
}

}  // namespace

TEST_CASE("cluster kernels: a row slid from the previous row's copy gives the same bits",
          "[cluster]") {
  for (Boundary b : {Boundary::wrap, Boundary::reflect}) {
    check_cluster_slide<float, 2>(b, 11);
    check_cluster_slide<double, 2>(b, 12);
    check_cluster_slide<float, 3>(b, 13);
    check_cluster_slide<double, 3>(b, 14);
  }
}
