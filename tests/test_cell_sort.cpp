// The cell list's one-pass sort (scatter with the id order fixed up as it goes, one block) and
// its parallel variant (scatter, then a pass over the buckets), against a plain sort by
// (cell, id) and, for the cluster engine, (cell, sub-cell key, id); and the row kernels' paired
// path (two boids of a cell over one candidate stream) against a scalar emulation of the kernels'
// lane layout (core/kernels.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "boids/world.hpp"
#include "core/kernels.hpp"
#include "core/model.hpp"
#include "kernel_fixture.hpp"
#include "parallel/cell_list.hpp"
#include "parallel/threading.hpp"
#include "test_support.hpp"

namespace {

using namespace boids;

// The cell of a position as the plan defines it: floor, clamped to the grid, NaN to 0.
int ref_axis_cell(double x, double lo, double inv, int n) {
  const double f = std::floor((x - lo) * inv);
  if (!(f >= 0)) return 0;
  return f >= n ? n - 1 : int(f);
}

template <class Real>
std::uint32_t ref_bucket(const BoidStore<Real>& s, std::size_t i, const GridPlan& g) {
  if (s.kind[i] != 0) return std::uint32_t(g.ncells);
  std::size_t key = 0;
  for (int c = g.dims - 1; c >= 0; --c)
    key = key * std::size_t(g.n[c]) +
          std::size_t(ref_axis_cell(double(s.p[c][i]), g.lo[c], g.inv_cell[c], g.n[c]));
  return std::uint32_t(key);
}

// The cluster engine's sub-cell key (GridSettings::subcell_order): the sub-cell index s_c in
// 0 .. 3 per axis (floor of 4 x the position's fraction of its cell, NaN to 0), bit 0 of s_c at
// bit c and bit 1 at bit D + c; 0 for kinds 1 and 2.
template <class Real>
unsigned ref_sub_key(const BoidStore<Real>& s, std::size_t i, const GridPlan& g) {
  if (s.kind[i] != 0) return 0;
  unsigned key = 0;
  for (int c = 0; c < g.dims; ++c) {
    const double f = (double(s.p[c][i]) - g.lo[c]) * g.inv_cell[c];
    const double q = std::floor((f - std::floor(f)) * 4);
    const unsigned sc = q >= 0 && q <= 3 ? unsigned(q) : 0;
    key |= (sc & 1u) << c | (sc >> 1) << (g.dims + c);
  }
  return key;
}

// dst must hold src's boids in (bucket, id) order (with `sub`: (bucket, sub-cell key, id)),
// every column moved with its boid.
template <class Real>
void check_sorted(const BoidStore<Real>& src, const BoidStore<Real>& dst, const GridPlan& g,
                  const std::uint32_t* start, bool sub = false) {
  const std::size_t n = src.n;
  REQUIRE(dst.n == n);
  std::vector<std::tuple<std::uint32_t, unsigned, std::uint32_t, std::size_t>> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = {ref_bucket(src, i, g), sub ? ref_sub_key(src, i, g) : 0u, src.id[i], i};
  std::sort(want.begin(), want.end());
  for (std::size_t j = 0; j < n; ++j) {
    const auto [b, key, id, i] = want[j];
    INFO("slot " << j);
    REQUIRE(dst.id[j] == id);
    REQUIRE(start[b] <= j);
    REQUIRE(j < start[b + 1]);
    REQUIRE(dst.kind[j] == src.kind[i]);
    for (int c = 0; c < g.dims; ++c) {
      // Bitwise (NaN included).
      REQUIRE(std::memcmp(&dst.p[c][j], &src.p[c][i], sizeof(Real)) == 0);
      REQUIRE(std::memcmp(&dst.v[c][j], &src.v[c][i], sizeof(Real)) == 0);
    }
  }
}

template <class Real>
void check_cell_sort(int dims, Boundary boundary, int threads, std::uint64_t seed,
                     bool sub = false) {
  const std::size_t n = 3000;
  const double size = 60;
  BoidStore<Real> src, a, b;
  src.dims = dims;
  src.resize(n);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, size), uv(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    src.id[i] = std::uint32_t(i * 7 % n);  // ids not in slot order
    src.kind[i] = std::uint8_t(i % 97 == 0 ? 1 : i % 89 == 0 ? 2 : 0);
    for (int c = 0; c < dims; ++c) {
      // A dense clump (a bucket past 64 boids: the sort after the scatter), stray boids
      // outside the box and a NaN (clamped to the edge cells, NaN to cell 0).
      double x = i % 5 == 0 ? 7.5 + 0.01 * double(i % 13) : u(gen);
      if (i == 11) x = -3;
      if (i == 12) x = size + 4;
      if (i == 13 && c == 0) x = std::numeric_limits<double>::quiet_NaN();
      src.p[c][i] = Real(x);
      src.v[c][i] = Real(uv(gen));
    }
  }
  std::shuffle(&src.id[0], &src.id[0] + n, gen);  // any slot order
  GridSettings gs;
  gs.dims = dims;
  gs.boundary = boundary;
  gs.size = size;
  gs.radius = 5;
  gs.subcell_order = sub;
  Executor ex(threads);
  CellList<Real> cells;
  cells.build(gs, src, a, ex);
  INFO(dims << "D, " << sizeof(Real) << "-byte reals, threads " << threads << ", sub " << sub);
  check_sorted(src, a, cells.plan(), cells.cell_start(), sub);
  CHECK(cells.sort_fixups() > 0);  // random order: the fix-ups ran
  // Built again from its own output: already in order, nothing to fix.
  cells.build(gs, a, b, ex);
  check_sorted(a, b, cells.plan(), cells.cell_start(), sub);
  CHECK(cells.sort_fixups() == 0);
  // A step's worth of motion: a few boids change cell (the common case of the step).
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < dims; ++c) b.p[c][i] = b.p[c][i] + Real(0.3) * b.v[c][i];
  cells.build(gs, b, a, ex);
  check_sorted(b, a, cells.plan(), cells.cell_start(), sub);
  CHECK(cells.sort_fixups() > 0);
}

}  // namespace

TEST_CASE("cell list: cell then id order, by the one-pass and the parallel scatter",
          "[grid][cells]") {
  for (int threads : {1, 2}) {
    check_cell_sort<float>(2, Boundary::wrap, threads, 1);
    check_cell_sort<double>(2, Boundary::wrap, threads, 2);
    check_cell_sort<float>(3, Boundary::open, threads, 3);
    check_cell_sort<double>(3, Boundary::reflect, threads, 4);
  }
}

TEST_CASE("cell list: the cluster engine's sub-cell order (cell, Morton sub-cell, id)",
          "[grid][cells][cluster]") {
  for (int threads : {1, 2}) {
    check_cell_sort<float>(2, Boundary::wrap, threads, 5, true);
    check_cell_sort<double>(2, Boundary::open, threads, 6, true);
    check_cell_sort<float>(3, Boundary::wrap, threads, 7, true);
    check_cell_sort<double>(3, Boundary::reflect, threads, 8, true);
  }
}

namespace {

// The FlockSums of slot i as the row kernels' arithmetic contract defines them, in a reflecting
// world (no image shifts): candidates in the kernels' order (columns x - 1 .. x + 1, in each
// the stencil rows z, then y ascending, each cell's slots in order), candidate k into lane
// k mod kLanes, each lane summed in candidate order, lanes combined by the pairwise tree.
template <class Real, int D>
FlockSums<Real> lane_sums(const GridView<Real>& g, std::uint32_t i) {
  constexpr int V = kLanes<Real>;
  const KindParams<Real>& kp = g.kp;
  int cell[3] = {0, 0, 0};
  {
    std::uint32_t c = 0;
    while (g.cell_start[c + 1] <= i) ++c;
    cell[0] = int(c % std::uint32_t(g.n[0]));
    cell[1] = int(c / std::uint32_t(g.n[0]) % std::uint32_t(g.n[1]));
    cell[2] = int(c / std::uint32_t(g.n[0]) / std::uint32_t(g.n[1]));
  }
  Real vi2 = 0;
  for (int c = 0; c < D; ++c) vi2 += g.v[c][i] * g.v[c][i];
  const Real vlen = std::sqrt(vi2);
  const bool full = kp.full_view || !(vlen > Real(0));
  Real ld[D][V] = {}, lv[D][V] = {}, ls[D][V] = {};
  std::int32_t count = 0;
  std::uint32_t k = 0;
  for (int x = cell[0] - g.reach[0]; x <= cell[0] + g.reach[0]; ++x) {
    if (x < 0 || x >= g.n[0]) continue;
    for (int z = cell[2] - g.reach[2]; z <= cell[2] + g.reach[2]; ++z) {
      if (z < 0 || z >= g.n[2]) continue;
      for (int y = cell[1] - g.reach[1]; y <= cell[1] + g.reach[1]; ++y) {
        if (y < 0 || y >= g.n[1]) continue;
        const std::uint32_t c = std::uint32_t(x + g.n[0] * (y + g.n[1] * z));
        for (std::uint32_t j = g.cell_start[c]; j < g.cell_start[c + 1]; ++j, ++k) {
          if (j == i) continue;
          Real d[D];
          Real d2 = 0, dot = 0;
          for (int q = 0; q < D; ++q) {
            d[q] = g.p[q][j] - g.p[q][i];
            d2 = d2 + d[q] * d[q];
          }
          for (int q = 0; q < D; ++q) dot = dot + d[q] * g.v[q][i];
          if (!(d2 < kp.radius2)) continue;
          if (!full && !(dot >= std::sqrt(d2) * vlen * kp.cos_half_view)) continue;
          const int l = int(k % V);
          ++count;
          for (int q = 0; q < D; ++q) {
            ld[q][l] = ld[q][l] + d[q];
            lv[q][l] = lv[q][l] + g.v[q][j];
          }
          if (d2 >= std::numeric_limits<Real>::min() && d2 < kp.sep_radius2) {
            const Real inv = kp.sep_linear ? Real(1) : Real(1) / d2;
            for (int q = 0; q < D; ++q) ls[q][l] = ls[q][l] - d[q] * inv;
          }
        }
      }
    }
  }
  for (int h = V / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l)
      for (int q = 0; q < D; ++q) {
        ld[q][l] = ld[q][l] + ld[q][l + h];
        lv[q][l] = lv[q][l] + lv[q][l + h];
        ls[q][l] = ls[q][l] + ls[q][l + h];
      }
  FlockSums<Real> s{};
  s.k = count;
  for (int q = 0; q < D; ++q) {
    s.d[q] = ld[q][0];
    s.v[q] = lv[q][0];
    s.sep[q] = ls[q][0];
  }
  return s;
}

template <class Real, int D>
void check_pairs(double view_angle, bool abm, std::uint64_t seed) {
  WorldDef d = test::small_world(D, Boundary::reflect, view_angle);
  if (abm) d.profile = Profile::abm;
  const ModelParams<Real> m = ModelParams<Real>::from_def(d);
  REQUIRE(row_simd_pair_rule(m.kind[0]));
  REQUIRE(!m.kind[0].track_nearest);
  REQUIRE(m.kind[0].sep_linear == abm);
  const std::size_t n = D == 3 ? 2000 : 600;
  BoidStore<Real> src, dst;
  test::random_store(src, D, n, 30.0, seed);
  CellList<Real> cells;
  const GridView<Real> g = test::build_cells(d, m, src, dst, cells, false);
  REQUIRE(cells.max_occupancy() >= 2);  // cells with two boids and more: pairs
  std::vector<FlockSums<Real>> ref(n), got(n);
  for (std::uint32_t i = 0; i < n; ++i) ref[i] = lane_sums<Real, D>(g, i);
  KernelScratch<Real> scratch;
  for (Isa isa : test::testable_isas()) {
    const std::uint64_t before = kernel_pair_runs();
    const RowKernel<Real> kernel = select_row_kernel<Real>(isa, D, g.wrap, g.kp.full_view);
    for (std::uint32_t r = 0; r < g.nrows(); ++r)
      kernel(g, r, got.data() + g.row_start(r), scratch);
    CHECK(kernel_pair_runs() > before);  // the paired path ran
    INFO(isa_name(isa) << " " << D << "D " << sizeof(Real) << "-byte reals, view " << view_angle
                       << ", abm " << abm);
    test::require_same_sums<Real, D>(got, ref);
  }
}

}  // namespace

TEST_CASE("row kernels: two boids of a cell at once give the lane layout's sums exactly",
          "[fastpath][grid]") {
  for (double view : {360.0, 250.0}) {
    for (bool abm : {false, true}) {
      check_pairs<float, 2>(view, abm, 1);
      check_pairs<double, 2>(view, abm, 2);
      check_pairs<float, 3>(view, abm, 3);
      check_pairs<double, 3>(view, abm, 4);
    }
  }
}
