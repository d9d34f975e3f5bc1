#include "parallel/cell_list.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>

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

// floor((x - lo) * inv) clamped to [0, n - 1], NaN to 0. Clamping before the truncation gives
// the same cell without a floor: on [0, n - 1] truncation is floor, below 0 (and NaN) both
// give 0, from n - 1 up both give n - 1. Branch-free (selects), so the compiler needs no
// floor emulation at the baseline instruction set.
inline int axis_cell(double x, double lo, double inv, int n) {
  double f = (x - lo) * inv;
  f = 0.0 < f ? f : 0.0;  // also NaN
  const double top = double(n - 1);
  f = f < top ? f : top;
  return int(f);
}

// The bucket of src slot i: its cell, or `special` (the extra bucket) for kinds 1 and 2.
// Templated on the dimension so the hot loops below keep everything in registers.
template <class Real, int D>
struct BucketOf {
  const Real* p[D];
  const std::uint8_t* kind;
  double lo[D], inv[D];
  int n[D];
  std::uint32_t special;

  BucketOf(const BoidStore<Real>& src, const GridPlan& g) : kind(src.kind.data()) {
    for (int c = 0; c < D; ++c) {
      p[c] = src.p[c].data();
      lo[c] = g.lo[c];
      inv[c] = g.inv_cell[c];
      n[c] = g.n[c];
    }
    special = std::uint32_t(g.ncells);
  }
  std::uint32_t operator()(std::size_t i) const {
    if (kind[i] != 0) return special;
    std::size_t key = 0;
    for (int c = D - 1; c >= 0; --c)
      key = key * std::size_t(n[c]) + std::size_t(axis_cell(double(p[c][i]), lo[c], inv[c], n[c]));
    return std::uint32_t(key);
  }
  // The Morton key of slot i's sub-cell (4 per axis, 2 bits each; the coarse bit of every axis
  // above the fine ones, so consecutive keys stay in one octant, then one sub-octant); 0 for
  // kinds 1 and 2.
  std::uint8_t sub(std::size_t i) const {
    if (kind[i] != 0) return 0;
    unsigned key = 0;
    for (int c = 0; c < D; ++c) {
      const double f = (double(p[c][i]) - lo[c]) * inv[c];
      int s;
      if (f >= 0 && f < double(n[c])) {
        // Inside the grid (every boid of a wrapped world): 4f is exact and trunc(4f) =
        // 4 trunc(f) + floor(4 (f - trunc(f))), so the low two bits are the sub-cell, without
        // the three-way comparison below, whose branches the predictor loses about once per
        // axis and boid.
        s = int(std::int64_t(f * 4.0) & 3);
      } else {
        // Outside (open worlds' edges, non-finite positions): the floor emulation of the
        // baseline instruction set, q in [0, 4) (NaN for a non-finite position: 0).
        const double q = (f - std::floor(f)) * 4.0;
        s = q >= 2 ? (q >= 3 ? 3 : 2) : (q >= 1 ? 1 : 0);
      }
      key |= unsigned(s & 1) << c;
      key |= unsigned(s >> 1) << (D + c);
    }
    return std::uint8_t(key);
  }
};

// Slot order inside a bucket: (sub-cell key, id) with Sub, id alone without.
template <bool Sub>
inline bool slot_before(const std::uint8_t* sub, const std::uint32_t* id, std::size_t a,
                        std::uint8_t bsub, std::uint32_t bid) {
  if constexpr (Sub)  // one 40-bit key: no data-dependent branch on the sub-cell keys
    return (std::uint64_t(sub[a]) << 32 | id[a]) < (std::uint64_t(bsub) << 32 | bid);
  return id[a] < bid;
}

// Histogram of src slots [b, e) into h.
template <class Real, int D>
void count_slots(const BoidStore<Real>& src, const GridPlan& g, std::size_t b, std::size_t e,
                 std::uint32_t* h) {
  const BucketOf<Real, D> key(src, g);
  for (std::size_t i = b; i < e; ++i) ++h[key(i)];
}

// Moves src slots [b, e) to their places in dst (h: each bucket's next free slot). With
// `start` (each bucket's first slot; only when one block scatters all slots, so every slot
// before `to` in the bucket was written by this loop) a boid whose id is below the previous
// one's is moved back to its place at once, while the bucket is in cache: the buckets are then
// in id order already, but for buckets past 64 boids, whose keys go to `large` for a sort
// afterwards. Returns the number of boids out of order.
template <class Real, int D, bool Sub>
std::uint64_t scatter_slots(const BoidStore<Real>& src, const GridPlan& g, std::size_t b,
                            std::size_t e, std::uint32_t* h, const std::uint32_t* start,
                            std::vector<std::uint32_t>* large, BoidStore<Real>& dst,
                            std::uint8_t* dsub) {
  const BucketOf<Real, D> key(src, g);
  const Real* sp[D];
  const Real* sv[D];
  Real* dp[D];
  Real* dv[D];
  for (int c = 0; c < D; ++c) {
    sp[c] = src.p[c].data();
    sv[c] = src.v[c].data();
    dp[c] = dst.p[c].data();
    dv[c] = dst.v[c].data();
  }
  const std::uint8_t* skind = src.kind.data();
  const std::uint32_t* sid = src.id.data();
  std::uint8_t* dkind = dst.kind.data();
  std::uint32_t* did = dst.id.data();
  std::uint64_t moved = 0;
  for (std::size_t i = b; i < e; ++i) {
    const std::uint32_t k = key(i);
    std::uint32_t to = h[k]++;
    std::uint8_t sk = 0;
    if constexpr (Sub) sk = key.sub(i);
    if (start) {
      const std::uint32_t first = start[k], id = sid[i];
      if (to > first && !slot_before<Sub>(dsub, did, to - 1, sk, id)) {
        ++moved;
        if (to - first > 64) {  // a large bucket: sorted afterwards (no quadratic shifting)
          large->push_back(k);
        } else
          for (; to > first && !slot_before<Sub>(dsub, did, to - 1, sk, id); --to) {
            for (int c = 0; c < D; ++c) {
              dp[c][to] = dp[c][to - 1];
              dv[c][to] = dv[c][to - 1];
            }
            dkind[to] = dkind[to - 1];
            did[to] = did[to - 1];
            if constexpr (Sub) dsub[to] = dsub[to - 1];
          }
      }
    }
    for (int c = 0; c < D; ++c) {
      dp[c][to] = sp[c][i];
      dv[c][to] = sv[c][i];
    }
    dkind[to] = skind[i];
    did[to] = sid[i];
    if constexpr (Sub) dsub[to] = sk;
  }
  return moved;
}

// Sorts the boids of dst slots [b, b + len) by id (with `sub`, each slot's sub-cell key: by
// key, then id), moving every column; the first `k` are in order already. Small buckets: an
// insertion sort in place (one or two boids out of place, typically); large ones (the kind 1/2
// bucket): the order by std::sort, then each column permuted through a copy of the bucket.
template <class Real>
[[gnu::noinline]] void sort_bucket_by_id(BoidStore<Real>& dst, int dims, std::size_t b,
                                         std::size_t len, std::size_t k, std::uint8_t* sub) {
  Real* col[6];
  int ncols = 0;
  for (int c = 0; c < dims; ++c) {
    col[ncols++] = dst.p[c].data() + b;
    col[ncols++] = dst.v[c].data() + b;
  }
  std::uint8_t* kind = dst.kind.data() + b;
  std::uint32_t* id = dst.id.data() + b;
  std::uint8_t* sb = sub ? sub + b : nullptr;
  auto before = [&](std::size_t x, std::uint8_t ysub, std::uint32_t yid) {
    return sb ? slot_before<true>(sb, id, x, ysub, yid) : id[x] < yid;
  };
  constexpr std::size_t kSmall = 64;
  if (len <= kSmall) {
    for (std::size_t j = k; j < len; ++j) {
      const std::uint32_t vid = id[j];
      const std::uint8_t vsub = sb ? sb[j] : 0;
      if (before(j - 1, vsub, vid)) continue;
      Real vals[6];
      for (int q = 0; q < ncols; ++q) vals[q] = col[q][j];
      const std::uint8_t vkind = kind[j];
      std::size_t m = j;
      for (; m > 0 && !before(m - 1, vsub, vid); --m) {
        for (int q = 0; q < ncols; ++q) col[q][m] = col[q][m - 1];
        kind[m] = kind[m - 1];
        id[m] = id[m - 1];
        if (sb) sb[m] = sb[m - 1];
      }
      for (int q = 0; q < ncols; ++q) col[q][m] = vals[q];
      kind[m] = vkind;
      id[m] = vid;
      if (sb) sb[m] = vsub;
    }
    return;
  }
  std::vector<std::uint32_t> ord(len);
  for (std::size_t j = 0; j < len; ++j) ord[j] = std::uint32_t(j);
  std::sort(ord.begin(), ord.end(),
            [&](std::uint32_t x, std::uint32_t y) { return before(x, sb ? sb[y] : 0, id[y]); });
  auto permute = [&](auto* data) {
    using T = std::remove_pointer_t<decltype(data)>;
    std::vector<T> tmp(len);
    for (std::size_t j = 0; j < len; ++j) tmp[j] = data[ord[j]];
    std::copy(tmp.begin(), tmp.end(), data);
  };
  for (int q = 0; q < ncols; ++q) permute(col[q]);
  permute(kind);
  permute(id);
  if (sb) permute(sb);
}

// The first slot of dst [b, e) out of order (e if none), by id or (with sub) by key, then id.
inline std::size_t first_unsorted(const std::uint32_t* id, const std::uint8_t* sub, std::size_t b,
                                  std::size_t e) {
  std::size_t j = b + 1;
  if (sub)
    while (j < e && slot_before<true>(sub, id, j - 1, sub[j], id[j])) ++j;
  else
    while (j < e && id[j - 1] < id[j]) ++j;
  return j;
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

  // 2. keys: the bucket of src slot i (BucketOf), computed where it is needed (twice:
  //    histogram and scatter) rather than stored, which saves 4 bytes per boid at the cost of
  //    a few flops.
  // 3. counting sort over the src slots in fixed blocks (contiguous slot ranges, so the
  //    reads follow src's own order). The block count only sizes scratch (at most ~4
  //    histogram entries per boid). The scatter moves every boid's columns straight to its
  //    place in dst: no map, no second (gather) pass.
  const std::size_t conc = std::size_t(std::max(1, ex.concurrency()));
  std::size_t nblocks = std::min<std::size_t>({conc, 8, std::max<std::size_t>(1, 4 * n / buckets)});
  nblocks = std::max<std::size_t>(1, std::min(nblocks, n));
  hist_.assign(nblocks * buckets, 0);
  auto block_begin = [&](std::size_t b) { return n * b / nblocks; };
  ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::uint32_t* h = hist_.data() + b * buckets;
      if (dims == 2)
        count_slots<Real, 2>(src, g, block_begin(b), block_begin(b + 1), h);
      else
        count_slots<Real, 3>(src, g, block_begin(b), block_begin(b + 1), h);
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
  std::uint8_t* sub = nullptr;
  if (gs.subcell_order) {
    sub_.resize(n + 1);
    sub = sub_.data();
  } else {
    sub_ = std::vector<std::uint8_t>();
  }
  // The scatter, instantiated for the dimension and the order.
  auto scatter = [&](std::size_t b, std::size_t e, std::uint32_t* h, const std::uint32_t* start,
                     std::vector<std::uint32_t>* large) {
    if (dims == 2)
      return sub ? scatter_slots<Real, 2, true>(src, g, b, e, h, start, large, dst, sub)
                 : scatter_slots<Real, 2, false>(src, g, b, e, h, start, large, dst, sub);
    return sub ? scatter_slots<Real, 3, true>(src, g, b, e, h, start, large, dst, sub)
               : scatter_slots<Real, 3, false>(src, g, b, e, h, start, large, dst, sub);
  };
  if (nblocks == 1) {  // one pass: scatter and id order together
    large_.clear();
    sort_fixups_ = scatter(0, n, hist_.data(), cell_start_.data(), &large_);
    for (std::uint32_t c : large_) {  // repeats find their bucket sorted
      const std::size_t b = cell_start_[c], e = cell_start_[c + 1];
      const std::size_t j = first_unsorted(dst.id.data(), sub, b, e);
      if (j < e) sort_bucket_by_id(dst, dims, b, e - b, j - b, sub);
    }
    return;
  }
  ex.parallel_for(nblocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      scatter(block_begin(b), block_begin(b + 1), hist_.data() + b * buckets, nullptr, nullptr);
  });

  // 4. the canonical order inside every bucket: by id. The order is then cell, then id, a
  //    pure function of the state whatever src's slot order, block count or thread count.
  std::atomic<std::uint64_t> reordered{0};
  ex.parallel_for(buckets, 1024, [&](std::size_t c0, std::size_t c1) {
    std::uint64_t r = 0;
    const std::uint32_t* id = dst.id.data();
    for (std::size_t c = c0; c < c1; ++c) {
      const std::size_t b = cell_start_[c], e = cell_start_[c + 1];
      const std::size_t j = first_unsorted(id, sub, b, e);
      if (j >= e) continue;
      ++r;
      sort_bucket_by_id(dst, dims, b, e - b, j - b, sub);
    }
    reordered.fetch_add(r, std::memory_order_relaxed);
  });
  sort_fixups_ = reordered.load();
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
  return sizeof(std::uint32_t) * (cell_start_.capacity() + hist_.capacity()) + sub_.capacity();
}

template class CellList<float>;
template class CellList<double>;
template void reserve_padded(BoidStore<float>&, int, std::size_t);
template void reserve_padded(BoidStore<double>&, int, std::size_t);

}  // namespace boids
