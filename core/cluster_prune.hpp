// The cluster kernels' pruning (core/cluster_kernels.hpp has the design): one SIMD pass of
// point-to-box tests over the candidate groups of an i-group, compressed into the lists of
// its two i-pairs. Included by cluster_kernels_impl.hpp only.
#pragma once

#include <cstdint>

#include "core/cluster_kernels.hpp"
#include "core/cluster_row_copy.hpp"

namespace boids {
namespace {
namespace cluster_detail {

template <class P, class Real, int D>
struct ClusterPrune {
  using B = typename P::B;
  using Buf = ClusterBuf<Real, D>;
  static constexpr int W = P::W;

  // Lane indices of the set bits of a byte, for the branch-free compress below.
  struct CompressTable {
    std::uint8_t at[256][8];
    constexpr CompressTable() : at{} {
      for (int m = 0; m < 256; ++m) {
        int n = 0;
        for (int l = 0; l < 8; ++l)
          if (m >> l & 1) at[m][n++] = std::uint8_t(l);
      }
    }
  };
  static constexpr CompressTable kCompress{};

  // Appends base + l for every set bit l of `bits` (W bits) to out; returns the count. Writes
  // up to 8 entries past the count (16 with the pack's compress16, one register compress on
  // AVX-512 float; the lists have V = 16 entries of slack).
  static inline std::uint32_t compress(std::uint64_t bits, std::uint32_t base, std::uint32_t* out) {
    if constexpr (requires { requires P::has_compress16; }) return P::compress16(bits, base, out);
    std::uint32_t n = 0;
    for (int byte = 0; byte < (W + 7) / 8; ++byte) {
      const unsigned m = unsigned(bits >> (8 * byte)) & 0xFFu;
      for (int l = 0; l < 8; ++l) out[n + std::uint32_t(l)] = base + 8u * byte + kCompress.at[m][l];
      n += std::uint32_t(__builtin_popcount(m));
    }
    return n;
  }

  // The lists of the i-pairs of i-group og (boids p[0 .. 2 * npairs), a padding boid at +inf
  // never passes): the candidate groups [g0, g1) whose box is closer than r to either boid of
  // pair h, in order, into keep[h]; their number into nk[h] and the place of the own group og
  // (always kept: its boids are inside its box) into own_at[h]. One pass over the candidates'
  // boxes serves both pairs. The test is conservative in floating point: per axis the box gap
  // is never larger than the gap to any boid of the box (correct rounding is monotone).
  static void prune_group(const GridView<Real>& g, const Buf& b, const Real (&p)[kGroup][D],
                          std::uint32_t npairs, std::uint32_t og, std::uint32_t g0,
                          std::uint32_t g1, std::uint32_t* const (&keep)[2], std::uint32_t (&nk)[2],
                          std::uint32_t (&own_at)[2]) {
    B mp[kGroup][D];
    for (int e = 0; e < kGroup; ++e)
      for (int c = 0; c < D; ++c) mp[e][c] = P::splat(p[e][c]);
    const B r2 = P::splat(g.kp.radius2), zero = P::splat(Real(0));
    nk[0] = nk[1] = 0;
    for (std::uint32_t k = g0; k < g1; k += W) {
      B lo[D], hi[D];
      for (int c = 0; c < D; ++c) {
        lo[c] = P::loadu(b.lo[c] + k);
        hi[c] = P::loadu(b.hi[c] + k);
      }
      // Lanes past g1 belong to the next columns' groups: masked.
      const std::uint64_t tail =
          g1 - k < std::uint32_t(W) ? (std::uint64_t(1) << (g1 - k)) - 1 : ~std::uint64_t(0);
      for (std::uint32_t h = 0; h < npairs; ++h) {
        // box_dist2 per boid (its sum starts at 0; 0 + x is x for a square).
        auto gap2 = [&](int e, int c) {
          const B a = P::max(P::max(lo[c] - mp[e][c], mp[e][c] - hi[c]), zero);
          return a * a;
        };
        B da = gap2(int(2 * h), 0), db = gap2(int(2 * h + 1), 0);
        for (int c = 1; c < D; ++c) {
          da = da + gap2(int(2 * h), c);
          db = db + gap2(int(2 * h + 1), c);
        }
        const std::uint64_t bits = (P::bits(da < r2) | P::bits(db < r2)) & tail;
        if (og - k < std::uint32_t(W))
          own_at[h] =
              nk[h] +
              std::uint32_t(__builtin_popcountll(bits & ((std::uint64_t(1) << (og - k)) - 1)));
        nk[h] += compress(bits, k, keep[h] + nk[h]);
      }
    }
  }
};

}  // namespace cluster_detail
}  // namespace
}  // namespace boids
