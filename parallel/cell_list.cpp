#include "parallel/cell_list.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "boids/world.hpp"

namespace boids {

GridPlan plan_grid(const GridSettings& s, const double lo[3], const double hi[3],
                   std::size_t boids) {
  GridPlan g;
  g.dims = s.dims;
  const bool wrap = s.boundary == Boundary::wrap;
  double glo[3] = {0, 0, 0}, ext[3] = {0, 0, 0};
  double scale = s.size;
  for (int c = 0; c < s.dims; ++c) {
    if (s.boundary == Boundary::open) {
      glo[c] = lo[c] <= hi[c] ? lo[c] : 0.0;
      ext[c] = lo[c] <= hi[c] ? hi[c] - lo[c] : 0.0;
      scale = std::max({scale, std::fabs(lo[c]), std::fabs(hi[c])});
    } else {
      ext[c] = s.size;
    }
  }
  // A cell a hair larger than r/cpr: pairs just inside r (after the state type's rounding of
  // positions up to `scale`) never reach past the stencil.
  const double cell_min = s.radius * (1 + 1e-4) + scale * 1e-6;
  // At most one cell per two boids (64 at least). A sparse world then pays for occupied
  // space, not empty space: with r/cpr cells 2D r = 5 at 0.02 boids per u² would make four
  // cells per boid, most of them empty, and cost 1.7x the same flock at r = 15; capped, the
  // cells grow (the stencil still reaches r, since they only get larger) and the two cost
  // the same within 2 % (docs/engine.md, "Sparse worlds"). Dense worlds are not affected
  // (3D default density: 7 boids per cell of edge r). Measured in 2D and 3D: one cell per
  // 2 boids is the fastest of 2, 1, 1/2, 1/4 and 1/8 cells per boid.
  const std::size_t cap = std::max<std::size_t>(64, boids / 2);
  double target = cell_min / s.cells_per_radius;
  for (;;) {
    std::size_t total = 1;
    for (int c = 0; c < 3; ++c) {
      g.n[c] = 1;
      g.reach[c] = 0;
      g.lo[c] = glo[c];
      g.inv_cell[c] = 0;
      if (c >= s.dims) continue;
      if (wrap) {
        double cs = target;
        int reach = s.cells_per_radius;
        double n = std::floor(s.size / cs);
        if (n < 2 * reach + 1 && reach > 1) {  // too few cells for the r/2 stencil: use r
          cs = std::max(cs, cell_min);
          reach = 1;
          n = std::floor(s.size / cs);
        }
        if (n < 2 * reach + 1) {  // collapse: one cell, per-pair minimum image
          n = 1;
          reach = 0;
        }
        n = std::min(n, 1e9);
        g.n[c] = int(n);
        g.reach[c] = reach;
        g.inv_cell[c] = n / s.size;
      } else {
        const double n = std::min(std::floor(ext[c] / target) + 1, 1e9);
        g.n[c] = int(n);
        g.reach[c] = s.cells_per_radius;
        g.inv_cell[c] = 1 / target;
      }
      total = total > cap ? total : total * std::size_t(g.n[c]);
    }
    if (total <= cap) {
      g.ncells = total;
      break;
    }
    target *= 1.25 * std::pow(double(total) / double(cap), 1.0 / s.dims);
  }
  g.wrap = WrapMode::none;
  if (wrap) {
    g.wrap = WrapMode::shift;
    for (int c = 0; c < s.dims; ++c)
      if (g.reach[c] == 0) g.wrap = WrapMode::min_image;
  }
  return g;
}

template <class Real>
void reserve_padded(BoidStore<Real>& dst, int dims, std::size_t n) {
  dst.dims = dims;
  if (dst.kind.size() != padded(n + kPadElems)) dst.resize(n + kPadElems);
  dst.n = n;
}

namespace {

constexpr std::size_t kBlock = 16384;  // slots per task in the plain parallel loops

inline int axis_cell(double x, double lo, double inv, int n) {
  const double f = std::floor((x - lo) * inv);
  if (!(f >= 0)) return 0;  // also NaN
  return f >= n ? n - 1 : int(f);
}

}  // namespace

template <class Real>
void CellList<Real>::build(const GridSettings& gs, const BoidStore<Real>& src, BoidStore<Real>& dst,
                           Executor& ex) {
  const std::size_t n = src.n;
  const int dims = gs.dims;

  // 1. plan (open worlds: bounding box of kind 0 over fixed blocks, combined in block order;
  //    min/max are exact, so any order would do, but the blocks keep it obviously fixed)
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  std::size_t boids = 0;
  {
    const std::size_t nb = (n + kBlock - 1) / kBlock;
    struct Box {
      double lo[3], hi[3];
      std::size_t count;
    };
    std::vector<Box> boxes(nb);
    const bool open = gs.boundary == Boundary::open;
    ex.parallel_for(nb, 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1; ++b) {
        Box bx{};
        for (int c = 0; c < 3; ++c) {
          bx.lo[c] = std::numeric_limits<double>::infinity();
          bx.hi[c] = -std::numeric_limits<double>::infinity();
        }
        const std::size_t e = std::min(n, (b + 1) * kBlock);
        for (std::size_t i = b * kBlock; i < e; ++i) {
          if (src.kind[i] != 0) continue;
          ++bx.count;
          if (!open) continue;
          for (int c = 0; c < dims; ++c) {
            const double x = double(src.p[c][i]);
            bx.lo[c] = std::min(bx.lo[c], x);
            bx.hi[c] = std::max(bx.hi[c], x);
          }
        }
        boxes[b] = bx;
      }
    });
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::numeric_limits<double>::infinity();
      hi[c] = -std::numeric_limits<double>::infinity();
    }
    for (const Box& bx : boxes) {
      boids += bx.count;
      for (int c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], bx.lo[c]);
        hi[c] = std::max(hi[c], bx.hi[c]);
      }
    }
  }
  plan_ = gs.plan ? *gs.plan : plan_grid(gs, lo, hi, boids);
  const GridPlan& g = plan_;
  const std::size_t buckets = g.ncells + 1;  // + the kind 1/2 bucket

  // 2. keys: the bucket of src slot i, computed where it is needed (twice: histogram and
  //    scatter) rather than stored, which saves 4 bytes per boid at the cost of a few flops.
  auto key_of = [&](std::size_t i) {
    if (src.kind[i] != 0) return std::uint32_t(g.ncells);
    std::size_t key = 0;
    for (int c = dims - 1; c >= 0; --c)
      key = key * std::size_t(g.n[c]) +
            std::size_t(axis_cell(double(src.p[c][i]), g.lo[c], g.inv_cell[c], g.n[c]));
    return std::uint32_t(key);
  };

  // 3. counting sort over the src slots in fixed blocks (contiguous slot ranges, so the
  //    reads follow src's own order). The block count only sizes scratch (at most ~4
  //    histogram entries per boid). The src slot of every dst slot goes into dst.id, which
  //    the gather fills last: the sort needs no map of its own.
  const std::size_t conc = std::size_t(std::max(1, ex.concurrency()));
  std::size_t nblocks = std::min<std::size_t>({conc, 8, std::max<std::size_t>(1, 4 * n / buckets)});
  nblocks = std::max<std::size_t>(1, std::min(nblocks, n));
  hist_.assign(nblocks * buckets, 0);
  auto block_begin = [&](std::size_t b) { return n * b / nblocks; };
  ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t* h = hist_.data() + b * buckets;
      for (std::size_t i = block_begin(b); i < block_begin(b + 1); ++i) ++h[key_of(i)];
    }
  });
  cell_start_.resize(buckets + 1);
  std::uint32_t running = 0, maxo = 0;
  for (std::size_t c = 0; c < buckets; ++c) {
    cell_start_[c] = running;
    for (std::size_t b = 0; b < nblocks; ++b) {
      std::uint32_t& h = hist_[b * buckets + c];
      const std::uint32_t count = h;
      h = running;
      running += count;
    }
    if (c < g.ncells) maxo = std::max(maxo, running - cell_start_[c]);
  }
  cell_start_[buckets] = running;
  max_occupancy_ = maxo;
  reserve_padded(dst, dims, n);
  std::uint32_t* from = dst.id.data();
  ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t* h = hist_.data() + b * buckets;
      for (std::size_t i = block_begin(b); i < block_begin(b + 1); ++i)
        from[h[key_of(i)]++] = std::uint32_t(i);
    }
  });

  // 4. the canonical order inside every bucket: by id. The order is then cell, then id, a
  //    pure function of the state whatever src's slot order, block count or thread count.
  //    A cell's boids come from a few neighbouring cells of src, each run already in id order,
  //    so an insertion sort does little work; large buckets (the kind 1/2 one) use std::sort.
  const std::uint32_t* sid = src.id.data();
  ex.parallel_for(buckets, 1024, [&](std::size_t c0, std::size_t c1) {
    for (std::size_t c = c0; c < c1; ++c) {
      std::uint32_t* f = from + cell_start_[c];
      const std::uint32_t len = cell_start_[c + 1] - cell_start_[c];
      const auto by_id = [sid](std::uint32_t a, std::uint32_t b) { return sid[a] < sid[b]; };
      if (len > 64) {
        std::sort(f, f + len, by_id);
        continue;
      }
      for (std::uint32_t k = 1; k < len; ++k) {
        const std::uint32_t v = f[k];
        std::uint32_t m = k;
        for (; m > 0 && by_id(v, f[m - 1]); --m) f[m] = f[m - 1];
        f[m] = v;
      }
    }
  });

  // 5. gather into cell order; ids last, as they overwrite the map.
  ex.parallel_for(n, kBlock, [&](std::size_t b, std::size_t e) {
    for (int c = 0; c < dims; ++c) {
      const Real* sp = src.p[c].data();
      const Real* sv = src.v[c].data();
      Real* dp = dst.p[c].data();
      Real* dv = dst.v[c].data();
      for (std::size_t j = b; j < e; ++j) {
        dp[j] = sp[from[j]];
        dv[j] = sv[from[j]];
      }
    }
    for (std::size_t j = b; j < e; ++j) dst.kind[j] = src.kind[from[j]];
    for (std::size_t j = b; j < e; ++j) dst.id[j] = sid[from[j]];
  });
}

template <class Real>
GridView<Real> CellList<Real>::view(const BoidStore<Real>& dst, const ModelParams<Real>& m) const {
  // The kernels read whole packs past a run's end (GridView): the slack must be there.
  if (dst.kind.size() < dst.n + kPadElems) throw Error("cell list: store without kernel slack");
  GridView<Real> v;
  for (int c = 0; c < 3; ++c) {
    v.p[c] = dst.p[c].data();
    v.v[c] = dst.v[c].data();
    v.n[c] = plan_.n[c];
    v.reach[c] = plan_.reach[c];
  }
  v.cell_start = cell_start_.data();
  v.dims = plan_.dims;
  v.wrap = plan_.wrap;
  v.size = m.size;
  v.inv_size = m.inv_size;
  v.kp = m.kind[0];
  return v;
}

template <class Real>
std::size_t CellList<Real>::bytes() const noexcept {
  return sizeof(std::uint32_t) * (cell_start_.capacity() + hist_.capacity());
}

template class CellList<float>;
template class CellList<double>;
template void reserve_padded(BoidStore<float>&, int, std::size_t);
template void reserve_padded(BoidStore<double>&, int, std::size_t);

}  // namespace boids
