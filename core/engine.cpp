#include "core/engine.hpp"

#include <cmath>

#include "core/rng.hpp"

namespace boids {

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h) {
  const auto* b = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

template <class Real>
void init_state(const WorldDef& def, BoidStore<Real>& s) {
  const double speed = 0.5 * (def.kinds[0].motion.min_speed + def.kinds[0].motion.max_speed);
  for (std::size_t i = 0; i < s.n; ++i) {
    const std::uint64_t id = s.id[i];
    auto u = [&](std::uint64_t counter) { return random_unit(def.seed, id, kStreamInit, counter); };
    for (int c = 0; c < def.dims; ++c) {
      Real x = Real(u(c) * def.size);
      if (x >= Real(def.size)) x = Real(0);  // rounding to float can reach size
      s.p[c][i] = x;
    }
    double dir[3] = {0, 0, 0};
    if (def.dims == 2) {
      const double a = 2.0 * 3.14159265358979323846 * u(3);
      dir[0] = std::cos(a);
      dir[1] = std::sin(a);
    } else {
      // Uniform on the sphere: z uniform in [-1, 1], azimuth uniform (Archimedes).
      const double z = 2.0 * u(3) - 1.0;
      const double a = 2.0 * 3.14159265358979323846 * u(4);
      const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
      dir[0] = rxy * std::cos(a);
      dir[1] = rxy * std::sin(a);
      dir[2] = z;
    }
    for (int c = 0; c < def.dims; ++c) s.v[c][i] = Real(dir[c] * speed);
    s.kind[i] = 0;
  }
}

template <class Real>
EngineT<Real>::EngineT(const WorldDef& def)
    : EngineBase(def), m_(ModelParams<Real>::from_def(def)) {
  s_.dims = def.dims;
  s_.resize(def.count);
  for (std::size_t i = 0; i < s_.n; ++i) s_.id[i] = static_cast<std::uint32_t>(i);
  init_state(def, s_);
}

template <class Real>
const BoidStore<Real>& EngineT<Real>::id_ordered() const {
  const std::uint32_t* slot = slot_of_rank();
  if (!slot) return s_;
  if (!cache_valid_) {
    cache_.dims = s_.dims;
    cache_.resize(s_.n);
    for (std::size_t r = 0; r < s_.n; ++r) cache_.copy_slot(r, s_, slot[r]);
    cache_valid_ = true;
  }
  return cache_;
}

template <class Real>
State EngineT<Real>::state() const {
  const BoidStore<Real>& o = id_ordered();
  State st;
  st.id.assign(o.id.begin(), o.id.begin() + o.n);
  st.kind.assign(o.kind.begin(), o.kind.begin() + o.n);
  std::vector<double>* pos[3] = {&st.x, &st.y, &st.z};
  std::vector<double>* vel[3] = {&st.vx, &st.vy, &st.vz};
  for (int c = 0; c < o.dims; ++c) {
    pos[c]->assign(o.p[c].begin(), o.p[c].begin() + o.n);
    vel[c]->assign(o.v[c].begin(), o.v[c].begin() + o.n);
  }
  return st;
}

template <class Real>
void EngineT<Real>::set_state(const State& st) {
  const std::size_t n = s_.n;
  const int dims = s_.dims;
  const std::vector<double>* pos[3] = {&st.x, &st.y, &st.z};
  const std::vector<double>* vel[3] = {&st.vx, &st.vy, &st.vz};
  auto fail = [](const std::string& what) { throw Error("set_state: " + what); };
  if (st.id.size() != n)
    fail("expected " + std::to_string(n) + " ids, got " + std::to_string(st.id.size()));
  for (int c = 0; c < dims; ++c) {
    if (pos[c]->size() != n || vel[c]->size() != n)
      fail("component arrays must all have count() entries");
  }
  if (!st.kind.empty() && st.kind.size() != n) fail("kind must be empty or have count() entries");
  const BoidStore<Real>& cur = id_ordered();
  for (std::size_t r = 0; r < n; ++r) {
    if (st.id[r] != cur.id[r])
      fail("id at row " + std::to_string(r) + " does not match the world's ids");
    for (int c = 0; c < dims; ++c) {
      const double x = (*pos[c])[r], v = (*vel[c])[r];
      if (!std::isfinite(x) || !std::isfinite(v))
        fail("non-finite value for id " + std::to_string(st.id[r]));
      if (def_.boundary != Boundary::open && (x < 0.0 || x >= def_.size))
        fail("position of id " + std::to_string(st.id[r]) +
             " lies outside the world box [0, size)");
    }
    if (!st.kind.empty() && st.kind[r] >= kKindCount)
      fail("kind out of range for id " + std::to_string(st.id[r]));
  }
  BoidStore<Real> fresh;
  fresh.dims = dims;
  fresh.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    fresh.id[r] = st.id[r];
    fresh.kind[r] = st.kind.empty() ? cur.kind[r] : st.kind[r];
    for (int c = 0; c < dims; ++c) {
      fresh.p[c][r] = Real((*pos[c])[r]);
      fresh.v[c][r] = Real((*vel[c])[r]);
      // A double just below size can round up to size in float: keep the box half-open.
      if (def_.boundary != Boundary::open && fresh.p[c][r] >= m_.size) fresh.p[c][r] = Real(0);
    }
  }
  s_.swap(fresh);
  cache_valid_ = false;
  on_state_replaced();
}

template <class Real>
std::uint64_t EngineT<Real>::state_hash() const {
  const BoidStore<Real>& o = id_ordered();
  std::uint64_t h = fnv1a(o.id.data(), o.n * sizeof(std::uint32_t));
  for (int c = 0; c < o.dims; ++c) {
    h = fnv1a(o.p[c].data(), o.n * sizeof(Real), h);
    h = fnv1a(o.v[c].data(), o.n * sizeof(Real), h);
  }
  return fnv1a(o.kind.data(), o.n, h);
}

template <class Real>
std::span<const std::uint8_t> EngineT<Real>::kinds() const {
  const BoidStore<Real>& o = id_ordered();
  return {o.kind.data(), o.n};
}

template <class Real>
std::span<const std::uint32_t> EngineT<Real>::ids() const {
  const BoidStore<Real>& o = id_ordered();
  return {o.id.data(), o.n};
}

template class EngineT<float>;
template class EngineT<double>;
template void init_state(const WorldDef&, BoidStore<float>&);
template void init_state(const WorldDef&, BoidStore<double>&);

}  // namespace boids
