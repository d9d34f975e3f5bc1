// The cluster-pair neighbour kernel (engine.kind = "cluster"), in the spirit of GROMACS' nbnxm.
//
// Design (issue 13; built so issues 14 and 15 plug into it)
// ---------------------------------------------------------
// Layout. The grid engine's cell list (cell edge r) sorts the cluster engine's boids by cell,
// then a 4x4(x4) Morton sub-cell order, then id (GridSettings::subcell_order, in the scatter
// itself: parallel/cell_list.cpp): a pure function of the state. Within every cell the boids are
// cut into GROUPS of kGroup = 4 consecutive boids (the last one of a cell partial). A group is the
// unit of pruning: it has a bounding box, and a group either enters a boid's candidate stream whole
// or not at all.
//
//   cell (edge r, ~7 boids at the default 3D density)
//   +-----------+        sub-cell Morton order, then id:   [g0: 4 boids][g1: 3 boids + pad]
//   | .  g0 . . |        each group: slots of 4 (padding = +inf positions, never a neighbour)
//   | . . g1  . |        and its bounding box lo[D], hi[D] (image shift included)
//   +-----------+
//
// Sweep. Like the row kernel (core/kernels.hpp), a call handles one x-row of cells: the
// stencil rows are copied once, column by column, into a row buffer of groups (image shift
// added, 4-wide copies that also give each group's box). The candidate groups of cell x are
// then the contiguous group range of columns x - reach .. x + reach. The engine runs the rows
// in blocks of 8 y-rows, z by z (cluster_sweep_row, parallel/cluster_grid.hpp), so the
// stencil rows a row copies are still in the L2 cache from the rows before it. A row right
// after the previous one in y (the same task, both with the whole 3-deep stencil) SLIDES: in
// every column and plane its stencil rows y - 1 and y are the previous row's y and y + 1 (the
// same cells, the same image shifts), moved as one block of groups with their boxes from the
// previous row's buffer (KernelScratch::prev_buf); only the row y + 1 is copied from the store
// and boxed. The buffer's order is unchanged, so are the bits.
//
// Per i-group (the boid's own group, an nbnxm "i-cluster"), cut into two i-PAIRS (slots 0-1
// and 2-3; a padding boid sits at +inf):
//   1. prune: one SIMD pass over the candidate groups' boxes tests all four boids against
//      each box (point-to-box distance) and keeps, per pair, the groups whose box is closer
//      than r to either boid of the pair, in candidate order (the pair's cluster-pair list,
//      built on the fly and never stored). The test is conservative in floating point (box
//      gap <= pair distance per axis, by the monotonicity of correct rounding), so no
//      neighbour is lost. The pair's own group is always kept. In min-image mode (an axis
//      collapsed to one cell) every group is kept.
//   2. tiles: the pair against two consecutive entries 2t, 2t + 1 of its list is one TILE of
//      kTile = 16 VIRTUAL LANES, lane 8k + 4e + l = i-boid e of the pair with slot l of entry
//      2t + k (nbnxm's 2xMM layout, twice). Lane 8k + 4e + l sums over the entries of parity k
//      in order; boid e's lanes are combined by the fixed tree x_l = lane 4e + l + lane
//      8 + 4e + l, then (x_0 + x_1) + (x_2 + x_3). AVX-512 float holds a tile in one register
//      (each entry's 4 values broadcast into its half by one masked 128-bit broadcast; an odd
//      last entry masks half 1 out); narrower packs hold one half in 8 / W registers (AVX2
//      float and AVX-512 double one, SSE float and AVX2 double two, SSE double four, scalar
//      eight) and run the even entries, then the odd ones: every lane sees the same terms in
//      the same order, and a half's accumulators fit AVX2's 16 registers. (nbnxm's 4x4 tile,
//      all four boids of the i-group against one j-group, would need one list per i-group,
//      about 20 % useful; two entries of a pair's list keep the pair's pruning, 31 %.) The kept set
//      and its order depend on the state only, and there is no FMA (-ffp-contract=off), so every
//      ISA and thread count gives the same bits.
//   3. the pair arithmetic is accumulate_pair's: |d|^2 < r^2, view cone
//      dot >= (sqrt(d2) * |v_i|) * cos(theta/2) (a boid at rest passes it lane by lane, as
//      accumulate_pair skips it), self masked by slot in the own group, separation -d/|d|^2
//      on 0 < |d|^2 < r_s^2. The neighbour count is summed in integer lanes (a 16-wide pack:
//      popcounts of the tile's mask per i-boid), exact in any order.
// Why pairs: a list per boid prunes best (~40 % of the examined pairs useful) but needs its
// own prune, compress and lane tree per boid and two loads per register (this kernel's first
// version, slower: docs/engine.md); one list for all four boids of a group keeps ~25 % useful
// (~20 % of its lanes, padding included; not built); a pair keeps ~31 % (measured). The figures
// of every rule: scripts/cluster_useful_model.py and docs/engine.md, "Pruning options".
//
// Full lists, not half lists: the view cone makes "i sees j" asymmetric, and a half list would
// need a second accumulation into j whose order depends on the list traversal; the distance
// test is symmetric but cheap next to the sums. A Verlet (skin) list is not kept: the engine
// re-sorts the boids every step (the canonical slot order the determinism rests on), which
// invalidates a stored list, and the lists are rebuilt by the SIMD box test for ~20 % of the
// kernel's time.
//
// Plugging in other rules (issues 14, 15). The pruned group stream is the reusable part; what
// a rule does with a batch is the `Rule` policy of ClusterTiles (cluster_tiles.hpp):
//   - Rule::Acc      a pair's accumulators in the tile's virtual lanes (registers),
//   - the masked update of one W-lane register of a tile (ClusterTiles::tiles today),
//   - Rule::finish() the fixed lane tree into FlockSums (or the rule's own sums).
// The standard flock (StandardRule) is the only rule compiled today. Linear separation (abm)
// is a different pair(); threshold cohesion/closest separation add a per-lane min with the
// lexicographic tie-break (order-independent, so exact); Vicsek sums only v; Couzin zones are
// three radii masks over the same stream; topological k-nearest collects the kept stream's
// (d2, id) into a per-boid buffer and selects k exactly (ties by id). Other kinds get their own
// groups (the sort key already separates kinds) with their own radius.
// Until then the engine routes those rules to the row path (GridEngine::kernel_name() says
// which ran).
#pragma once

#include <cstdint>

#include "core/kernels.hpp"

namespace boids {

/// Boids per group: the unit of pruning and of the lane layout.
inline constexpr int kGroup = 4;
/// Virtual lanes of one tile: two halves (list entries 2t and 2t + 1 of an i-pair's list) x
/// two i-boids (the pair) x the kGroup slots of a j-group; lane 8k + 4e + l.
inline constexpr int kHalf = 2 * kGroup;
inline constexpr int kTile = 2 * kHalf;

/// The cluster kernel for x-row `row` of g: the same contract as RowKernel (sums of every boid
/// of the row into out, in slot order). `g` must be in cluster order (sub-cell sorted within
/// cells; any order gives correct sums, the order only changes pruning and thus the bits).
template <class Real>
RowKernel<Real> select_cluster_kernel(Isa isa, int dims, WrapMode wrap, bool full_view);

/// Keeps the row just computed in scratch as the previous row (swaps buf / idx with prev_buf /
/// prev_idx, prev_row = row), or forgets it (row = KernelScratch::kNoPrevRow). Defined in
/// cluster_kernels.cpp (no ISA flags), like grow_scratch.
template <class Real>
void cluster_keep_row(KernelScratch<Real>& scratch, std::uint32_t row);

/// x-rows the cluster kernels built by sliding the previous row's copy (over the process so
/// far): the tests' proof that the sliding path runs.
std::uint64_t cluster_slid_rows();
/// Adds n to cluster_slid_rows().
void count_slid_rows(std::uint64_t n);

/// Squared distance from point p to the box [lo, hi] (per axis 0 inside), in the kernels'
/// order of additions. Never larger than the pair distance of p to a point in the box.
template <class Real, int D>
inline Real box_dist2(const Real* p, const Real* lo, const Real* hi) {
  Real d2 = 0;
  for (int c = 0; c < D; ++c) {
    Real a = lo[c] - p[c];
    const Real b = p[c] - hi[c];
    a = a > b ? a : b;
    a = a > Real(0) ? a : Real(0);
    d2 = d2 + a * a;
  }
  return d2;
}

// Per-ISA tables, defined in cluster_kernels_<isa>.cpp.
template <class Real>
struct ClusterTable {
  RowKernel<Real> row[2][3][2] = {};  ///< [dims - 2][wrap mode][full view]
};
void cluster_table_scalar(ClusterTable<float>& f, ClusterTable<double>& d);
void cluster_table_sse42(ClusterTable<float>& f, ClusterTable<double>& d);
void cluster_table_avx2(ClusterTable<float>& f, ClusterTable<double>& d);
void cluster_table_avx512(ClusterTable<float>& f, ClusterTable<double>& d);

}  // namespace boids
