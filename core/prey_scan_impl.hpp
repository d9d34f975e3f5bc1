// One predator's scan of the prey (core/prey_scan.hpp) over a pack P: a one-lane pack or an
// xsimd batch of one architecture. Included by prey_scan_<isa>.cpp only; everything here is in
// an anonymous namespace, so each unit keeps its own copy.
#pragma once

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/model.hpp"
#include "core/prey_scan.hpp"
#include "core/simd_packs.hpp"

namespace boids {
namespace {
namespace prey_detail {

// The packs shared with the other per-ISA units (core/simd_packs.hpp).
template <class Real>
using OneLane = ScalarPairPack<Real>;
#if defined(BOIDS_PAIR_PACKS_X86)
template <class Arch>
using Lanes = SimdPairPacks<Arch>;
#endif

// min_image() in lanes: the same comparisons and rounding, so the same bits.
template <class P, class Real>
inline typename P::B image(typename P::B x, Real size, Real inv_size) {
  if constexpr (P::W == 1) {
    return min_image(x, size, inv_size);
  } else {
    using B = typename P::B;
    const B t = x * B(inv_size);
    const auto small = P::and_(t<B(Real(0.5)), t> B(Real(-0.5)));
    return P::select(small, x + B(Real(0)), x - B(size) * P::round(t));
  }
}

// Whether any of slots [i, i + len) holds another kind than 0.
// Whole words by fixed-size copies (a variable-length copy into a word is byte stores and a
// stalled word load), the tail byte by byte.
inline bool other_kinds(const std::uint8_t* kind, int len) {
  std::uint64_t any = 0;
  int o = 0;
  for (; o + 8 <= len; o += 8) {
    std::uint64_t w;
    std::memcpy(&w, kind + o, 8);
    any |= w;
  }
  for (; o < len; ++o) any |= kind[o];
  return any != 0;
}

// A double sum of W float lanes per vector: the lanes widened to double in registers
// where the pack is an x86 vector (two double vectors per float vector), else through memory.
// The order of the additions is free here (the sums are exact where they are used).
template <class P, class Real, class = void>
struct WideSum {
  using B = typename P::B;
  double s[P::W] = {};
  void add(B x) {
    alignas(64) Real b[P::W];
    P::storeu(b, x);
    for (int l = 0; l < P::W; ++l) s[l] += double(b[l]);
  }
  double total() const {
    double t = 0;
    for (int l = 0; l < P::W; ++l) t += s[l];
    return t;
  }
};

#if defined(BOIDS_PAIR_PACKS_X86)
template <class P>
struct WideSum<P, float, std::enable_if_t<std::is_same_v<typename P::B::register_type, __m128>>> {
  __m128d lo = _mm_setzero_pd(), hi = _mm_setzero_pd();
  void add(typename P::B x) {
    const __m128 r = x;
    lo = _mm_add_pd(lo, _mm_cvtps_pd(r));
    hi = _mm_add_pd(hi, _mm_cvtps_pd(_mm_movehl_ps(r, r)));
  }
  double total() const {
    alignas(16) double t[2];
    _mm_store_pd(t, _mm_add_pd(lo, hi));
    return t[0] + t[1];
  }
};
#ifdef __AVX__
template <class P>
struct WideSum<P, float, std::enable_if_t<std::is_same_v<typename P::B::register_type, __m256>>> {
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  void add(typename P::B x) {
    const __m256 r = x;
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(r)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1)));
  }
  double total() const {
    const __m256d s = _mm256_add_pd(lo, hi);
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
  }
};
#endif
#ifdef __AVX512F__
template <class P>
struct WideSum<P, float, std::enable_if_t<std::is_same_v<typename P::B::register_type, __m512>>> {
  __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
  void add(typename P::B x) {
    const __m512 r = x;
    lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(r)));
    hi = _mm512_add_pd(
        hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r), 1))));
  }
  double total() const { return _mm512_reduce_add_pd(_mm512_add_pd(lo, hi)); }
};
#endif
#endif

// The prey-side test of sees_a_predator() (core/behaviour_kinds.hpp) for the prey in `slot`,
// scalar: it runs for the few candidates within the prey's radius.
// `ap`: the predator's position (a.ap for the scan, the task's predator for the sweep).
template <class Real, int D, bool Wrap>
inline void mark_if_seen(const PreyScanArgs<Real>& a, const Real* ap, std::uint32_t slot) {
  if (a.kind[slot] != 0) return;
  Real e[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) {
    e[c] = ap[c] - a.p[c][slot];
    if (Wrap) e[c] = min_image(e[c], a.size, a.inv_size);
  }
  Real e2 = 0;
  for (int c = 0; c < D; ++c) e2 += e[c] * e[c];
  if (!(e2 < a.prey_radius2)) return;
  if (!a.prey_full_view) {  // the velocity only for a view cone (a cache miss per prey)
    Real v[3] = {0, 0, 0}, vv = 0, ev = 0;
    for (int c = 0; c < D; ++c) v[c] = a.v[c][slot];
    for (int c = 0; c < D; ++c) vv += v[c] * v[c];
    const Real v_len = std::sqrt(vv);
    if (v_len > Real(0)) {
      for (int c = 0; c < D; ++c) ev += e[c] * v[c];
      if (!(ev >= std::sqrt(e2) * v_len * a.prey_cos_half_view)) return;
    }
  }
  std::atomic_ref<std::uint8_t>(a.seen[slot]).store(1, std::memory_order_relaxed);
}

// The offsets x = p - ap of slots [i, i + len), len <= W. A short last vector reads on into
// the next slots (masked by the caller) where the store has them, else a copy padded with NaN
// (`tail`), which fails every test. Under Wrap the minimum image; but most vectors lie well
// inside half the box from the predator: where every lane's |x| < size / 4 (`quarter`),
// min_image()'s t = x / size is within (-0.5, 0.5) and it returns x + 0, so that is computed
// without the rest of image() (the same bits).
template <class P, class Real, int D, bool Wrap>
inline void prey_offsets(const PreyScanArgs<Real>& a, std::uint32_t i, int len,
                         const typename P::B* ap, typename P::B quarter, Real (*tail)[P::W],
                         typename P::B* x) {
  using B = typename P::B;
  using M = typename P::M;
  constexpr int W = P::W;
  const bool whole = std::size_t(i) + std::size_t(W) <= a.readable;
  for (int c = 0; c < D; ++c) {
    B q;
    if (whole) {
      q = P::loadu(a.p[c] + i);
    } else {
      for (int l = 0; l < W; ++l)
        tail[c][l] = l < len ? a.p[c][i + l] : std::numeric_limits<Real>::quiet_NaN();
      q = P::loadu(tail[c]);
    }
    x[c] = q - ap[c];
  }
  if constexpr (Wrap) {
    constexpr std::uint64_t all_lanes = W >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << W) - 1;
    bool inside = false;
    if constexpr (W > 1) {
      M in = P::and_(x[0]<quarter, x[0]> - quarter);
      for (int c = 1; c < D; ++c) in = P::and_(in, P::and_(x[c]<quarter, x[c]> - quarter));
      inside = P::bits(in) == all_lanes;
    }
    for (int c = 0; c < D; ++c)
      x[c] = inside ? x[c] + P::splat(Real(0)) : image<P, Real>(x[c], a.size, a.inv_size);
  }
}

// One pass over the ranges. Ordered: every visible prey added lane by lane in slot order.
// Else the double lanes (see the top of core/prey_scan.hpp); returns false when their sum
// may differ from the ordered one (the caller then runs the ordered pass).
template <class P, class Real, int D, bool Wrap, bool Ordered>
bool scan_pass(const PreyScanArgs<Real>& a, const std::pair<std::uint32_t, std::uint32_t>* ranges,
               std::size_t nr, PreyScanResult<Real>& out) {
  using B = typename P::B;
  using M = typename P::M;
  constexpr int W = P::W;
  B ap[3];
  for (int c = 0; c < D; ++c) ap[c] = P::splat(a.ap[c]);
  const B r2 = P::splat(a.chase ? a.radius2 : Real(0));
  const B r2p = P::splat(a.flee ? a.prey_radius2 : Real(0));
  const bool cone = !a.full_view && a.av_len > Real(0);
  alignas(64) Real buf[4][W];
  alignas(64) Real tail[3][W];
  WideSum<P, Real> lane_sum[3];
  double sum[3] = {0, 0, 0};
  M bad = P::splat(Real(0)) != P::splat(Real(0));  // all false
  const B grid = P::splat(Real(1073741824.0));     // 2^30
  const B quarter = P::splat(a.size * Real(0.25));
  std::int64_t count = 0;
  Real best2 = std::numeric_limits<Real>::infinity();
  std::uint32_t best_slot = 0;  // its id is read only on a tie (a cache miss)
  Real nd[3] = {0, 0, 0};
  for (std::size_t r = 0; r < nr; ++r) {
    const std::uint32_t begin = ranges[r].first, end = ranges[r].second;
    // Other kinds among the range (never in the grid engine's cells): per vector below.
    const bool others =
        (a.chase || a.flee) && end > a.kind0_end && other_kinds(a.kind + begin, int(end - begin));
    const bool mixed = a.chase && others;
    // Without other kinds and with the prey's full view, mark_if_seen() would store 1 for every
    // lane below the prey's radius (its e2 has d2's bits): the marks are stored directly.
    const bool mark_all = a.prey_full_view && !others;
    if constexpr (!Ordered) {
      if (mixed) return false;
    }
    for (std::uint32_t i = begin; i < end; i += W) {
      const int len = end - i < std::uint32_t(W) ? int(end - i) : W;
      B x[3];
      prey_offsets<P, Real, D, Wrap>(a, i, len, ap, quarter, tail, x);
      B d2 = P::splat(Real(0));
      for (int c = 0; c < D; ++c) d2 = d2 + x[c] * x[c];
      if (len < W)  // NaN fails every test below
        d2 = P::select(P::lane_lt(len), d2, P::splat(std::numeric_limits<Real>::quiet_NaN()));
      // The prey's side: |offset from the prey| is |x| (fl(a - b) = -fl(b - a), and the
      // minimum image is odd), so its squared distance is d2's bits.
      if (a.flee) {
        std::uint64_t fb = P::bits(d2 < r2p);
        while (fb) {
          const int l = std::countr_zero(fb);
          fb &= fb - 1;
          if (mark_all)
            std::atomic_ref<std::uint8_t>(a.seen[i + std::uint32_t(l)])
                .store(1, std::memory_order_relaxed);
          else
            mark_if_seen<Real, D, Wrap>(a, a.ap, i + std::uint32_t(l));
        }
      }
      if (!a.chase) continue;
      M vis = d2 < r2;
      if (cone) {
        B dv = P::splat(Real(0));
        for (int c = 0; c < D; ++c) dv = dv + x[c] * P::splat(a.av[c]);
        vis = P::and_(vis, dv >= P::sqrt(d2) * P::splat(a.av_len) * P::splat(a.cos_half_view));
      }
      std::uint64_t m = P::bits(vis);
      if constexpr (Ordered) {
        if (!m) continue;
        if (mixed && other_kinds(a.kind + i, len)) {
          for (int l = 0; l < len; ++l)
            if (a.kind[i + l] != 0) m &= ~(std::uint64_t(1) << l);
          if (!m) continue;
        }
        for (int c = 0; c < D; ++c) P::storeu(buf[c], x[c]);
        P::storeu(buf[3], d2);
        while (m) {
          const int l = std::countr_zero(m);
          m &= m - 1;
          const std::uint32_t s = i + std::uint32_t(l);
          ++count;
          for (int c = 0; c < D; ++c) sum[c] += double(buf[c][l]);
          const Real dd = buf[3][l];
          if (dd < best2 || (dd == best2 && a.id[s] < a.id[best_slot])) {
            best2 = dd;
            best_slot = s;
            for (int c = 0; c < D; ++c) nd[c] = buf[c][l];
          }
        }
      } else {
        // Without a branch on m (about half the vectors hold no visible prey, unpredictably):
        // the lanes out of view add +0, which changes no sum.
        count += std::popcount(m);
        for (int c = 0; c < D; ++c) {
          const B xm = P::select(vis, x[c], P::splat(Real(0)));
          const B t = xm * grid;
          bad = P::or_(bad, P::round(t) != t);
          lane_sum[c].add(xm);
        }
        std::uint64_t nb = P::bits(P::and_(vis, d2 <= P::splat(best2)));
        if (nb) {
          for (int c = 0; c < D; ++c) P::storeu(buf[c], x[c]);
          P::storeu(buf[3], d2);
          while (nb) {
            const int l = std::countr_zero(nb);
            nb &= nb - 1;
            const std::uint32_t s = i + std::uint32_t(l);
            const Real dd = buf[3][l];
            if (dd < best2 || (dd == best2 && a.id[s] < a.id[best_slot])) {
              best2 = dd;
              best_slot = s;
              for (int c = 0; c < D; ++c) nd[c] = buf[c][l];
            }
          }
        }
      }
    }
  }
  if constexpr (!Ordered) {
    if (P::bits(bad)) return false;
    // Every partial sum below 2^23 (see the top of core/prey_scan.hpp).
    if (double(count) * (std::sqrt(double(a.radius2)) * 1.001 + 1.0) > 4194304.0) return false;
    for (int c = 0; c < D; ++c) sum[c] += lane_sum[c].total();
  }
  out.prey = std::int32_t(count);
  for (int c = 0; c < D; ++c) {
    out.sum[c] = sum[c];
    out.nearest_d[c] = nd[c];
  }
  out.best2 = best2;
  out.best_id = count > 0 ? a.id[best_slot] : 0;
  out.best_slot = best_slot;
  return true;
}

template <class P, class Real, int D, bool Wrap>
void scan(const PreyScanArgs<Real>& a, const std::pair<std::uint32_t, std::uint32_t>* ranges,
          std::size_t nr, PreyScanResult<Real>& out) {
  if constexpr (sizeof(Real) == 4) {
    if (scan_pass<P, Real, D, Wrap, false>(a, ranges, nr, out)) return;
    out = PreyScanResult<Real>{};  // the marks of the first pass are marked again: the same
    scan_pass<P, Real, D, Wrap, true>(a, ranges, nr, out);
  } else {
    scan_pass<P, Real, D, Wrap, true>(a, ranges, nr, out);
  }
}

}  // namespace prey_detail
}  // namespace
}  // namespace boids

#include "core/prey_sweep_impl.hpp"

namespace boids {
namespace {
namespace prey_detail {

template <template <class> class PackOf, class Real>
void fill_prey_table(PreyScanTable<Real>& t) {
  using P = PackOf<Real>;
  t.fn[0][0] = &scan<P, Real, 2, false>;
  t.fn[0][1] = &scan<P, Real, 2, true>;
  t.fn[1][0] = &scan<P, Real, 3, false>;
  t.fn[1][1] = &scan<P, Real, 3, true>;
  if constexpr (sizeof(Real) == 4) {  // double offsets have no common grid (prey_scan.hpp)
    t.sweep[0][0] = &sweep<P, Real, 2, false>;
    t.sweep[0][1] = &sweep<P, Real, 2, true>;
    t.sweep[1][0] = &sweep<P, Real, 3, false>;
    t.sweep[1][1] = &sweep<P, Real, 3, true>;
  }
}

}  // namespace prey_detail
}  // namespace
}  // namespace boids
