// The cluster links of the flock metrics (parallel/metrics_pairs.hpp, LinkFn): the connected
// components of the graph linking two boids closer than the radius, by cells of the pair pass's
// cell list (edge >= the radius). Included by metrics_pairs_impl.hpp only.
//
// Two phases over the cells, each a parallel loop of its own:
//   0. own pairs: the pairs of one cell are united (boid j broadcast to the lanes of the
//      cell's earlier boids); uniform[c] = 1 when the cell's boids then form one set.
//   1. cell pairs: each pair of neighbouring cells (C, N), from the one later in cell order.
//      When both are uniform and their sets are already joined (a root compare), the pair costs
//      nothing more; when both are uniform and not yet joined, the first pair within reach
//      joins them (one union for the whole cell pair). Otherwise every pair within reach is
//      united. In a dense flock most neighbouring cells are joined through earlier ones by the
//      time they meet, so most cell pairs cost two root look-ups instead of ~50 distances.
// A pair is within reach when |d|^2 < r^2 with the pair pass's arithmetic (d = p_j - p_i plus
// the stencil's image shift, or the per-pair minimum image), which gives the same |d|^2 from
// either side (fl(a - b) = -fl(b - a)). So the link graph is the pair pass's, and its connected
// components, unique whatever order the unions come in, are the same sets.
#pragma once

#include <bit>
#include <cstdint>

#include "parallel/metrics_pair_cells.hpp"
#include "parallel/metrics_pairs.hpp"
#include "parallel/metrics_union.hpp"

namespace boids::metrics_detail {
namespace {

template <class P, class Real, int D, PairWrap Wrap>
class LinkPass : PairCells<P, Real, D, Wrap> {
  using Cells = PairCells<P, Real, D, Wrap>;
  using Cells::decode, Cells::in_, Cells::index, Cells::range, Cells::wrap_cell;
  using B = typename P::B;
  using M = typename P::M;
  static constexpr int W = P::W;

  // Up to W boids of one cell, one per lane (the rest +inf: never within reach).
  struct Lanes {
    B p[3];
    std::uint32_t g0 = 0;
    std::uint64_t valid = 0;
  };

 public:
  explicit LinkPass(const PairInput<Real>& in) : Cells(in) {}

  void run(std::size_t c0, std::size_t c1, int phase, PairSums& out) const {
    for (std::size_t c = c0; c < c1; ++c) {
      if (in_.start[c] == in_.start[c + 1]) continue;
      if (phase == 0)
        own(std::uint32_t(c));
      else
        cross(std::uint32_t(c), out);
    }
  }

 private:
  std::uint32_t root(std::uint32_t x) const { return pair_root(in_.parent, x); }
  void unite(std::uint32_t a, std::uint32_t b) const { pair_unite(in_.parent, a, b); }

  void load(std::uint32_t g0, std::uint32_t e, Lanes& f) const {
    const Real inf = std::numeric_limits<Real>::infinity();
    const std::uint32_t nv = std::min<std::uint32_t>(e - g0, std::uint32_t(W));
    const M live = P::lane_lt(int(nv));
    f.g0 = g0;
    f.valid = (std::uint64_t(1) << nv) - 1;
    for (int c = 0; c < D; ++c) f.p[c] = P::select(live, P::loadu(in_.p[c] + g0), P::splat(inf));
  }

  // Lanes within reach of boid j (shifted by sh when `shifted`), as bits.
  std::uint64_t within(const Lanes& f, std::uint32_t j, const Real* sh, bool shifted) const {
    B d[3];
    for (int c = 0; c < D; ++c) {
      B x = P::splat(in_.p[c][j]) - f.p[c];
      if constexpr (Wrap == PairWrap::shift) {
        if (shifted) x = x + P::splat(sh[c]);
      }
      if constexpr (Wrap == PairWrap::min_image) x = wrapd(x);
      d[c] = x;
    }
    B d2 = d[0] * d[0];
    for (int c = 1; c < D; ++c) d2 = d2 + d[c] * d[c];
    return P::bits(d2 < P::splat(in_.radius2)) & f.valid;
  }

  B wrapd(B x) const {  // as the pair pass's (metrics_pairs_impl.hpp)
    const B size = P::splat(in_.size), zero = P::splat(Real(0)), half = P::splat(Real(0.5));
    const B t = x * P::splat(in_.inv_size);
    return (x - P::select(t > half, size, zero)) + P::select(t < -half, size, zero);
  }

  // Phase 0: the cell's own pairs. Up to 64 boids: the cell's adjacency as bit masks, its
  // components grown by bits, and every boid hung directly under its component's first boid
  // (the cell's boids are this task's alone in this phase); more: pair by pair.
  void own(std::uint32_t c) const {
    const std::uint32_t b = in_.start[c], e = in_.start[c + 1], n = e - b;
    const Real none[3] = {0, 0, 0};
    Lanes f;
    if (n <= 64) {
      std::uint64_t adj[64];
      for (std::uint32_t j = 0; j < n; ++j) adj[j] = 0;
      for (std::uint32_t g = b; g < e; g += std::uint32_t(W)) {
        load(g, e, f);
        for (std::uint32_t j = b; j < e; ++j) adj[j - b] |= within(f, j, none, false) << (g - b);
      }
      std::uint64_t seen = 0;
      const std::uint64_t all = n == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1;
      while (seen != all) {
        const std::uint32_t i = std::uint32_t(std::countr_zero(~seen));
        std::uint64_t comp = std::uint64_t(1) << i, todo = comp;
        while (todo) {
          const std::uint64_t grow = adj[std::countr_zero(todo)] & ~comp;
          todo = (todo & (todo - 1)) | grow;
          comp |= grow;
        }
        seen |= comp;
        if (comp == all) {  // the common case: the cell is one set under its first boid
          for (std::uint32_t x = b + 1; x < e; ++x)
            in_.parent[x].store(b, std::memory_order_relaxed);
          in_.uniform[c] = 1;
          return;
        }
        for (std::uint64_t m = comp & (comp - 1); m; m &= m - 1)
          in_.parent[b + std::uint32_t(std::countr_zero(m))].store(b + i,
                                                                   std::memory_order_relaxed);
        in_.uniform[c] = 0;
      }
      return;
    }
    for (std::uint32_t g = b; g < e; g += std::uint32_t(W)) {
      load(g, e, f);
      for (std::uint32_t j = g + 1; j < e; ++j) {
        std::uint64_t bits = within(f, j, none, false);
        if (j - g < 64) bits &= (std::uint64_t(1) << (j - g)) - 1;  // lanes before j
        for (; bits; bits &= bits - 1) unite(g + std::uint32_t(std::countr_zero(bits)), j);
      }
    }
    const std::uint32_t r0 = root(b);
    bool one = true;
    for (std::uint32_t i = b + 1; i < e && one; ++i) one = root(i) == r0;
    in_.uniform[c] = one ? 1 : 0;
  }

  // Phase 1: the stencil cells before c in cell order (each pair of cells once, from the later
  // one). A cell off every face: the backward half of the stencil (no image shift: every
  // neighbour lies inside the grid); else the whole stencil, each distinct cell once, those
  // from c on skipped.
  void cross(std::uint32_t c, PairSums& out) const {
    int cc[3] = {0, 0, 0}, lo[3], hi[3];
    decode(c, cc);
    const Real zero[3] = {0, 0, 0};
    bool inner = true;
    for (int a = 0; a < D; ++a) inner = inner && cc[a] >= 1 && cc[a] <= in_.n[a] - 2;
    std::uint32_t rc = in_.uniform[c] ? root(in_.start[c]) : 0;
    if (inner) {
      const std::int64_t sx = 1, sy = in_.n[0], sz = std::int64_t(in_.n[0]) * in_.n[1];
      // Faces first: the likeliest to hold a pair within reach, which joins c's set to the
      // (earlier) neighbours' at once; the others are then mostly joined already.
      const std::int64_t back2[4] = {sx, sy, sy - sx, sy + sx};
      const std::int64_t back3[13] = {
          sx,      sy,      sz,           sy - sx,      sy + sx,      sz - sx,     sz + sx,
          sz - sy, sz + sy, sz - sy - sx, sz - sy + sx, sz + sy - sx, sz + sy + sx};
      const std::int64_t* back = D == 2 ? back2 : back3;
      for (int k = 0; k < (D == 2 ? 4 : 13); ++k) {
        const std::uint32_t nb = std::uint32_t(std::int64_t(c) - back[k]);
        if (in_.start[nb] != in_.start[nb + 1]) pair(c, nb, zero, false, rc, out);
      }
      return;
    }
    for (int a = 0; a < 3; ++a) range(a, cc[a], a < D ? 1 : 0, &lo[a], &hi[a]);
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        for (int ox = -lo[0]; ox <= hi[0]; ++ox) {
          Real sh[3] = {0, 0, 0};
          const std::uint32_t nb =
              index(wrap_cell(0, cc[0] + ox, &sh[0]), wrap_cell(1, cc[1] + oy, &sh[1]),
                    wrap_cell(2, cc[2] + oz, &sh[2]));
          if (nb >= c || in_.start[nb] == in_.start[nb + 1]) continue;
          const bool shifted = sh[0] != 0 || sh[1] != 0 || sh[2] != 0;
          pair(c, nb, sh, shifted, rc, out);
        }
      }
    }
  }

  // rc: the root of c's set when c is uniform, kept up to date.
  void pair(std::uint32_t c, std::uint32_t nb, const Real* sh, bool shifted, std::uint32_t& rc,
            PairSums& out) const {
    const std::uint32_t cb = in_.start[c], ce = in_.start[c + 1];
    const std::uint32_t nbb = in_.start[nb], nbe = in_.start[nb + 1];
    const bool uc = in_.uniform[c] != 0, un = in_.uniform[nb] != 0;
    out.cell_pairs += 1;
    if (uc && un && rc == root(nbb)) {
      out.joined += 1;
      return;
    }
    Lanes f;
    for (std::uint32_t g = cb; g < ce; g += std::uint32_t(W)) {
      load(g, ce, f);
      for (std::uint32_t j = nbb; j < nbe; ++j) {
        std::uint64_t bits = within(f, j, sh, shifted);
        if (!bits) continue;
        if (uc && un) {  // both cells are one set each: one union joins them
          unite(cb, nbb);
          rc = root(cb);
          return;
        }
        if (uc) {
          unite(cb, j);
          rc = root(cb);
          continue;
        }
        for (; bits; bits &= bits - 1) unite(g + std::uint32_t(std::countr_zero(bits)), j);
      }
    }
  }
};

template <class P, class Real, int D, PairWrap Wr>
void link_entry(const PairInput<Real>& in, std::size_t c0, std::size_t c1, int phase,
                PairSums& out) {
  LinkPass<P, Real, D, Wr>(in).run(c0, c1, phase, out);
}

template <class P, class Real>
void fill_link_table(PairTable<Real>& t) {
  t.link[0][0] = &link_entry<P, Real, 2, PairWrap::none>;
  t.link[0][1] = &link_entry<P, Real, 2, PairWrap::shift>;
  t.link[0][2] = &link_entry<P, Real, 2, PairWrap::min_image>;
  t.link[1][0] = &link_entry<P, Real, 3, PairWrap::none>;
  t.link[1][1] = &link_entry<P, Real, 3, PairWrap::shift>;
  t.link[1][2] = &link_entry<P, Real, 3, PairWrap::min_image>;
}

}  // namespace
}  // namespace boids::metrics_detail
