// A static cell grid over the obstacles (spheres and boxes), so a point's obstacle look-ups
// (avoidance, the hard push-out, the turn-rate vehicle's look-ahead) cost O(obstacles near
// it) instead of a scan of every obstacle.
//
// Design. Built once with the model parameters (so again whenever obstacles change: the
// parameters are rebuilt then). Each obstacle is entered into every cell its bounding box,
// grown by `reach`, overlaps (cyclically when wrapping, clamped otherwise); a point's
// candidates are then the one list of its own cell. Every obstacle whose surface is within
// `reach` of the point is in that list. Obstacles are numbered spheres first, then boxes, and
// entered in that order, so a list visits them in the order of the old full scan and callers
// accumulate bit-identically. `reach` covers every use: the avoidance look-up (the point
// itself within avoid_distance, the probe avoid_distance ahead within half of it, so 1.5
// avoid_distance) and every "is this point inside" test (the obstacle skin), with a margin
// for rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace boids {

template <class Real>
class ObstacleGrid {
 public:
  /// S and B have members c[3], r and lo[3], hi[3] (SphereP, BoxP).
  template <class S, class B>
  void build(int dims, bool wrap, double size, double reach, const std::vector<S>& spheres,
             const std::vector<B>& boxes) {
    dims_ = dims;
    wrap_ = wrap;
    n_spheres_ = std::uint32_t(spheres.size());
    const std::size_t count = spheres.size() + boxes.size();
    const double cap_axis = dims == 2 ? 1024 : 96;
    for (int c = 0; c < 3; ++c) {
      n_[c] = 1;
      scale_[c] = 0;
      if (c >= dims || count <= 4) continue;  // a handful: one cell, the plain scan
      // Cells half the reach wide: a cell lists every obstacle within reach of any of its
      // points, so smaller cells list fewer that are out of reach of a given point.
      const double g = std::clamp(std::floor(2.0 * size / std::max(reach, 1e-300)), 1.0, cap_axis);
      n_[c] = int(g);
      scale_[c] = g / size;
    }
    const std::size_t total = std::size_t(n_[0]) * std::size_t(n_[1]) * std::size_t(n_[2]);
    // Two passes over the obstacles' cell ranges: count, then fill (stable: ascending index).
    std::vector<std::uint32_t> cnt(total + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t k = 0; k < count; ++k) {
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        for (int c = 0; c < dims; ++c) {
          if (k < spheres.size()) {
            lo[c] = double(spheres[k].c[c]) - double(spheres[k].r) - reach;
            hi[c] = double(spheres[k].c[c]) + double(spheres[k].r) + reach;
          } else {
            lo[c] = double(boxes[k - spheres.size()].lo[c]) - reach;
            hi[c] = double(boxes[k - spheres.size()].hi[c]) + reach;
          }
        }
        visit_cells(lo, hi, [&](std::size_t cell) {
          if (pass == 0)
            ++cnt[cell + 1];
          else
            items_[fill_[cell]++] = std::uint32_t(k);
        });
      }
      if (pass == 0) {
        for (std::size_t i = 0; i < total; ++i) cnt[i + 1] += cnt[i];
        start_ = cnt;
        fill_ = cnt;
        items_.assign(cnt[total], 0);
      }
    }
    fill_.clear();
    fill_.shrink_to_fit();
  }

  /// Calls fs(sphere index) and fb(box index) for the obstacles of the cell of p: spheres in
  /// ascending order, then boxes in ascending order.
  template <class FS, class FB>
  void visit(const Real* p, FS&& fs, FB&& fb) const {
    if (start_.empty()) return;
    const std::size_t cell = cell_of(p);
    for (std::uint32_t i = start_[cell]; i < start_[cell + 1]; ++i) {
      const std::uint32_t k = items_[i];
      if (k < n_spheres_)
        fs(k);
      else
        fb(k - n_spheres_);
    }
  }

  /// Whether visit(p, ...) would call nothing: no obstacle is within reach of p's cell. Most
  /// points of a world with a few obstacles; lets callers skip their set-up.
  bool none_near(const Real* p) const {
    if (start_.empty()) return true;
    const std::size_t cell = cell_of(p);
    return start_[cell] == start_[cell + 1];
  }

 private:
  std::size_t cell_of(const Real* p) const {
    std::size_t cell = 0;
    for (int c = dims_ - 1; c >= 0; --c) cell = cell * std::size_t(n_[c]) + coord(c, double(p[c]));
    return cell;
  }

  std::size_t coord(int c, double x) const {
    const double t = std::floor(x * scale_[c]);
    if (!(t >= 0)) return 0;
    if (t >= double(n_[c])) return std::size_t(n_[c] - 1);
    return std::size_t(t);
  }

  // Every cell the box [lo, hi] overlaps: cyclically when wrapping (all cells of an axis it
  // spans), clamped into the grid otherwise.
  template <class F>
  void visit_cells(const double* lo, const double* hi, F&& f) const {
    long b[3] = {0, 0, 0}, e[3] = {0, 0, 0};
    for (int c = 0; c < 3; ++c) {
      if (c >= dims_) continue;
      const long g = n_[c];
      if (wrap_) {
        const double a = std::floor(lo[c] * scale_[c]), z = std::floor(hi[c] * scale_[c]);
        if (!(z - a + 1 < double(g))) {
          b[c] = 0;
          e[c] = g - 1;
        } else {
          b[c] = long(a);
          e[c] = long(z);
        }
      } else {
        b[c] = long(coord(c, lo[c]));
        e[c] = long(coord(c, hi[c]));
      }
    }
    auto wrapi = [](long x, long g) { return std::size_t(((x % g) + g) % g); };
    for (long z = b[2]; z <= e[2]; ++z) {
      for (long y = b[1]; y <= e[1]; ++y) {
        for (long x = b[0]; x <= e[0]; ++x) {
          f((wrapi(z, n_[2]) * std::size_t(n_[1]) + wrapi(y, n_[1])) * std::size_t(n_[0]) +
            wrapi(x, n_[0]));
        }
      }
    }
  }

  int dims_ = 3;
  bool wrap_ = false;
  std::uint32_t n_spheres_ = 0;
  int n_[3] = {1, 1, 1};
  double scale_[3] = {0, 0, 0};
  std::vector<std::uint32_t> start_, fill_, items_;
};

}  // namespace boids
