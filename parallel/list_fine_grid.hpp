// The topological pass's own grid (parallel/list_step.cpp), for radii much larger than the
// k-th neighbour distance: the engine's cells are sized for rules.radius, so at r = 9 (about 30
// neighbours within r at the default density) or with a pure topological radius (r >= L/2,
// one cell, every pair) every boid would scan a stencil sized for r to keep only its k
// nearest.
//
// Here the cells are about 1.3 times the expected k-th neighbour distance at the kind-0 boids'
// mean density, and a boid first scans only the 3^D block of cells around its own. Every boid
// outside that block is at least `bound` away (the distance from the boid to the block's
// faces, less a margin for the rounding of positions and |d|^2). So when the k-th nearest of
// those found has |d|^2 < bound^2, no boid outside can be among the k nearest (not even tied):
// the selection by (|d|^2, id) is that of the whole stencil. When the block covers everything
// within r, it is the whole selection anyway. Otherwise (a boid in a sparse region) it scans
// blocks of 5^D, 9^D, 17^D ... cells with the same test, at the latest the whole grid. The d
// and |d|^2 of a pair are nlist::offer's (the per-pair minimum image under wrap), so the
// results are the same bits. (Under mpirun the grid holds a rank's slab and ghosts: an owned
// boid's visible candidates within r are all held, and one not held is farther than r, so
// the test still decides exactly.)
//
// The cells hold the kind-0 slots [0, nb) of the engine's store by a counting sort over
// ascending slots: a function of the state alone, whatever the thread count.
//
// Where the lane kernel runs (k <= 15, the SIMD sums), the blocks go through it
// (parallel/list_fine_step.hpp) and the gather takes only the boids it leaves; and since it
// scans the engine's stencil about as fast, this grid is taken only where that stencil holds
// several times the block's candidates (kFineGainLanes: r = 12 and beyond at k = 7 and the
// default density, or the pure topological rule; a flock gathering at r = 5.5 stays on the
// row pass).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels.hpp"

namespace boids::list_detail {

/// The mean own-cell count sought, per neighbour of k: the ball of one cell edge around a boid
/// then holds about 2.2 k boids in 3D (1.7 k in 2D), so the 3^D block's faces are beyond the
/// k-th nearest for all but about 1 % of the boids (measured at 100k, k = 7).
inline constexpr double kFineFill = 0.53;
/// How many times fewer candidates the block must promise than the engine's stencil: its runs
/// are shorter (measured: at 100k, k = 7, r = 5.5 the block's 76 cost more than the stencil's
/// 110, at r = 9 its 76 against 208 win).
inline constexpr double kFineGain = 1.6;
/// The same where the lane kernel runs (parallel/list_lanes*_impl.hpp), on the engine's stencil
/// and on this grid alike: it scans a candidate far faster than the gather, so the block's
/// overheads (this grid's sort and copies, the bounds, a second finish order) pay only for
/// far fewer candidates (measured at 100k, k = 7, float AVX-512: r = 9, 249 against 100, the
/// row pass 0.31-0.49 s against 0.64 s for 20 steps; r = 12, 576 against 100, 0.63 against
/// 0.58 s).
inline constexpr double kFineGainLanes = 4;

template <class Real>
struct FineGrid {
  int dims = 3;
  int n[3] = {1, 1, 1};
  double lo[3] = {0, 0, 0}, w[3] = {1, 1, 1}, inv_w[3] = {1, 1, 1};
  bool wrap = false;
  Real size = 0;
  double scale = 0;                  // largest |coordinate|: the rounding margin of the bound
  std::vector<std::uint32_t> start;  // ncells + 1
  std::vector<Real> p[3];            // positions in cell order, padded
  std::vector<std::uint32_t> slot;   // the engine slot of each, padded
  std::vector<Real> v[3];            // velocities and ids in cell order (build() given the
  std::vector<std::uint32_t> id;     // ids: the lane kernel's arrays), padded

  std::size_t ncells() const { return std::size_t(n[0]) * std::size_t(n[1]) * std::size_t(n[2]); }

  /// Plans the grid for the k nearest among the nb kind-0 boids of `in`; false when
  /// it would not scan clearly fewer candidates than the engine's stencil `g` (then the row
  /// pass runs as before); `lanes`: both would run the lane kernel (kFineGainLanes).
  bool plan(const GridView<Real>& g, const BoidStore<Real>& in, std::uint32_t nb, int k,
            bool wrap_world, double world_size, bool lanes = false) {
    dims = g.dims;
    wrap = wrap_world;
    size = Real(world_size);
    if (nb < 64) return false;
    // A flock is not uniform, so the density that matters is the one a boid sees: the mean
    // own-cell count of the engine's cells (sum of squared counts / nb, no pass over the
    // boids) over their volume. Cells of edge (kFineFill k / density)^(1/D) then hold about
    // kFineFill k boids around an average boid, and its 3^D block about 3^D times that.
    double own = 0;
    const std::size_t ecells = g.ncells();
    for (std::size_t c = 0; c < ecells; ++c) {
      const double q = double(g.cell_start[c + 1] - g.cell_start[c]);
      own += q * q;
    }
    own /= double(nb);
    double engine_cells = 1;
    for (int c = 0; c < dims; ++c) {
      engine_cells *=
          g.reach[c] == 0 ? double(g.n[c]) : double(std::min(2 * g.reach[c] + 1, g.n[c]));
    }
    // The engine's stencil scans about engine_cells * own candidates, the block about
    // 3^D * kFineFill * k in shorter runs: only clearly fewer pays.
    const double block = std::pow(3.0, dims) * kFineFill * double(k);
    if (!(engine_cells * own > (lanes ? kFineGainLanes : kFineGain) * block)) return false;
    double ext[3] = {1, 1, 1}, mn[3] = {0, 0, 0};
    scale = wrap ? world_size : 0.0;
    for (int c = 0; c < dims; ++c) {
      double a = std::numeric_limits<double>::infinity(), b = -a;
      if (wrap) {
        a = 0;
        b = world_size;
      } else {
        for (std::uint32_t i = 0; i < nb; ++i) {
          a = std::min(a, double(in.p[c][i]));
          b = std::max(b, double(in.p[c][i]));
        }
        scale = std::max({scale, std::fabs(a), std::fabs(b)});
      }
      mn[c] = a;
      ext[c] = std::max(b - a, 1e-9 * (1 + std::fabs(a)));
    }
    double evol = 1;
    for (int c = 0; c < dims; ++c) evol *= ext[c] / g.n[c];
    const double target = std::pow(kFineFill * double(k) * evol / std::max(own, 1e-9), 1.0 / dims);
    layout(target, ext, mn, nb, world_size);
    return true;
  }

  // Cells of edge `target` (wrap: the box tiled exactly), at most about one per boid; returns
  // the edge used.
  double layout(double target, const double* ext, const double* mn, std::uint32_t nb,
                double world_size) {
    for (;;) {
      std::size_t total = 1;
      for (int c = 0; c < 3; ++c) {
        n[c] = 1;
        lo[c] = 0;
        w[c] = inv_w[c] = 1;
        if (c >= dims) continue;
        lo[c] = mn[c];
        const double cells =
            wrap ? std::floor(world_size / target) : std::floor(ext[c] / target) + 1;
        n[c] = int(std::clamp(cells, 1.0, 1e6));
        w[c] = wrap ? world_size / n[c] : target;
        inv_w[c] = wrap ? n[c] / world_size : 1 / target;
        total *= std::size_t(n[c]);
      }
      if (total <= std::size_t(nb) + 64) return target;
      target *= 1.1;
    }
  }

  int cell_coord(int c, Real x) const {
    const double t = std::floor((double(x) - lo[c]) * inv_w[c]);
    return int(std::clamp(t, 0.0, double(n[c] - 1)));
  }
  std::uint32_t cell_of(const Real* x) const {
    std::uint32_t idx = 0;
    for (int c = dims - 1; c >= 0; --c)
      idx = idx * std::uint32_t(n[c]) + std::uint32_t(cell_coord(c, x[c]));
    return idx;
  }

  /// The counting sort of slots [0, nb) of `in` into the cells (ascending slots per cell).
  void build(const BoidStore<Real>& in, std::uint32_t nb, std::vector<std::uint32_t>& key,
             const std::uint32_t* ids = nullptr) {
    start.assign(ncells() + 1, 0);
    key.resize(nb);
    for (std::uint32_t i = 0; i < nb; ++i) {
      Real x[3] = {0, 0, 0};
      for (int c = 0; c < dims; ++c) x[c] = in.p[c][i];
      key[i] = cell_of(x);
      ++start[key[i] + 1];
    }
    for (std::size_t c = 0; c < ncells(); ++c) start[c + 1] += start[c];
    const std::size_t padded = std::size_t(nb) + 64;
    for (int c = 0; c < dims; ++c) p[c].assign(padded, Real(0));
    slot.assign(padded, 0);
    std::vector<std::uint32_t> at(start.begin(), start.end() - 1);
    for (std::uint32_t i = 0; i < nb; ++i) {
      const std::uint32_t f = at[key[i]]++;
      for (int c = 0; c < dims; ++c) p[c][f] = in.p[c][i];
      slot[f] = i;
    }
    if (ids) {
      id.assign(padded, 0);
      for (int c = 0; c < dims; ++c) v[c].assign(padded, Real(0));
      for (std::size_t f = 0; f < nb; ++f) {
        const std::uint32_t i = slot[f];
        id[f] = ids[i];
        for (int c = 0; c < dims; ++c) v[c][f] = in.v[c][i];
      }
    }
  }

  /// The runs of the block of (2q + 1)^D cells around cell cc (no run twice, even when a
  /// wrapped axis has fewer than 2q + 1 cells: then the whole axis), and per axis the block's
  /// faces [blo, bhi) in world coordinates (infinite where the block covers the axis or ends
  /// at the grid's edge).
  int block_runs(const int* cc, int q, std::vector<CandidateRun<Real>>& runs, double* blo,
                 double* bhi) const {
    runs.clear();
    int from[3], to[3];
    for (int c = 0; c < 3; ++c) {
      from[c] = cc[c] - q;
      to[c] = cc[c] + q;
      blo[c] = -std::numeric_limits<double>::infinity();
      bhi[c] = std::numeric_limits<double>::infinity();
      if (c >= dims) {
        from[c] = to[c] = 0;
        continue;
      }
      if (wrap && n[c] >= 2 * q + 1) {
        blo[c] = lo[c] + (cc[c] - q) * w[c];
        bhi[c] = lo[c] + (cc[c] + q + 1) * w[c];
      } else if (wrap) {  // the whole axis
        from[c] = 0;
        to[c] = n[c] - 1;
      } else {
        if (from[c] >= 0) blo[c] = lo[c] + from[c] * w[c];
        if (to[c] < n[c]) bhi[c] = lo[c] + (to[c] + 1) * w[c];
        from[c] = std::max(from[c], 0);
        to[c] = std::min(to[c], n[c] - 1);
      }
    }
    auto add = [&](std::size_t row, int x0, int x1) {
      const std::uint32_t b = start[row + std::size_t(x0)], e = start[row + std::size_t(x1) + 1];
      if (b != e) runs.push_back({b, e, {0, 0, 0}});
    };
    // The boid's own x-row first: the gather's pruning bound then tightens early.
    for (int z = from[2] - 1; z <= to[2]; ++z) {
      for (int y = z < from[2] ? cc[1] - 1 : from[1]; y <= (z < from[2] ? cc[1] - 1 : to[1]); ++y) {
        const int ry = z < from[2] ? cc[1] : y, rz = z < from[2] ? cc[2] : z;
        if (z >= from[2] && ry == cc[1] && rz == cc[2]) continue;
        const int yy = ry < 0 ? ry + n[1] : ry >= n[1] ? ry - n[1] : ry;
        const int zz = rz < 0 ? rz + n[2] : rz >= n[2] ? rz - n[2] : rz;
        const std::size_t row =
            std::size_t(n[0]) * (std::size_t(yy) + std::size_t(n[1]) * std::size_t(zz));
        if (from[0] < 0) {
          add(row, from[0] + n[0], n[0] - 1);
          add(row, 0, to[0]);
        } else if (to[0] >= n[0]) {
          add(row, from[0], n[0] - 1);
          add(row, 0, to[0] - n[0]);
        } else {
          add(row, from[0], to[0]);
        }
      }
    }
    return int(runs.size());
  }

  /// block_runs' faces alone.
  void block_faces(const int* cc, int q, double* blo, double* bhi) const {
    for (int c = 0; c < 3; ++c) {
      blo[c] = -std::numeric_limits<double>::infinity();
      bhi[c] = std::numeric_limits<double>::infinity();
      if (c >= dims) continue;
      if (wrap && n[c] >= 2 * q + 1) {
        blo[c] = lo[c] + (cc[c] - q) * w[c];
        bhi[c] = lo[c] + (cc[c] + q + 1) * w[c];
      } else if (!wrap) {
        if (cc[c] - q >= 0) blo[c] = lo[c] + (cc[c] - q) * w[c];
        if (cc[c] + q < n[c]) bhi[c] = lo[c] + (cc[c] + q + 1) * w[c];
      }
    }
  }

  /// The distance from x to the block's faces, less the rounding margin (<= 0: none).
  double bound(const Real* x, const double* blo, const double* bhi) const {
    double b = std::numeric_limits<double>::infinity();
    for (int c = 0; c < dims; ++c) b = std::min({b, double(x[c]) - blo[c], bhi[c] - double(x[c])});
    if (b == std::numeric_limits<double>::infinity()) return b;
    return b - 1e-4 * (b + scale) - 1e-30;
  }
};

}  // namespace boids::list_detail
