// A uniform cell grid over a set of points (predators, leaders, prey, kinds 1/2), so that a
// look-up of everything within a reach of a point costs O(points nearby) instead of a scan.
//
// Design. Cells are at least `reach` wide (plus a rounding margin, below), so any two points
// within `reach` of each other (minimum image when wrapping) lie in the same or adjacent cells.
// Points are counting-sorted by cell, stably, so each cell holds ascending point indices;
// for_near() merges the (up to 3^D) neighbouring cells' ranges and visits the candidates in
// ascending index order, each once. Callers keep their old loops' order of accumulation (the
// index order), so a loop over all points that skips the far ones and a loop over for_near()'s
// candidates give bit-identical results. Cell coordinates are clamped into the grid, which keeps
// "within reach => adjacent cells" true for points outside [0, L) in non-wrapping worlds.
//
// Rounding margin: the callers' distance tests run in Real arithmetic on rounded coordinates,
// so a pair whose exact distance is a little over `reach` can test as inside. Cells are made
// wider than `reach` by 0.1 % plus 8 ulp-sized steps of the world size, far above that error.
//
// Look-ups by many points into few (the prey's look-ups of the predators): build_near_lists()
// stores, per cell, the merged ascending list of every point of its 3^D neighbourhood once per
// build (3^D entries per point), so for_near() is then one list walk without the merge: the
// same candidates in the same order. for_near_unordered() skips the merge for callers that
// restore the order themselves (the predators' view of the prey, core/behaviour_prepare.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace boids {

template <class Real>
class KindGrid {
 public:
  /// Builds over `count` points; pos(k, c) is coordinate c of point k. Cells are at least
  /// `reach` wide; at most about max(1024, 4 * count) cells.
  /// `cells_per_point` raises the cap to about max(1024, cells_per_point * count) cells.
  template <class Pos>
  void build(int dims, bool wrap, double size, double reach, std::size_t count, Pos&& pos,
             double cells_per_point = 4.0) {
    dims_ = dims;
    wrap_ = wrap;
    count_ = count;
    near_start_.clear();
    near_items_.clear();
    const double eps = sizeof(Real) == 4 ? 1.2e-7 : 2.3e-16;
    const double edge = std::max(reach * 1.001 + 8.0 * eps * size, 1e-300);
    const double cap_cells = std::max(1024.0, cells_per_point * double(count));
    const double cap_axis = std::max(1.0, std::floor(std::pow(cap_cells, 1.0 / dims) + 1e-9));
    std::size_t total = 1;
    for (int c = 0; c < 3; ++c) {
      n_[c] = 1;
      scale_[c] = 0;
      if (c >= dims) continue;
      double g = std::floor(size / edge);
      g = std::clamp(g, 1.0, cap_axis);
      n_[c] = int(g);
      scale_[c] = g / size;
      total *= std::size_t(n_[c]);
    }
    start_.assign(total + 1, 0);
    cell_.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      std::uint32_t idx = 0;
      for (int c = dims - 1; c >= 0; --c) idx = idx * std::uint32_t(n_[c]) + coord(c, pos(k, c));
      cell_[k] = idx;
      ++start_[idx + 1];
    }
    for (std::size_t i = 0; i < total; ++i) start_[i + 1] += start_[i];
    items_.resize(count);
    fill_ = start_;
    for (std::size_t k = 0; k < count; ++k) items_[fill_[cell_[k]]++] = std::uint32_t(k);
  }

  std::size_t size() const { return count_; }

  /// Bytes of the arrays held (their capacity), for an engine's memory report.
  std::size_t bytes() const {
    return (start_.capacity() + fill_.capacity() + cell_.capacity() + items_.capacity() +
            near_start_.capacity() + near_items_.capacity()) *
           sizeof(std::uint32_t);
  }

  /// Empty, as a default-constructed grid, but keeping the arrays' memory for the next build
  /// (an engine rebuilds its grids every step: fresh arrays cost page faults and zeroing).
  void clear() {
    KindGrid g;
    auto keep = [](std::vector<std::uint32_t>& from, std::vector<std::uint32_t>& to) {
      from.clear();
      to.swap(from);
    };
    keep(start_, g.start_);
    keep(fill_, g.fill_);
    keep(cell_, g.cell_);
    keep(items_, g.items_);
    keep(near_start_, g.near_start_);
    keep(near_items_, g.near_items_);
    *this = std::move(g);
  }

  /// The point k with keep(k) that minimises (d2(k), k), where d2(k) is k's squared distance
  /// from p as the caller computes it (its minimum image, within rounding of the true one);
  /// size() when there is none. Cells are visited in growing rings (Chebyshev distance r in
  /// cells around p's): once the best d2 found is below the nearest any unvisited cell can
  /// be (r cell edges, less a rounding margin), no unvisited point can win or tie, so the
  /// result is a scan's over all points with strict `<` in index order. About O(points
  /// within the ring) when the grid has a few points per cell (the leaders' grid is built so).
  template <class D2, class Keep>
  std::size_t nearest(const Real* p, D2&& d2, Keep&& keep) const {
    std::size_t best = count_;
    Real best2 = 0;
    if (count_ == 0) return best;
    int x[3] = {0, 0, 0}, rmax = 0;
    double edge = 1e300;
    for (int c = 0; c < dims_; ++c) {
      x[c] = int(coord(c, p[c]));
      const int far = wrap_ ? n_[c] / 2 : std::max(x[c], n_[c] - 1 - x[c]);
      rmax = std::max(rmax, far);
      edge = std::min(edge, 1.0 / scale_[c]);
    }
    auto visit = [&](const int* o) {
      std::uint32_t idx = 0;
      for (int c = dims_ - 1; c >= 0; --c) {
        int y = x[c] + o[c];
        if (wrap_) {
          y = ((y % n_[c]) + n_[c]) % n_[c];
        } else if (y < 0 || y >= n_[c]) {
          return;
        }
        idx = idx * std::uint32_t(n_[c]) + std::uint32_t(y);
      }
      for (std::uint32_t i = start_[idx]; i < start_[idx + 1]; ++i) {
        const std::uint32_t k = items_[i];
        if (!keep(k)) continue;
        const Real e2 = d2(k);
        if (best == count_ || e2 < best2 || (e2 == best2 && k < best)) {
          best = k;
          best2 = e2;
        }
      }
    };
    for (int r = 0; r <= rmax; ++r) {
      if (best != count_ && r > 0) {
        // Any unvisited point is at least (r - 1) edges away along some axis.
        const double gap = double(r - 1) * edge;
        if (std::sqrt(double(best2)) * (1.0 + 1e-4) + 1e-6 * edge < gap) break;
      }
      const int rz = dims_ == 3 ? r : 0;
      for (int oz = -rz; oz <= rz; ++oz) {
        for (int oy = -r; oy <= r; ++oy) {
          const bool face = std::abs(oz) == r || std::abs(oy) == r;
          const int step = face || r == 0 ? 1 : 2 * r;
          for (int ox = -r; ox <= r; ox += step) {
            const int o[3] = {ox, oy, oz};
            visit(o);
          }
        }
      }
    }
    return best;
  }

  /// Precomputes every cell's neighbourhood list (see the top): for_near() then costs one
  /// list walk. About 3^D * size() indices of memory.
  void build_near_lists() {
    const std::size_t total = start_.size() - 1;
    near_start_.assign(total + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) {
        for (std::size_t i = 0; i < total; ++i) near_start_[i + 1] += near_start_[i];
        near_items_.resize(near_start_[total]);
        fill_.assign(near_start_.begin(), near_start_.end() - 1);
      }
      // Points in ascending order, each into the lists of the cells around its own: every
      // list ascends.
      for (std::size_t k = 0; k < count_; ++k) {
        std::uint32_t cells[27];
        const int nc = neighbourhood(cell_[k], cells);
        for (int t = 0; t < nc; ++t) {
          if (pass == 0)
            ++near_start_[cells[t] + 1];
          else
            near_items_[fill_[cells[t]]++] = std::uint32_t(k);
        }
      }
    }
  }

  /// The cell of p, and a cell's neighbourhood list (build_near_lists(); [begin, end),
  /// ascending): what for_near(p) walks, for callers that visit several points' lists at once
  /// (the vectorised prey finish, core/prey_finish_impl.hpp).
  bool has_near_lists() const { return !near_start_.empty(); }
  std::uint32_t cell_index(const Real* p) const { return cell_of(p); }
  /// Coordinate c's cell of x (what cell_index() combines), and the cell of per-axis cells.
  std::uint32_t axis_cell(int c, Real x) const { return coord(c, x); }
  std::uint32_t cell_at(const std::uint32_t* a) const {
    std::uint32_t idx = 0;
    for (int c = dims_ - 1; c >= 0; --c) idx = idx * std::uint32_t(n_[c]) + a[c];
    return idx;
  }
  std::pair<const std::uint32_t*, const std::uint32_t*> near_list(std::uint32_t cell) const {
    const std::uint32_t* base = near_items_.data();
    return {base + near_start_[cell], base + near_start_[cell + 1]};
  }

  /// Calls f(k) for every point k in p's cell and the cells around it, in ascending k, once
  /// each: a superset of the points within `reach` of p.
  template <class F>
  void for_near(const Real* p, F&& f) const {
    if (count_ == 0) return;
    if (!near_start_.empty()) {
      const std::uint32_t cell = cell_of(p);
      for (std::uint32_t i = near_start_[cell]; i < near_start_[cell + 1]; ++i) f(near_items_[i]);
      return;
    }
    std::uint32_t cells[27];
    const int nc = neighbourhood(cell_of(p), cells);
    // The non-empty ranges, merged by their heads (each range ascends).
    std::uint32_t b[27], e[27];
    int nr = 0;
    for (int t = 0; t < nc; ++t) {
      if (start_[cells[t]] == start_[cells[t] + 1]) continue;
      b[nr] = start_[cells[t]];
      e[nr] = start_[cells[t] + 1];
      ++nr;
    }
    if (nr == 1) {
      for (std::uint32_t i = b[0]; i < e[0]; ++i) f(items_[i]);
      return;
    }
    while (nr > 0) {
      int best = 0;
      for (int r = 1; r < nr; ++r) {
        if (items_[b[r]] < items_[b[best]]) best = r;
      }
      f(items_[b[best]]);
      if (++b[best] == e[best]) {
        b[best] = b[nr - 1];
        e[best] = e[nr - 1];
        --nr;
      }
    }
  }

  /// The candidates of for_near() without the merge: cell by cell (a fixed order of the
  /// cells around p's), ascending within each cell, once each.
  template <class F>
  void for_near_unordered(const Real* p, F&& f) const {
    if (count_ == 0) return;
    std::uint32_t cells[27];
    const int nc = neighbourhood(cell_of(p), cells);
    for (int t = 0; t < nc; ++t)
      for (std::uint32_t i = start_[cells[t]]; i < start_[cells[t] + 1]; ++i) f(items_[i]);
  }

 private:
  std::uint32_t cell_of(const Real* p) const {
    std::uint32_t idx = 0;
    for (int c = dims_ - 1; c >= 0; --c) idx = idx * std::uint32_t(n_[c]) + coord(c, p[c]);
    return idx;
  }

  // The distinct cells around `cell` (itself included), z, then y, then x ascending in the
  // order of the offsets -1, 0, +1; returns how many.
  int neighbourhood(std::uint32_t cell, std::uint32_t* out) const {
    int axis[3][3] = {}, na[3] = {1, 1, 1};
    std::uint32_t rest = cell;
    for (int c = 0; c < dims_; ++c) {
      const int g = n_[c], x = int(rest % std::uint32_t(g));
      rest /= std::uint32_t(g);
      na[c] = 0;
      for (int o = -1; o <= 1; ++o) {
        int y = x + o;
        if (wrap_) {
          y = (y + g) % g;
        } else if (y < 0 || y >= g) {
          continue;
        }
        bool dup = false;
        for (int t = 0; t < na[c]; ++t) dup |= axis[c][t] == y;
        if (!dup) axis[c][na[c]++] = y;
      }
    }
    int nc = 0;
    for (int z = 0; z < na[2]; ++z)
      for (int y = 0; y < na[1]; ++y)
        for (int x = 0; x < na[0]; ++x)
          out[nc++] =
              (std::uint32_t(axis[2][z]) * std::uint32_t(n_[1]) + std::uint32_t(axis[1][y])) *
                  std::uint32_t(n_[0]) +
              std::uint32_t(axis[0][x]);
    return nc;
  }

  std::uint32_t coord(int c, Real x) const {
    const double t = std::floor(double(x) * scale_[c]);
    if (!(t >= 0)) return 0;  // also NaN
    if (t >= double(n_[c])) return std::uint32_t(n_[c] - 1);
    return std::uint32_t(t);
  }

  int dims_ = 3;
  bool wrap_ = false;
  std::size_t count_ = 0;
  int n_[3] = {1, 1, 1};
  double scale_[3] = {0, 0, 0};
  std::vector<std::uint32_t> start_, fill_, cell_, items_;
  std::vector<std::uint32_t> near_start_, near_items_;  // build_near_lists()
};

}  // namespace boids
