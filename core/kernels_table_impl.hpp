// The per-instruction-set kernel table (core/kernels.hpp's KernelTable) filled from this
// unit's instantiations of the row kernel (core/kernels_impl.hpp), the SIMD finish
// (core/kernels_finish_impl.hpp) and the batched libm replacements
// (core/behaviour_trig_n.hpp). Included by kernels_<isa>.cpp (through kernels_simd.hpp for
// the SIMD units) only.
#pragma once

#include <type_traits>

#include "core/behaviour_rng_n.hpp"
#include "core/behaviour_trig_n.hpp"
#include "core/kernels_impl.hpp"

namespace boids {
namespace {
namespace kernels_detail {

// beh::sin_cos_n, beh::cbrt_n and beh::wander_draws_n as this unit compiles them.
inline void sin_cos_block(const double* a, double* s, double* c, std::size_t n) {
  beh::sin_cos_n(a, s, c, n);
}
inline void cbrt_block(const double* a, double* r, std::size_t n) { beh::cbrt_n(a, r, n); }
inline void wander_block(std::uint64_t seed, const std::uint64_t* ids, std::uint64_t key,
                         bool three, double* ang, double* zs, std::size_t n) {
  beh::wander_draws_n(seed, ids, key, three, ang, zs, n);
}

/// Fills one precision's table with the instantiations for pack family PF.
template <template <class> class PF, class Real>
void fill_table(KernelTable<Real>& t) {
  t.sin_cos_n = &sin_cos_block;
  t.cbrt_n = &cbrt_block;
  t.wander_draws_n = &wander_block;
  auto put = [&]<int D, WrapMode WM>() {
    t.row[D - 2][int(WM)][0] = &Kernel<PF<Real>, Real, D, WM, false>::row;
    t.row[D - 2][int(WM)][1] = &Kernel<PF<Real>, Real, D, WM, true>::row;
  };
  put.template operator()<2, WrapMode::none>();
  put.template operator()<2, WrapMode::shift>();
  put.template operator()<2, WrapMode::min_image>();
  put.template operator()<3, WrapMode::none>();
  put.template operator()<3, WrapMode::shift>();
  put.template operator()<3, WrapMode::min_image>();
  auto put_nn = [&]<int D, WrapMode WM>() {
    t.row_nn[D - 2][int(WM)][0] = &Kernel<PF<Real>, Real, D, WM, false>::row_nn;
    t.row_nn[D - 2][int(WM)][1] = &Kernel<PF<Real>, Real, D, WM, true>::row_nn;
  };
  // Float only: the fused metrics row is for the large float runs, and the double kernels'
  // second instantiation doubled their units' compile time (CI). A double row takes the metrics'
  // own pair pass on the kept state (grid_taken_row: fused = false), with the same bytes.
  if constexpr (std::is_same_v<Real, float>) {
    put_nn.template operator()<2, WrapMode::none>();
    put_nn.template operator()<2, WrapMode::shift>();
    put_nn.template operator()<3, WrapMode::none>();
    put_nn.template operator()<3, WrapMode::shift>();
  }
  if constexpr (requires(typename PF<Real>::B x) { PF<Real>::floor(x); }) {
    auto fin = [&]<int D, Boundary BND>() {
      t.finish[D - 2][int(BND)] = &Finish<PF<Real>, Real, D, BND>::rows;
    };
    fin.template operator()<2, Boundary::wrap>();
    fin.template operator()<2, Boundary::reflect>();
    fin.template operator()<2, Boundary::open>();
    fin.template operator()<3, Boundary::wrap>();
    fin.template operator()<3, Boundary::reflect>();
    fin.template operator()<3, Boundary::open>();
  }
}

}  // namespace kernels_detail
}  // namespace
}  // namespace boids
