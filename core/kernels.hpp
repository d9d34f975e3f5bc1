// Neighbour-sum kernels of the grid engine, compiled once per instruction set and chosen at run
// time (kernels.cpp), plus the grid description they run over.
//
// A kernel computes the FlockSums of every boid in one x-row of cells. It copies the stencil
// rows' cells once, column by column, into one candidate buffer (image shifts added), so the
// candidates of each cell are one contiguous range of it; every boid of the cell streams that
// range in SIMD batches, masking the lanes past its end.
//
// Arithmetic contract (docs/engine.md): every path, scalar included, uses the same virtual
// lane layout of kLanes = 64 / sizeof(Real) lanes. Candidate k of a cell's candidate range
// (counted from the range's start in the row's buffer) lands in lane k mod kLanes; each lane sums
// in candidate order, and the lanes are combined by one fixed pairwise tree. A W-wide ISA holds the
// kLanes lanes in kLanes / W registers. The neighbour count is summed in integer lanes, exact in
// any order. There is no FMA (-ffp-contract=off, no explicit fma), and
// +, -, *, /, sqrt and nearbyint are correctly rounded on every path, so all paths give
// bit-identical sums: the ISA only changes the speed. The sums differ from the naive stepper's (one
// serial sum in id order) by rounding only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/aligned.hpp"
#include "core/isa.hpp"
#include "core/model.hpp"

namespace boids {

/// How displacements cross the faces of the box.
enum class WrapMode : std::uint8_t {
  none,       ///< reflect / open: stencil clamped at the grid faces, no images
  shift,      ///< wrap with >= 2*reach+1 cells on every axis: each run adds a fixed +-size
  min_image,  ///< wrap with a collapsed axis: per-pair minimum image, as the naive stepper
};

/// A cell grid over a store sorted into cell order. Cell (x, y, z) has index
/// x + n[0] * (y + n[1] * z) and holds slots [cell_start[c], cell_start[c + 1]).
template <class Real>
struct GridView {
  /// Positions and velocities in cell order. The kernels copy runs in whole packs, so each
  /// array must be readable kPadElems - 1 slots past its last boid (reserve_padded does so).
  const Real* p[3] = {nullptr, nullptr, nullptr};
  const Real* v[3] = {nullptr, nullptr, nullptr};
  const std::uint32_t* cell_start = nullptr;  ///< ncells() + 1 entries
  int dims = 3;
  int n[3] = {1, 1, 1};      ///< cells per axis (n[2] = 1 in 2D)
  int reach[3] = {0, 0, 0};  ///< stencil half-width per axis, in cells
  WrapMode wrap = WrapMode::none;
  Real size = 0, inv_size = 0;  ///< world size and its inverse (wrap)
  KindParams<Real> kp{};        ///< the rules of kind 0, the only kind in the cells
  /// The row_nn kernels (select_row_kernel_nn) write each boid's smallest |d|^2 over its
  /// stencil here, by slot (the flock metrics' row taken from a step, parallel/metrics.cpp).
  Real* nearest2 = nullptr;

  std::size_t ncells() const { return std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]); }
  /// x-rows of cells (the row kernels' unit) and the first slot of x-row `row`.
  std::size_t nrows() const { return std::size_t(n[1]) * std::size_t(n[2]); }
  std::uint32_t row_start(std::size_t row) const { return cell_start[row * std::size_t(n[0])]; }
};

/// Virtual SIMD lanes every path sums in (see the contract above).
template <class Real>
inline constexpr int kLanes = int(64 / sizeof(Real));

/// One contiguous run of candidate slots [begin, end) and the image shift its boids need.
template <class Real>
struct CandidateRun {
  std::uint32_t begin, end;
  Real shift[3];
};

/// Most runs a stencil can have: (2*2+1)^2 rows in 3D, each split in two at the wrap seam.
inline constexpr int kMaxRuns = 50;

/// The candidate runs of `cell`, in a fixed order (z, then y, then x ascending). Returns the
/// number written to `runs`.
// static: each translation unit keeps its own copy, so the linker can never hand the copy
// compiled with -mavx512f to a caller on a CPU without it.
template <class Real>
static inline int cell_runs(const GridView<Real>& g, std::uint32_t cell, CandidateRun<Real>* runs) {
  const int c0 = int(cell % std::uint32_t(g.n[0]));
  const int c1 = int((cell / std::uint32_t(g.n[0])) % std::uint32_t(g.n[1]));
  const int c2 = int(cell / (std::uint32_t(g.n[0]) * std::uint32_t(g.n[1])));
  const bool wrap = g.wrap != WrapMode::none;
  const bool shift = g.wrap == WrapMode::shift;
  int count = 0;
  auto add = [&](int x0, int x1, int row, Real sx, Real sy, Real sz) {
    const std::uint32_t b = g.cell_start[std::size_t(row) + std::size_t(x0)];
    const std::uint32_t e = g.cell_start[std::size_t(row) + std::size_t(x1) + 1];
    if (b == e) return;
    runs[count++] = {b, e, {shift ? sx : Real(0), shift ? sy : Real(0), shift ? sz : Real(0)}};
  };
  for (int dz = -g.reach[2]; dz <= g.reach[2]; ++dz) {
    int z = c2 + dz;
    Real sz = 0;
    if (z < 0 || z >= g.n[2]) {
      if (!wrap) continue;
      sz = z < 0 ? -g.size : g.size;
      z = z < 0 ? z + g.n[2] : z - g.n[2];
    }
    for (int dy = -g.reach[1]; dy <= g.reach[1]; ++dy) {
      int y = c1 + dy;
      Real sy = 0;
      if (y < 0 || y >= g.n[1]) {
        if (!wrap) continue;
        sy = y < 0 ? -g.size : g.size;
        y = y < 0 ? y + g.n[1] : y - g.n[1];
      }
      const int row = g.n[0] * (y + g.n[1] * z);
      const int lo = c0 - g.reach[0], hi = c0 + g.reach[0];
      if (!wrap) {
        add(lo < 0 ? 0 : lo, hi >= g.n[0] ? g.n[0] - 1 : hi, row, 0, sy, sz);
      } else if (lo < 0) {
        add(lo + g.n[0], g.n[0] - 1, row, -g.size, sy, sz);
        add(0, hi, row, 0, sy, sz);
      } else if (hi >= g.n[0]) {
        add(lo, g.n[0] - 1, row, 0, sy, sz);
        add(0, hi - g.n[0], row, g.size, sy, sz);
      } else {
        add(lo, hi, row, 0, sy, sz);
      }
    }
  }
  return count;
}

/// Per-thread scratch of the kernels (the row's candidate buffer and column index); reuse it
/// across calls.
template <class Real>
struct KernelScratch {
  AlignedVector<Real> buf;
  AlignedVector<std::uint32_t> idx;
  // The cluster kernels' previous x-row (core/cluster_kernels_impl.hpp: the next row in y
  // reuses two thirds of its stencil rows): its buffers, and which row they hold
  // (kNoPrevRow: none). A caller that changes the grid between two calls resets prev_row (the
  // engine does, per task).
  static constexpr std::uint32_t kNoPrevRow = ~std::uint32_t(0);
  AlignedVector<Real> prev_buf;
  AlignedVector<std::uint32_t> prev_idx;
  std::uint32_t prev_row = kNoPrevRow;
};

/// Boid pairs the row kernels summed together (two boids of a cell over one candidate
/// stream), over the process so far: the tests' proof that the paired path runs.
std::uint64_t kernel_pair_runs();
/// Adds n to kernel_pair_runs() (the row kernels, once per row).
void count_pair_runs(std::uint64_t n);

/// Grows scratch.buf to at least `reals` and scratch.idx to at least `indices` elements.
/// Defined in kernels.cpp (no ISA flags), so the per-ISA units never instantiate std::vector
/// code of their own.
template <class Real>
void grow_scratch(KernelScratch<Real>& scratch, std::size_t reals, std::size_t indices);

/// Computes the FlockSums of every boid of x-row `row` (cells x = 0 .. n[0] - 1 of grid row
/// y + n[1] * z, slots cell_start[row * n[0]] .. cell_start[(row + 1) * n[0]]) into out[0 ..
/// row size), in slot order.
template <class Real>
using RowKernel = void (*)(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                           KernelScratch<Real>& scratch);

/// The kernel for an instruction set (which must be compiled in and supported; see
/// dispatched_isa), dimension, wrap mode and view (full_view: kind 0 sees all around).
template <class Real>
RowKernel<Real> select_row_kernel(Isa isa, int dims, WrapMode wrap, bool full_view);

/// The same kernel that also writes g.nearest2 (each boid's smallest |d|^2 over every
/// candidate of its stencil but itself, at any distance): chosen only for a step whose state
/// the flock metrics measure. Wrap modes none and shift, float only; nullptr otherwise (the
/// metrics then run their own pair pass).
template <class Real>
RowKernel<Real> select_row_kernel_nn(Isa isa, int dims, WrapMode wrap, bool full_view);

/// What the vectorised finish of the plain standard model reads and writes: the step's input
/// in cell order, the output store's arrays (same slots), kind 0's rules and the world.
template <class Real>
struct FinishView {
  const Real* p[3] = {nullptr, nullptr, nullptr};
  const Real* v[3] = {nullptr, nullptr, nullptr};
  Real* p_out[3] = {nullptr, nullptr, nullptr};
  Real* v_out[3] = {nullptr, nullptr, nullptr};
  KindParams<Real> kp{};
  Real dt = 0, size = 0, inv_size = 0;
  /// Sum the force as behaviour_finish() does, ((0 + separation) + alignment) + cohesion,
  /// instead of flock_force()'s (separation + alignment) + cohesion (they differ only in the
  /// sign of a zero): for the boids of a world whose behaviours leave them untouched (the
  /// grid engine's prey that see no predator).
  bool behaviour_order = false;
  /// The abm profile's velocity rule (abm_update) instead of the force and speed limits: for
  /// kind 0 of an abm world without obstacles, where it is all behaviour_finish() does.
  bool abm = false;
  /// The grid engine's prey when the prey's terms are kind 0's only behaviour: the slots
  /// marked in prey->prey_sees get flee_predators / evade_predators too, in lanes
  /// (core/prey_finish_impl.hpp), as behaviour_finish() would. Needs the predator grid's
  /// neighbourhood lists.
  const BehaviourContext<Real>* prey = nullptr;
  /// The grid engine's kind 0 when behaviours are on and beh::lanes_finish_ok holds:
  /// behaviour_finish() in lanes (core/behaviour_lanes_impl.hpp), with the world, the step's
  /// context, the slots' ids and (for the prey's terms) prey = &step->beh.
  bool behaviour = false;
  const ModelParams<Real>* model = nullptr;
  const StepContext<Real>* step = nullptr;
  const std::uint32_t* id = nullptr;
};

/// finish_boid() without behaviours (flock_force, integrate, move) for slots [first, first +
/// count), sums[k] belonging to slot first + k, several boids per SIMD batch. Bit-identical
/// to the scalar finish_boid: the same correctly rounded operations in the same order, with
/// selects for its branches. Only kind 0, and only for boids no behaviour acts on (with
/// FinishView::behaviour_order where behaviours are active for others).
template <class Real>
using FinishRow = void (*)(const FinishView<Real>& f, std::uint32_t first, std::uint32_t count,
                           const FlockSums<Real>* sums);

/// The vectorised finish for an instruction set, dimension and boundary; nullptr for the
/// scalar path (the engine then calls finish_boid per boid).
template <class Real>
FinishRow<Real> select_finish_row(Isa isa, int dims, Boundary boundary);

/// beh::sin_cos of a[0 .. n) into s and c (core/behaviour_trig_n.hpp): the same bits on
/// every instruction set.
using SinCosN = void (*)(const double* a, double* s, double* c, std::size_t n);

/// sin_cos_n compiled for an instruction set (capped as select_row_kernel's).
SinCosN select_sin_cos_n(Isa isa);

/// std::cbrt of a[0 .. n) into r (beh::cbrt_n, core/behaviour_trig_n.hpp): the same bits.
using CbrtN = void (*)(const double* a, double* r, std::size_t n);
CbrtN select_cbrt_n(Isa isa);

/// The wander keyframes' draws of n boids (beh::wander_draws_n, core/behaviour_rng_n.hpp):
/// random_unit_at's bits.
using WanderDrawsN = void (*)(std::uint64_t seed, const std::uint64_t* ids, std::uint64_t key,
                              bool three, double* ang, double* zs, std::size_t n);
WanderDrawsN select_wander_draws_n(Isa isa);

// Per-ISA tables, defined in kernels_<isa>.cpp.
template <class Real>
struct KernelTable {
  RowKernel<Real> row[2][3][2] = {};  ///< [dims - 2][wrap mode][full view]
  RowKernel<Real> row_nn[2][2][2] =
      {};                             ///< [dims - 2][wrap mode none, shift][full view]; float only
  FinishRow<Real> finish[2][3] = {};  ///< [dims - 2][boundary]; empty for scalar
  SinCosN sin_cos_n = nullptr;
  CbrtN cbrt_n = nullptr;
  WanderDrawsN wander_draws_n = nullptr;
};
void kernel_table_scalar(KernelTable<float>& f, KernelTable<double>& d);
void kernel_table_sse42(KernelTable<float>& f, KernelTable<double>& d);
void kernel_table_avx2(KernelTable<float>& f, KernelTable<double>& d);
void kernel_table_avx512(KernelTable<float>& f, KernelTable<double>& d);

}  // namespace boids

namespace boids {

/// Whether the cluster-pair kernels (core/cluster_kernels.hpp) implement kind 0's pair rule:
/// the standard model. The cluster engine runs the rules added by behaviours (linear
/// separation, nearest-neighbour tracking) on generic_row_sums instead.
template <class Real>
inline bool simd_pair_rule(const KindParams<Real>& kp) {
  bool standard = true;
  if constexpr (requires { kp.sep_linear; }) standard = standard && !kp.sep_linear;
  if constexpr (requires { kp.track_nearest; }) standard = standard && !kp.track_nearest;
  return standard;
}

/// Whether the row kernels (select_row_kernel) cover kind 0's pair rule: every FlockSums rule,
/// the standard one, the abm profile's linear separation (d * 1 instead of d / |d|^2,
/// bit-identical to accumulate_pair per pair) and the closest-neighbour tracking of the
/// threshold rules (the same minimum as accumulate_pair's, in any order). Each row kernel
/// reads kp.sep_linear and kp.track_nearest from the GridView itself.
template <class Real>
inline bool row_simd_pair_rule(const KindParams<Real>& kp) {
  (void)kp;
  return true;
}

/// The fallback kernel for any pair rule: the model's own accumulate_pair per candidate, in
/// run order, for one cell into out[0 .. cell size). Scalar, not dispatched.
template <class Real, int D>
void generic_cell_sums(const GridView<Real>& g, std::uint32_t cell, FlockSums<Real>* out,
                       KernelScratch<Real>& /*scratch*/) {
  CandidateRun<Real> runs[kMaxRuns];
  const int nr = cell_runs(g, cell, runs);
  const std::uint32_t first = g.cell_start[cell], last = g.cell_start[cell + 1];
  for (std::uint32_t i = first; i < last; ++i) {
    Real vi[3] = {0, 0, 0}, vj[3] = {0, 0, 0}, d[3] = {0, 0, 0};
    Real vi2 = 0;
    for (int c = 0; c < D; ++c) {
      vi[c] = g.v[c][i];
      vi2 += vi[c] * vi[c];
    }
    const Real vi_len = std::sqrt(vi2);
    FlockSums<Real> s;
    for (int r = 0; r < nr; ++r) {
      for (std::uint32_t j = runs[r].begin; j < runs[r].end; ++j) {
        if (j == i) continue;
        for (int c = 0; c < D; ++c) {
          d[c] = g.p[c][j] - g.p[c][i];
          if (g.wrap == WrapMode::shift) d[c] = d[c] + runs[r].shift[c];
          if (g.wrap == WrapMode::min_image) d[c] = min_image(d[c], g.size, g.inv_size);
          vj[c] = g.v[c][j];
        }
        accumulate_pair<Real, D>(g.kp, d, vi, vi_len, vj, s);
      }
    }
    out[i - first] = s;
  }
}

/// generic_cell_sums over every cell of an x-row: same signature as a RowKernel.
template <class Real, int D>
void generic_row_sums(const GridView<Real>& g, std::uint32_t row, FlockSums<Real>* out,
                      KernelScratch<Real>& scratch) {
  const std::uint32_t c0 = row * std::uint32_t(g.n[0]);
  for (std::uint32_t c = c0; c < c0 + std::uint32_t(g.n[0]); ++c)
    generic_cell_sums<Real, D>(g, c, out + (g.cell_start[c] - g.cell_start[c0]), scratch);
}

}  // namespace boids
