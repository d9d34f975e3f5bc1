// The cell geometry of the metrics pair pass (parallel/metrics_pairs_impl.hpp): the boid runs
// of a focal group's stencil (one or two per x-row, with their image shifts under wrap), the
// plan of an x-row's focal groups (how many cells each spans), and the ring search for a
// nearest neighbour beyond the stencil. Included by metrics_pairs_impl.hpp only; in an
// anonymous namespace, as everything of the per-ISA units.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "parallel/metrics_pairs.hpp"

namespace boids::metrics_detail {
namespace {

template <class Real>
struct PairRun {
  std::uint32_t b, e;
  Real sh[3];
  bool shifted;
};

// P: the pass's pack (only its width W enters the plan).
template <class P, class Real, int D, PairWrap Wrap>
class PairCells {
 protected:
  static constexpr int W = P::W;
  explicit PairCells(const PairInput<Real>& in) : in_(in) {}

  // The focal groups of an x-row: plan[x] = k, the group from the row's cell x (of the m cells
  // from `cell`, boids clipped to [b, e)) spans k cells (1 to kSpan). A group of k cells
  // streams k + 2 columns of candidates through all its lanes, so it pays when its cells'
  // boids share registers: cells of 3 and 4 boids take one register of W = 8 over 4 columns
  // instead of two over 3 each. The plan minimises the row's sum of (k + 2) * (groups +
  // registers) (a broadcast costs about what a register's arithmetic does), by dynamic
  // programming from the row's end. The results do not depend on the plan: the extra
  // candidates lie more than a cell edge (>= the radius) from the lanes that did not need
  // them, so they are no neighbours and no links, and a nearest distance among them is one
  // the ring search would find too, with the same arithmetic (docs/metrics.md).
  static constexpr int kSpan = 3;
  void plan_row(std::uint32_t cell, int m, std::size_t b, std::size_t e,
                std::vector<std::uint8_t>& plan, std::vector<float>& cost) const {
    plan.assign(std::size_t(m), 1);
    // Under wrap the k + 2 columns must be distinct cells, and not wrap onto themselves.
    int kmax = W == 1 ? 1 : kSpan;
    if (Wrap != PairWrap::none) kmax = std::min(kmax, in_.n[0] - 3);
    if (kmax <= 1) return;
    cost.assign(std::size_t(m) + 1, 0.0f);
    for (int x = m - 1; x >= 0; --x) {
      float best = std::numeric_limits<float>::max();
      for (int k = 1; k <= std::min(kmax, m - x); ++k) {
        const std::size_t gb = std::max<std::size_t>(b, in_.start[cell + std::uint32_t(x)]);
        const std::size_t ge = std::min<std::size_t>(e, in_.start[cell + std::uint32_t(x + k)]);
        std::size_t left = ge > gb ? ge - gb : 0, groups = 0, regs = 0;
        while (left > 0) {  // the split of run()
          const std::size_t nv = left > std::size_t(W) ? std::min<std::size_t>(2 * W, left) : left;
          groups += 1;
          regs += (nv + W - 1) / W;
          left -= nv;
        }
        const float c = float(k + 2) * float(groups + regs) + cost[std::size_t(x + k)];
        if (c < best) {
          best = c;
          plan[std::size_t(x)] = std::uint8_t(k);
        }
      }
      cost[std::size_t(x)] = best;
    }
  }

  Real wrap1(Real d) const {
    const Real t = d * in_.inv_size;
    return (d - in_.size * Real(t > Real(0.5))) + in_.size * Real(t < Real(-0.5));
  }

  void decode(std::uint32_t cell, int* cc) const {
    cc[0] = int(cell % std::uint32_t(in_.n[0]));
    cc[1] = int((cell / std::uint32_t(in_.n[0])) % std::uint32_t(in_.n[1]));
    cc[2] = int(cell / (std::uint32_t(in_.n[0]) * std::uint32_t(in_.n[1])));
  }
  std::uint32_t index(int x, int y, int z) const {
    return std::uint32_t((std::size_t(z) * std::size_t(in_.n[1]) + std::size_t(y)) *
                             std::size_t(in_.n[0]) +
                         std::size_t(x));
  }
  // Offset range of axis a at ring distance k around cell coordinate c: [-*lo, *hi]; under
  // wrap a window of at most n distinct cells, each at its nearest offset.
  void range(int a, int c, int k, int* lo, int* hi) const {
    if (Wrap != PairWrap::none) {
      *lo = std::min(k, (in_.n[a] - 1) / 2);
      *hi = std::min(k, in_.n[a] / 2);
    } else {
      *lo = std::min(k, c);
      *hi = std::min(k, in_.n[a] - 1 - c);
    }
  }
  int wrap_cell(int a, int c, Real* shift) const {
    *shift = 0;
    if (Wrap == PairWrap::none) return c;
    if (c < 0) {
      *shift = -in_.size;  // the cell's boids lie near L: d = p_j - p_i - L
      return c + in_.n[a];
    }
    if (c >= in_.n[a]) {
      *shift = in_.size;
      return c - in_.n[a];
    }
    return c;
  }
  // The boid runs of the cells at offsets -1..span around cc (span cells of an x-row, from
  // cc on, and one cell out): one or two per x-row of the stencil.
  int near_runs(const int* cc, int span, PairRun<Real>* runs) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) range(a, cc[a], a < D ? 1 : 0, &lo[a], &hi[a]);
    if (span > 1) {  // the far end is the last cell's
      int unused;
      range(0, cc[0] + span - 1, 1, &unused, &hi[0]);
    }
    int nr = 0;
    const bool shifts = Wrap == PairWrap::shift;
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        Real sy = 0, sz = 0;
        const int z = wrap_cell(2, cc[2] + oz, &sz), y = wrap_cell(1, cc[1] + oy, &sy);
        const int x0 = cc[0] - lo[0], x1 = cc[0] + span - 1 + hi[0];
        auto add = [&](int a, int bnd, Real sx) {  // cells a..bnd of this row
          PairRun<Real>& run = runs[nr];
          run.b = in_.start[index(a, y, z)];
          run.e = in_.start[index(bnd, y, z) + 1];
          run.sh[0] = shifts ? sx : Real(0);
          run.sh[1] = shifts ? sy : Real(0);
          run.sh[2] = shifts ? sz : Real(0);
          run.shifted = shifts && (run.sh[0] != 0 || run.sh[1] != 0 || run.sh[2] != 0);
          if (run.b < run.e) ++nr;
        };
        if (x0 < 0) {
          add(x0 + in_.n[0], in_.n[0] - 1, -in_.size);
          add(0, x1, 0);
        } else if (x1 >= in_.n[0]) {
          add(x0, in_.n[0] - 1, 0);
          add(0, x1 - in_.n[0], in_.size);
        } else {
          add(x0, x1, 0);
        }
      }
    }
    return nr;
  }
  bool ring_exists(const int* cc, int ring) const {
    for (int a = 0; a < D; ++a) {
      int lo, hi;
      range(a, cc[a], ring, &lo, &hi);
      if (lo >= ring || hi >= ring) return true;
    }
    return false;
  }
  // Smallest squared distance from boid i to the boids of the cells at Chebyshev ring `ring`,
  // with the per-pair minimum image (exact at any distance).
  Real ring_min(const Real* pi, std::uint32_t i, const int* cc, int ring, Real best) const {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) range(a, cc[a], a < D ? ring : 0, &lo[a], &hi[a]);
    for (int oz = -lo[2]; oz <= hi[2]; ++oz) {
      for (int oy = -lo[1]; oy <= hi[1]; ++oy) {
        for (int ox = -lo[0]; ox <= hi[0]; ++ox) {
          if (std::max(std::abs(ox), std::max(std::abs(oy), std::abs(oz))) != ring) continue;
          Real s;
          const std::uint32_t cell =
              index(wrap_cell(0, cc[0] + ox, &s), wrap_cell(1, cc[1] + oy, &s),
                    wrap_cell(2, cc[2] + oz, &s));
          for (std::uint32_t j = in_.start[cell]; j < in_.start[cell + 1]; ++j) {
            if (j == i) continue;
            Real dist2 = 0;
            for (int c = 0; c < D; ++c) {
              Real d = in_.p[c][j] - pi[c];
              if constexpr (Wrap != PairWrap::none) d = wrap1(d);
              dist2 += d * d;
            }
            if (dist2 < best) best = dist2;
          }
        }
      }
    }
    return best;
  }

  const PairInput<Real>& in_;
};

}  // namespace
}  // namespace boids::metrics_detail
