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
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace boids {

template <class Real>
class KindGrid {
 public:
  /// Builds over `count` points; pos(k, c) is coordinate c of point k. Cells are at least
  /// `reach` wide; at most about max(1024, 4 * count) cells.
  template <class Pos>
  void build(int dims, bool wrap, double size, double reach, std::size_t count, Pos&& pos) {
    dims_ = dims;
    wrap_ = wrap;
    count_ = count;
    const double eps = sizeof(Real) == 4 ? 1.2e-7 : 2.3e-16;
    const double edge = std::max(reach * 1.001 + 8.0 * eps * size, 1e-300);
    const double cap_cells = std::max(1024.0, 4.0 * double(count));
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

  /// Calls f(k) for every point k in p's cell and the cells around it, in ascending k, once
  /// each: a superset of the points within `reach` of p.
  template <class F>
  void for_near(const Real* p, F&& f) const {
    if (count_ == 0) return;
    int axis[3][3] = {}, na[3] = {1, 1, 1};
    for (int c = 0; c < dims_; ++c) {
      const int g = n_[c], x = int(coord(c, p[c]));
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
    // The non-empty ranges, merged by their heads (each range ascends).
    std::uint32_t b[27], e[27];
    int nr = 0;
    for (int z = 0; z < na[2]; ++z) {
      for (int y = 0; y < na[1]; ++y) {
        for (int x = 0; x < na[0]; ++x) {
          const std::uint32_t cell =
              (std::uint32_t(axis[2][z]) * std::uint32_t(n_[1]) + std::uint32_t(axis[1][y])) *
                  std::uint32_t(n_[0]) +
              std::uint32_t(axis[0][x]);
          if (start_[cell] == start_[cell + 1]) continue;
          b[nr] = start_[cell];
          e[nr] = start_[cell + 1];
          ++nr;
        }
      }
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

 private:
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
};

}  // namespace boids
