// The machine probe's inner loop, instantiated once per instruction set in probe_<isa>.cpp
// (each compiled with that ISA's flags).
//
// It does the arithmetic of the neighbour test over contiguous SoA candidates that stay in L1:
// the offset d = p_j - p_i, its squared length, the compare with r^2 and a masked accumulation
// of the count, the offsets and the candidate velocities (the cohesion and alignment sums).
// Like the engine's kernels (core/kernels.hpp) it sums in 64 bytes of lanes per step, with no
// FMA, so its rate is the ceiling the real kernel can approach: the real one adds cell-run
// bookkeeping, tails, the wrap shift and the separation term.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xsimd/xsimd.hpp>

namespace boids::bench::probe {

/// Candidates per run: 6 arrays of 512 doubles are 24 KiB, inside any L1D.
inline constexpr std::size_t kRun = 512;

/// The probe's own 64-byte aligned arrays (it measures the machine, not the engine, and needs
/// nothing of the engine's internals).
template <class Real>
using ProbeVector = std::vector<Real, xsimd::aligned_allocator<Real, 64>>;

template <class Real>
struct ProbeData {
  ProbeVector<Real> p[3], v[3];
  Real r2 = 0;
  ProbeData() {
    // Positions spread over a cube of edge 3r around the origin (r = 1), like the 27 cells of
    // a stencil with cell = r, so about 15% (3D) or 35% (2D) of candidates are neighbours.
    std::uint32_t s = 12345u;
    auto next = [&] {
      s = s * 1664525u + 1013904223u;
      return Real((s >> 8) * (1.0 / 16777216.0));
    };
    for (int c = 0; c < 3; ++c) {
      p[c].resize(kRun);
      v[c].resize(kRun);
      for (std::size_t j = 0; j < kRun; ++j) {
        p[c][j] = Real(3) * next() - Real(1.5);
        v[c][j] = Real(2) * next() - Real(1);
      }
    }
    r2 = 1;
  }
};

/// `sweeps` passes of every i against all kRun candidates with a SIMD batch type B.
template <class B, int D>
double run_simd(const ProbeData<typename B::value_type>& d, int sweeps) {
  using Real = typename B::value_type;
  constexpr std::size_t W = B::size;
  constexpr std::size_t U = (64 / sizeof(Real)) / W > 0 ? (64 / sizeof(Real)) / W : 1;
  static_assert(kRun % (W * U) == 0);
  const B r2(d.r2), one(Real(1)), zero(Real(0));
  B total = zero;
  for (int s = 0; s < sweeps; ++s) {
    for (std::size_t i = 0; i < kRun; ++i) {
      B pi[D];
      for (int c = 0; c < D; ++c) pi[c] = B(d.p[c][i]);
      B cnt[U], sd[U][D], sv[U][D];
      for (std::size_t u = 0; u < U; ++u) {
        cnt[u] = zero;
        for (int c = 0; c < D; ++c) sd[u][c] = sv[u][c] = zero;
      }
      for (std::size_t j = 0; j < kRun; j += W * U) {
        for (std::size_t u = 0; u < U; ++u) {
          const std::size_t k = j + u * W;
          B dd[D];
          B d2 = zero;
          for (int c = 0; c < D; ++c) {
            dd[c] = B::load_aligned(d.p[c].data() + k) - pi[c];
            d2 = d2 + dd[c] * dd[c];
          }
          const auto m = d2 < r2;
          cnt[u] = cnt[u] + xsimd::select(m, one, zero);
          for (int c = 0; c < D; ++c) {
            sd[u][c] = sd[u][c] + xsimd::select(m, dd[c], zero);
            sv[u][c] = sv[u][c] + xsimd::select(m, B::load_aligned(d.v[c].data() + k), zero);
          }
        }
      }
      for (std::size_t u = 0; u < U; ++u) {
        total = total + cnt[u];
        for (int c = 0; c < D; ++c) total = total + sd[u][c] + sv[u][c];
      }
    }
  }
  // Plain store and sum rather than reduce_add (GCC 12 warns inside its AVX-512 reduction).
  alignas(64) Real lanes[W];
  total.store_aligned(lanes);
  double sum = 0;
  for (std::size_t k = 0; k < W; ++k) sum += double(lanes[k]);
  return sum;
}

}  // namespace boids::bench::probe
