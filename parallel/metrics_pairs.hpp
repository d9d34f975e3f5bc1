// The pair pass of the flock metrics (pass C of parallel/metrics.cpp): for every boid of the
// metrics' own cell list, its neighbour count as the model sees it and its nearest same-kind
// distance; and the cluster links by cells (pass D, LinkFn). Compiled once per instruction set
// (metrics_pairs_<isa>.cpp, with the flags of parallel/CMakeLists.txt) and chosen at run time like
// the engine's kernels (core/kernels.hpp: dispatched_isa, BOIDS_MAX_ISA).
//
// Every result is exact per boid: a count of pairs, a minimum of squared distances and the
// set of links, each pair evaluated with the model's own arithmetic in the world's precision
// (+, -, *, sqrt and comparisons, correctly rounded on every path, no FMA). So every ISA and
// any lane width give the same bits; only the speed differs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/kernels.hpp"

namespace boids::metrics_detail {

/// How displacements cross the box faces in the pair pass.
enum class PairWrap : std::uint8_t {
  none,       ///< reflect / open: the stencil is clamped at the grid's faces
  shift,      ///< wrap with >= 5 cells per axis: each stencil run adds a fixed 0 or +-size,
              ///< which equals the minimum image for every pair the stencil holds
  min_image,  ///< wrap with fewer cells: the per-pair minimum image
};

/// Positions and velocities arrays must be readable kPairRead elements past the last boid: a
/// focal group of nv boids loads its registers (R * W lanes, R = 1 for nv <= W, else 2) from
/// its first boid, so at most W - 2 past the last one, W <= 16 (AVX-512 floats). The metrics'
/// own arrays are kPairPad longer.
inline constexpr std::size_t kPairRead = 16, kPairPad = 32;

/// What the pair pass reads: plain data, so the per-ISA units share no inline code.
template <class Real>
struct PairInput {
  const Real* p[3] = {nullptr, nullptr, nullptr};  ///< cell order
  const Real* v[3] = {nullptr, nullptr, nullptr};
  const std::uint32_t* start = nullptr;  ///< cells + 1 entries
  int n[3] = {1, 1, 1};                  ///< cells per axis (1 for the unused ones)
  double lo[3] = {0, 0, 0};              ///< grid origin (not wrap)
  double edge = 1;                       ///< cubic cells of this edge, >= the radius
  PairWrap wrap = PairWrap::none;
  Real size = 0, inv_size = 0;  ///< world size and its inverse (wrap)
  Real radius2 = 0, cos_half_view = 0;
  std::uint64_t topo_k = 0;  ///< counts capped at this when > 0 (topological neighbours)
  std::atomic<std::uint32_t>* parent = nullptr;  ///< the union-find over cell-order indices
  std::uint8_t* uniform = nullptr;  ///< per cell: its boids form one set (the link pass's)
  bool cone = false;                ///< a view cone applies (the fused row's pass)
};

/// A sum in 128-bit fixed point: integer additions, so the same bits in any order.
__extension__ typedef __int128 FixedSum;
/// Scales of the fixed-point sums: terms of magnitude <= 1 (unit vectors, sines; one 64-bit
/// conversion each) and other values (speeds, positions, distances; clamped to +-2^50, then
/// whole and fractional parts converted apart), so up to 2^37 terms fit in 127 bits.
inline constexpr double kUnitScale = 0x1p62, kValueScale = 0x1p40, kValueClamp = 0x1p50;
inline FixedSum fixed_unit(double x) { return FixedSum(std::int64_t(x * kUnitScale)); }
inline FixedSum fixed_value(double x) {
  x = x < -kValueClamp ? -kValueClamp : x > kValueClamp ? kValueClamp : x;
  const std::int64_t whole = std::int64_t(x);         // toward zero
  const double frac = x - double(whole);              // exact: |x| < 2^52
  return FixedSum(whole) * (std::int64_t(1) << 40) +  // kValueScale
         FixedSum(std::int64_t(frac * kValueScale));
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// Sums of passes A and B over one block of boids (parallel/metrics.cpp).
struct Partial {
  double lo[3] = {kInf, kInf, kInf}, hi[3] = {-kInf, -kInf, -kInf};  // the gather's box
  // Fixed-point sums, so the order of the boids never matters.
  FixedSum speed = 0, vhat[3] = {0, 0, 0}, centre_a[3] = {0, 0, 0}, centre_b[3] = {0, 0, 0};
  FixedSum mom[3] = {0, 0, 0};
  std::uint64_t moving = 0;
};

/// What passes A and B read: the engine's store (any order; only the boids of `kind` count)
/// and, for B, the group centre.
template <class Real>
struct MomentInput {
  const Real* p[3] = {nullptr, nullptr, nullptr};
  const Real* v[3] = {nullptr, nullptr, nullptr};
  const std::uint8_t* kind_of = nullptr;  ///< every slot's kind
  int kind = 0;
  double size = 0;               ///< world size (wrap)
  const double* ts = nullptr;    ///< the circular centre's sine table (metrics_turn.hpp)
  const double* tc = nullptr;    ///< and its cosines
  double centre[3] = {0, 0, 0};  ///< pass B: the group centre
};

/// Pass A (speeds, unit velocities, centre sums) or pass B (the angular
/// momentum about in.centre) of the boids [b, e), added to out.
template <class Real>
using MomentFn = void (*)(const MomentInput<Real>& in, std::size_t b, std::size_t e, Partial& out);

/// Sums of one block of boids.
struct PairSums {
  FixedSum nnd = 0;  ///< fixed_value of each boid's nearest distance
  std::uint64_t neighbours = 0, nnd_count = 0;
  std::uint64_t spanned = 0;     ///< focal groups over 2 or more cells (a diagnostic for the tests)
  std::uint64_t cell_pairs = 0;  ///< neighbouring cells the link pass met (likewise)
  std::uint64_t joined = 0;      ///< of those, already in one set: no distance computed
};

/// Runs the pair pass (neighbour counts, nearest distances) over the boids [b, e) of cell order.
template <class Real>
using PairFn = void (*)(const PairInput<Real>& in, std::size_t b, std::size_t e, PairSums& out);

/// The cluster links (parallel/metrics_links_impl.hpp) of the cells [c0, c1): phase 0 unites
/// each cell's own pairs and fills in.uniform; phase 1, run after phase 0 has covered every
/// cell, the pairs of neighbouring cells. in.parent starts as the identity.
template <class Real>
using LinkFn = void (*)(const PairInput<Real>& in, std::size_t c0, std::size_t c1, int phase,
                        PairSums& out);

/// sn[i], cs[i] = sin, cos of 2*pi*x[i]/size for i < n, from the 1024-entry table ts/tc
/// (parallel/metrics_turn.hpp: the same bits on every instruction set).
template <class Real>
using TurnFn = void (*)(const Real* x, std::size_t n, double size, const double* ts,
                        const double* tc, double* sn, double* cs);

/// The fused row's sums over the boids [b, e) of cell order (parallel/metrics.cpp,
/// fused_cells): fixed_value(sqrt(double(nearest2[i]))) into out.nnd, k[i] (capped at topo_k
/// when > 0) into out.neighbours, e - b into out.nnd_count.
template <class Real>
using FusedFn = void (*)(const Real* nearest2, const std::int32_t* k, std::size_t b, std::size_t e,
                         std::uint64_t topo_k, PairSums& out);

/// Per-ISA tables: [dims - 2][wrap][view cone], and the circular centre's sines.
template <class Real>
struct PairTable {
  PairFn<Real> fn[2][3][2] = {};
  LinkFn<Real> link[2][3] = {};  ///< [dims - 2][wrap]
  TurnFn<Real> turn = nullptr;
  MomentFn<Real> pass_a[2][2] = {}, pass_b[2][2] = {};  ///< [dims - 2][wrap]
  FusedFn<Real> fused = nullptr;
};
void metrics_pairs_scalar(PairTable<float>& f, PairTable<double>& d);
void metrics_pairs_sse42(PairTable<float>& f, PairTable<double>& d);
void metrics_pairs_avx2(PairTable<float>& f, PairTable<double>& d);
void metrics_pairs_avx512(PairTable<float>& f, PairTable<double>& d);

/// Rows of MetricsCalculator::compute_deferred whose counts and nearest distances came from
/// the step's kernel, and the boids among them (the rest ran the pair pass), over the process
/// so far: the tests' proof that the fused row runs (parallel/metrics.cpp).
std::uint64_t metrics_fused_rows();
std::uint64_t metrics_fused_boids();

/// The pass for dispatched_isa(), a dimension, a wrap mode and whether a view cone applies.
template <class Real>
PairFn<Real> select_pair_fn(int dims, PairWrap wrap, bool cone);
/// The link pass for dispatched_isa(), a dimension and a wrap mode.
template <class Real>
LinkFn<Real> select_link_fn(int dims, PairWrap wrap);
/// The circular centre's sines for dispatched_isa().
template <class Real>
TurnFn<Real> select_turn_fn();
/// Passes A and B for dispatched_isa(), a dimension and whether the world wraps.
template <class Real>
MomentFn<Real> select_moment_fn(bool pass_b, int dims, bool wrap);
/// The fused row's sums for dispatched_isa().
template <class Real>
FusedFn<Real> select_fused_fn();

}  // namespace boids::metrics_detail
