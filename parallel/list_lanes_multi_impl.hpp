// The topological lane kernel for float on AVX2 and AVX-512 (LaneFn, parallel/list_gather.hpp):
// G boids x C candidates per register of W = G * C float lanes. Included by
// parallel/list_gather_impl.hpp only (the same anonymous namespace), after
// parallel/list_lanes_finish_impl.hpp (the row finish that sums what it stages).
//
// A cell holds about 4 boids at the radius's cells (docs/bench.md). Lane l is boid l / C of a
// group of G <= 4 and candidate q + l % C of the range: the C candidates broadcast to every
// boid's lanes by one load per component (positions of consecutive copy indices are adjacent).
// A cell of n boids takes groups of 4 (4 x 2 on AVX2, 4 x 4 on AVX-512) while 3 or more are
// left, then one of 2 (2 x W/2) or 1 (1 x W), so the lanes are full but for cells ending in 3:
// every boid costs about range / W register passes. Each lane computes d, |d|^2 and the key
// exactly as lane_cell does (parallel/list_lanes_impl.hpp) and keeps the S = k + 1 smallest
// keys of its own candidates in the same min/max insertion network. At the end a boid's C
// lists are merged pairwise (lanes l and l ^ h, h = 1, 2, ... C / 2): min(A[t], B[S - 1 - t])
// is bitonic and holds the S smallest of the union, sorted by log2(S) half-cleaners; keys are
// distinct within a boid (their low bits are the candidate's index), so nothing is lost, and
// both lanes of a pair end with the same list. stage_group then applies lane_cell's exactness
// rule and stages each settled boid's k nearest; the row's finish (lane_row_finish) sorts them
// by id and sums them in that order, 8 boids at a time: the same bits.
#pragma once

#if defined(__AVX2__)

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

namespace boids::list_detail {
namespace {

// The few operations the kernel needs, per register width.
struct Lanes8 {  // AVX2
  static constexpr int W = 8;
  using F = __m256;
  using I = __m256i;
  using K = __m256;  // a mask: all ones or zero per lane
  static F set1(float x) { return _mm256_set1_ps(x); }
  static I set1i(int x) { return _mm256_set1_epi32(x); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F sqrt(F a) { return _mm256_sqrt_ps(a); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static K lt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static K le(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
  static K gt(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static K ge(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
  static K kand(K a, K b) { return _mm256_and_ps(a, b); }
  static K kor(K a, K b) { return _mm256_or_ps(a, b); }
  static F only(K m, F a) { return _mm256_and_ps(m, a); }  // m ? a : 0
  static unsigned bits(K m) { return unsigned(_mm256_movemask_ps(m)); }
  static I add_i(I a, I b) { return _mm256_add_epi32(a, b); }
  // cnt + 1 in the lanes of m.
  static I count(I cnt, K m) { return _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); }
  static int hmax(I a) {
    __m128i x = _mm_max_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    x = _mm_max_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_max_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return _mm_cvtsi128_si32(x);
  }
  // Lanes whose candidate is in the range and not the lane's own boid.
  static K valid(I rel, I self, I end) {
    return _mm256_castsi256_ps(
        _mm256_andnot_si256(_mm256_cmpeq_epi32(rel, self), _mm256_cmpgt_epi32(end, rel)));
  }
  // m ? (d2's high bits | rel) : inf
  static F key(K m, F d2, F high, I rel, F inf) {
    return _mm256_blendv_ps(inf, _mm256_or_ps(_mm256_and_ps(d2, high), _mm256_castsi256_ps(rel)),
                            m);
  }
  static void store(float* p, F a) { _mm256_store_ps(p, a); }
  static F load(const float* p) { return _mm256_load_ps(p); }
  static I loadi(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  // Lane l: x[l / C].
  template <int C>
  static F spread(__m128 x) {
    const __m256i i = C == 2   ? _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)
                      : C == 4 ? _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1)
                               : _mm256_setzero_si256();
    return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(x), i);
  }
  // Lane l: p[l % C] (readable C floats).
  template <int C>
  static F bcast(const float* p) {
    if constexpr (C == 2) {
      double two;
      std::memcpy(&two, p, sizeof two);
      return _mm256_castpd_ps(_mm256_set1_pd(two));
    } else if constexpr (C == 4) {
      const __m128 x = _mm_loadu_ps(p);
      return _mm256_insertf128_ps(_mm256_castps128_ps256(x), x, 1);
    } else {
      return _mm256_loadu_ps(p);
    }
  }
  // Lane l: x[l ^ h].
  template <int H>
  static F partner(F x) {
    if constexpr (H == 1) return _mm256_permute_ps(x, 0xB1);
    if constexpr (H == 2) return _mm256_permute_ps(x, 0x4E);
    if constexpr (H == 4) return _mm256_permute2f128_ps(x, x, 1);
  }
  // Lanes 0, C, 2C, 3C (wrapped past W) as 4 lanes.
  template <int C>
  static __m128 boids4(F x) {
    const __m256i i = C == 2   ? _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0)
                      : C == 4 ? _mm256_setr_epi32(0, 4, 0, 4, 0, 0, 0, 0)
                               : _mm256_setzero_si256();
    return _mm256_castps256_ps128(_mm256_permutevar8x32_ps(x, i));
  }
};

#if defined(__AVX512F__)
struct Lanes16 {  // AVX-512 (F only: the float bit operations go through the integer unit)
  static constexpr int W = 16;
  using F = __m512;
  using I = __m512i;
  using K = __mmask16;
  static F set1(float x) { return _mm512_set1_ps(x); }
  static I set1i(int x) { return _mm512_set1_epi32(x); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F sqrt(F a) { return _mm512_sqrt_ps(a); }
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
  static F max(F a, F b) { return _mm512_max_ps(a, b); }
  static K lt(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static K le(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
  static K gt(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static K ge(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
  static K kand(K a, K b) { return K(a & b); }
  static K kor(K a, K b) { return K(a | b); }
  static F only(K m, F a) { return _mm512_maskz_mov_ps(m, a); }
  static unsigned bits(K m) { return unsigned(m); }
  static I add_i(I a, I b) { return _mm512_add_epi32(a, b); }
  static I count(I cnt, K m) { return _mm512_mask_add_epi32(cnt, m, cnt, _mm512_set1_epi32(1)); }
  static int hmax(I a) { return _mm512_reduce_max_epi32(a); }
  static K valid(I rel, I self, I end) {
    return K(_mm512_cmpneq_epi32_mask(rel, self) & _mm512_cmplt_epi32_mask(rel, end));
  }
  static F key(K m, F d2, F high, I rel, F inf) {
    // (d2 & high) | rel in one ternary-logic op (0xEA: a & b | c), then inf where m is clear.
    const __m512i x =
        _mm512_ternarylogic_epi32(_mm512_castps_si512(d2), _mm512_castps_si512(high), rel, 0xEA);
    return _mm512_mask_blend_ps(m, inf, _mm512_castsi512_ps(x));
  }
  static void store(float* p, F a) { _mm512_store_ps(p, a); }
  static F load(const float* p) { return _mm512_load_ps(p); }
  static I loadi(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  template <int C>
  static F spread(__m128 x) {
    const __m512i i = C == 4   ? _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)
                      : C == 8 ? _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
                               : _mm512_setzero_si512();
    return _mm512_permutexvar_ps(i, _mm512_castps128_ps512(x));
  }
  template <int C>
  static F bcast(const float* p) {
    if constexpr (C == 4) {
      return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
    } else if constexpr (C == 8) {
      return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p))));
    } else {
      return _mm512_loadu_ps(p);
    }
  }
  template <int H>
  static F partner(F x) {
    if constexpr (H == 1) return _mm512_permute_ps(x, 0xB1);
    if constexpr (H == 2) return _mm512_permute_ps(x, 0x4E);
    if constexpr (H == 4) return _mm512_shuffle_f32x4(x, x, 0xB1);
    if constexpr (H == 8) return _mm512_shuffle_f32x4(x, x, 0x4E);
  }
  template <int C>
  static __m128 boids4(F x) {
    const __m512i i = C == 4   ? _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                      : C == 8 ? _mm512_setr_epi32(0, 8, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                               : _mm512_setzero_si512();
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(i, x));
  }
};
#endif

// A group's end when the kernel stages (LaneCell::stage): kv[t] holds every lane's t-th
// smallest key (boid g0 + l in lane l < lanes). lane_cell's exactness rule; each settled
// boid's count and its k nearest's copy indices into the stage, for the row's finish.
template <WrapMode WM, int S>
std::uint32_t stage_group(const LaneCell<float>& c, int k, std::uint32_t g0, int lanes,
                          const __m128* kv) {
  constexpr std::uint32_t kIdx = kLaneMaxRange - 1;
  const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity());
  const __m128i idx = _mm_set1_epi32(int(kIdx)), high = _mm_set1_epi32(int(~kIdx));
  __m128i n = _mm_setzero_si128();
  for (int t = 0; t < k; ++t) n = _mm_sub_epi32(n, _mm_castps_si128(_mm_cmpneq_ps(kv[t], inf)));
  const __m128i kk = _mm_castps_si128(kv[k]);
  __m128i bad = _mm_andnot_si128(
      _mm_castps_si128(_mm_cmpeq_ps(kv[k], inf)),
      _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(kv[k - 1]), high), _mm_and_si128(kk, high)));
  bad = _mm_or_si128(bad, _mm_cmpgt_epi32(_mm_setr_epi32(0, 1, 2, 3), _mm_set1_epi32(lanes - 1)));
  const __m128i nl = _mm_or_si128(n, bad);  // -1: not settled
  const LaneStage& st = *c.stage;
  const std::int32_t wrap = WM == WrapMode::min_image
                                ? std::int32_t(c.wrap_axis[0]) | std::int32_t(c.wrap_axis[1]) << 1 |
                                      std::int32_t(c.wrap_axis[2]) << 2
                                : 0;
  const std::uint32_t rb = c.row_off + g0;
  // The 4 lanes' counts and seam bits at once, as the indices below (the lanes past `lanes`
  // hold -1, which their own group overwrites or which stays the stage's "not the kernel's").
  // The FlockSums' k is not written: with a stage, the callers read n (list_step.cpp,
  // parallel/list_fine_step.hpp).
  _mm_storeu_si128(reinterpret_cast<__m128i*>(st.n + rb), nl);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(st.wrap + rb), _mm_set1_epi32(wrap));
  const std::uint32_t unsettled = std::uint32_t(
      std::popcount(unsigned(_mm_movemask_ps(_mm_castsi128_ps(nl))) & ((1u << lanes) - 1u)));
  // All 4 lanes' indices at once: the places past `lanes` belong to boids later in the row
  // (the stage's stride has 8 places of slack past the row's last boid), which their own
  // group overwrites, or which n marks as not the kernel's (the row finish masks them).
  const __m128i base = _mm_set1_epi32(int(c.begin));
  for (int t = 0; t < k; ++t)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(st.q + std::size_t(t) * st.stride + rb),
                     _mm_add_epi32(_mm_and_si128(_mm_castps_si128(kv[t]), idx), base));
  return unsettled;
}

// Boids g0 .. g0 + lanes of the cell (lanes <= G) as a group of G x C, staged for the row's
// finish; returns how many were not settled.
template <class L, int D, WrapMode WM, int S, int G>
std::uint32_t lane_group(const GatherInput<float>& in, const LaneCell<float>& c, int k,
                         std::uint32_t g0, int lanes) {
  using F = typename L::F;
  using I = typename L::I;
  using K = typename L::K;
  constexpr int W = L::W, C = W / G;
  constexpr std::uint32_t kIdx = kLaneMaxRange - 1;
  const F binf = L::set1(std::numeric_limits<float>::infinity()), zero = L::set1(0.0f);
  const F high = L::set1(std::bit_cast<float>(~kIdx));
  [[maybe_unused]] const F size = L::set1(in.size), inv = L::set1(in.inv_size);
  [[maybe_unused]] const F half = L::set1(0.5f), mhalf = L::set1(-0.5f);
  const F cosv = L::set1(in.cos_half_view);
  alignas(64) std::int32_t lane_c[W], lane_b[W];
  for (int l = 0; l < W; ++l) {
    lane_c[l] = l % C;
    lane_b[l] = l / C;
  }
  const I step = L::set1i(C);
  const std::uint32_t range = c.end - c.begin;
  const I endv = L::set1i(int(range));
  // The group's boids as 4 lanes, built in registers (stored as scalars and loaded as one
  // vector they cost a store-forwarding stall each).
  std::uint32_t sl[4];
  float r2l[4];
  for (int l = 0; l < 4; ++l) {
    const std::uint32_t b = g0 + std::uint32_t(l < lanes ? l : 0);
    sl[l] = c.bslot ? c.bslot[b] : c.first + b;
    r2l[l] = l < lanes ? (c.r2 ? c.r2[b] : in.radius2) : -1.0f;  // -1: sees nothing
  }
  // (A full group of the row pass's store: its 4 boids' slots are consecutive, one load.)
  const bool consecutive = lanes == 4 && !c.bslot;
  auto four = [&](const float* x) {
    return consecutive ? _mm_loadu_ps(x + sl[0])
                       : _mm_setr_ps(x[sl[0]], x[sl[1]], x[sl[2]], x[sl[3]]);
  };
  F pi[D], vv[D];
  for (int a = 0; a < D; ++a) {
    pi[a] = L::template spread<C>(four(in.p[a]));
    vv[a] = L::template spread<C>(four(in.v[a]));
  }
  F vi2 = L::mul(vv[0], vv[0]);
  for (int a = 1; a < D; ++a) vi2 = L::add(vi2, L::mul(vv[a], vv[a]));
  const F vlen = L::sqrt(vi2);
  const bool any_cone = !in.full_view && L::bits(L::gt(vlen, zero)) != 0;
  const K no_cone = L::le(vlen, zero);
  const F r2 = L::template spread<C>(_mm_setr_ps(r2l[0], r2l[1], r2l[2], r2l[3]));
  // A lane's own boid, by its index in the range: never its own neighbour.
  const I self = L::add_i(L::set1i(int(c.self0 + g0 - c.begin)), L::loadi(lane_b));
  alignas(64) float kept[(kLaneMaxRange / C + 1) * W];
  std::uint32_t nk = 0;
  I rel = L::loadi(lane_c);  // each lane's candidate, by its index in the range
  I cnt = L::set1i(0);       // each lane's visible candidates so far
  const float* cp[D];
  for (int a = 0; a < D; ++a) cp[a] = c.cp[a] + c.begin;
  for (std::uint32_t q = 0; q < range; q += C, rel = L::add_i(rel, step)) {
    F d[D];
    for (int a = 0; a < D; ++a) {
      // Candidates q .. q + C - 1 (readable past the range's end: LaneCell, GatherSource).
      F x = L::sub(L::template bcast<C>(cp[a] + q), pi[a]);
      if (WM == WrapMode::min_image && c.wrap_axis[a]) {
        const F t = L::mul(x, inv);
        x = L::add(L::sub(x, L::only(L::gt(t, half), size)), L::only(L::lt(t, mhalf), size));
      }
      d[a] = x;
    }
    F d2 = L::mul(d[0], d[0]);
    for (int a = 1; a < D; ++a) d2 = L::add(d2, L::mul(d[a], d[a]));
    K m = L::lt(d2, r2);
    if (any_cone) {
      F dot = L::mul(d[0], vv[0]);
      for (int a = 1; a < D; ++a) dot = L::add(dot, L::mul(d[a], vv[a]));
      m = L::kand(m, L::kor(no_cone, L::ge(dot, L::mul(L::mul(L::sqrt(d2), vlen), cosv))));
    }
    m = L::kand(m, L::valid(rel, self, endv));
    L::store(kept + std::size_t(nk) * W, L::key(m, d2, high, rel, binf));
    nk += std::uint32_t(L::bits(m) != 0);
    cnt = L::count(cnt, m);
  }
  F key[S];
  for (int t = 0; t < S; ++t) key[t] = binf;
  // No lane holds more than `depth` finite keys (cnt: its visible candidates), so when
  // depth <= S / 2 (or S / 4) its places from there on stay +inf and the network needs only the
  // first S / 2 (S / 4; a key pushed past them is +inf): the same S keys per lane, about half
  // (a quarter of) the min/max.
  const int depth = L::hmax(cnt);
  auto insert = [&](auto places) {
    constexpr int M = decltype(places)::value;
    for (std::uint32_t e = 0; e < nk; ++e) {
      F x = L::load(kept + std::size_t(e) * W);
      for (int t = 0; t < M; ++t) {
        const F lo = L::min(key[t], x);
        x = L::max(key[t], x);
        key[t] = lo;
      }
    }
  };
  if (depth <= S / 4) {
    if (c.groups) ++c.groups[3];
    insert(std::integral_constant<int, S / 4>{});
  } else if (depth <= S / 2) {
    if (c.groups) ++c.groups[3];
    insert(std::integral_constant<int, S / 2>{});
  } else {
    insert(std::integral_constant<int, S>{});
  }
  // A boid's C lists merged pairwise (both lanes of a pair end with the same S keys).
  auto merge = [&]<int H>() {
    F mk[S];
    for (int t = 0; t < S; ++t) mk[t] = L::min(key[t], L::template partner<H>(key[S - 1 - t]));
    for (int h = S / 2; h >= 1; h /= 2) {
      for (int t = 0; t < S; ++t) {
        if (t & h) continue;
        const F lo = L::min(mk[t], mk[t + h]);
        mk[t + h] = L::max(mk[t], mk[t + h]);
        mk[t] = lo;
      }
    }
    for (int t = 0; t < S; ++t) key[t] = mk[t];
  };
  if constexpr (C >= 2) merge.template operator()<1>();
  if constexpr (C >= 4) merge.template operator()<2>();
  if constexpr (C >= 8) merge.template operator()<4>();
  if constexpr (C >= 16) merge.template operator()<8>();
  __m128 kv[S];
  for (int t = 0; t < S; ++t) kv[t] = L::template boids4<C>(key[t]);
  return stage_group<WM, S>(c, k, g0, lanes, kv);
}

// A cell's boids in groups: of 4 while 3 or more are left, then of 2 or 1.
template <class L, int D, WrapMode WM, int S>
std::uint32_t lane_multi_cell(const GatherInput<float>& in, const LaneCell<float>& c, int k,
                              const KindParams<float>&, FlockSums<float>*) {
  std::uint32_t unsettled = 0, g0 = 0;
  while (g0 < c.count) {
    const std::uint32_t rest = c.count - g0;
    if (rest >= 3) {
      const int lanes = rest < 4 ? int(rest) : 4;
      unsettled += lane_group<L, D, WM, S, 4>(in, c, k, g0, lanes);
      if (c.groups) ++c.groups[0];
      g0 += std::uint32_t(lanes);
    } else if (rest == 2) {
      unsettled += lane_group<L, D, WM, S, 2>(in, c, k, g0, 2);
      if (c.groups) ++c.groups[1];
      g0 += 2;
    } else {
      unsettled += lane_group<L, D, WM, S, 1>(in, c, k, g0, 1);
      if (c.groups) ++c.groups[2];
      g0 += 1;
    }
  }
  return unsettled;
}

template <class L, int D, WrapMode WM>
void fill_lane_multi_row(LaneFn<float>* row, LaneFinishFn<float>* fin) {
  row[0] = &lane_multi_cell<L, D, WM, 4>;
  row[1] = &lane_multi_cell<L, D, WM, 8>;
  row[2] = &lane_multi_cell<L, D, WM, 16>;
  fin[0] = &lane_row_finish<D, WM, 4>;
  fin[1] = &lane_row_finish<D, WM, 8>;
  fin[2] = &lane_row_finish<D, WM, 16>;
}

template <class L>
void fill_lane_multi_table(GatherTable<float>& t) {
  fill_lane_multi_row<L, 2, WrapMode::none>(t.lane[0][0], t.lane_finish[0][0]);
  fill_lane_multi_row<L, 2, WrapMode::min_image>(t.lane[0][1], t.lane_finish[0][1]);
  fill_lane_multi_row<L, 3, WrapMode::none>(t.lane[1][0], t.lane_finish[1][0]);
  fill_lane_multi_row<L, 3, WrapMode::min_image>(t.lane[1][1], t.lane_finish[1][1]);
}

}  // namespace
}  // namespace boids::list_detail

#endif
