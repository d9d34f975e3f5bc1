#include "core/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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
  // Initial kinds: of the ids [0, count), the last `leaders` are leaders and the `predators`
  // before them are predators, so ids never depend on the engine's slot order.
  const std::uint64_t lead0 = def.count - std::min<std::uint64_t>(def.leaders, def.count);
  const std::uint64_t pred0 = lead0 - std::min<std::uint64_t>(def.predators, lead0);
  for (std::size_t i = 0; i < s.n; ++i) {
    const std::uint64_t id = s.id[i];
    const std::uint8_t kind = id >= def.count ? 0 : id >= lead0 ? 2 : id >= pred0 ? 1 : 0;
    const MotionDef& mo = def.kinds[kind].motion;
    const double speed = 0.5 * (mo.min_speed + mo.max_speed);
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
    s.kind[i] = kind;
  }
}

template <class Real>
EngineT<Real>::EngineT(const WorldDef& def)
    : EngineBase(def), m_(ModelParams<Real>::from_def(def)) {
  s_.dims = def.dims;
  s_.resize(def.count);
  for (std::size_t i = 0; i < s_.n; ++i) s_.id[i] = static_cast<std::uint32_t>(i);
  next_id_ = def.count;
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

namespace {

// Checks rows of `st` (n entries, ids not checked) for sizes, finite values, positions inside
// the box and kinds in range; throws Error prefixed with `what`.
void check_rows(const State& st, std::size_t n, int dims, const WorldDef& def, const char* what,
                bool kind_required) {
  const std::vector<double>* pos[3] = {&st.x, &st.y, &st.z};
  const std::vector<double>* vel[3] = {&st.vx, &st.vy, &st.vz};
  auto fail = [what](const std::string& m) { throw Error(std::string(what) + ": " + m); };
  for (int c = 0; c < dims; ++c) {
    if (pos[c]->size() != n || vel[c]->size() != n)
      fail("component arrays must all have " + std::to_string(n) + " entries");
  }
  if (dims == 2 && (!st.z.empty() || !st.vz.empty())) fail("z and vz must be empty in 2D");
  if (kind_required ? st.kind.size() != n : (!st.kind.empty() && st.kind.size() != n))
    fail("kind must " + std::string(kind_required ? "" : "be empty or ") + "have " +
         std::to_string(n) + " entries");
  for (std::size_t r = 0; r < n; ++r) {
    const std::string who =
        st.id.size() == n ? "id " + std::to_string(st.id[r]) : "row " + std::to_string(r);
    for (int c = 0; c < dims; ++c) {
      const double x = (*pos[c])[r], v = (*vel[c])[r];
      if (!std::isfinite(x) || !std::isfinite(v)) fail("non-finite value for " + who);
      if (def.boundary != Boundary::open && (x < 0.0 || x >= def.size))
        fail("position of " + who + " lies outside the world box [0, size)");
    }
    if (!st.kind.empty() && st.kind[r] >= kKindCount) fail("kind out of range for " + who);
  }
}

// Writes row r of `st` into slot `to` of `s`, keeping the box half-open after rounding.
template <class Real>
void put_row(BoidStore<Real>& s, std::size_t to, const State& st, std::size_t r,
             const WorldDef& def) {
  const std::vector<double>* pos[3] = {&st.x, &st.y, &st.z};
  const std::vector<double>* vel[3] = {&st.vx, &st.vy, &st.vz};
  for (int c = 0; c < s.dims; ++c) {
    s.p[c][to] = Real((*pos[c])[r]);
    s.v[c][to] = Real((*vel[c])[r]);
    // A double just below size can round up to size in float: keep the box half-open.
    if (def.boundary != Boundary::open && s.p[c][to] >= Real(def.size)) s.p[c][to] = Real(0);
  }
  if (!st.kind.empty()) s.kind[to] = st.kind[r];
}

}  // namespace

template <class Real>
void EngineT<Real>::replace_store(BoidStore<Real>& fresh) {
  s_.swap(fresh);
  cache_valid_ = false;
  on_state_replaced();
}

template <class Real>
void EngineT<Real>::set_state(const State& st) {
  const std::size_t n = s_.n;
  if (st.id.size() != n)
    throw Error("set_state: expected " + std::to_string(n) + " ids, got " +
                std::to_string(st.id.size()));
  check_rows(st, n, s_.dims, def_, "set_state", false);
  const BoidStore<Real>& cur = id_ordered();
  for (std::size_t r = 0; r < n; ++r) {
    if (st.id[r] != cur.id[r])
      throw Error("set_state: id at row " + std::to_string(r) + " does not match the world's ids");
  }
  BoidStore<Real> fresh;
  fresh.dims = s_.dims;
  fresh.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    fresh.id[r] = st.id[r];
    fresh.kind[r] = cur.kind[r];
    put_row(fresh, r, st, r, def_);
  }
  replace_store(fresh);
}

namespace {
void check_new_ids(std::uint32_t next_id, std::size_t count) {
  if (count > std::size_t(std::numeric_limits<std::int32_t>::max()) ||
      std::uint64_t(next_id) + count > std::uint64_t(std::numeric_limits<std::uint32_t>::max()))
    throw Error("add_boids: the world has run out of boid ids (ids are never reused)");
}
}  // namespace

template <class Real>
std::uint32_t EngineT<Real>::add_seeded(std::uint32_t count, std::uint8_t kind) {
  if (kind >= kKindCount) throw Error("add_boids: kind out of range");
  check_new_ids(next_id_, count);
  const BoidStore<Real>& cur = id_ordered();
  BoidStore<Real> add;
  add.dims = s_.dims;
  add.resize(count);
  for (std::size_t i = 0; i < count; ++i) add.id[i] = next_id_ + std::uint32_t(i);
  init_state(def_, add);
  BoidStore<Real> fresh;
  fresh.dims = s_.dims;
  fresh.resize(cur.n + count);
  for (std::size_t r = 0; r < cur.n; ++r) fresh.copy_slot(r, cur, r);
  // init_state gives ids past the initial count kind 0's speed; start at the kind's own.
  const MotionDef &m0 = def_.kinds[0].motion, &mk = def_.kinds[kind].motion;
  const double s0 = m0.min_speed + m0.max_speed, sk = mk.min_speed + mk.max_speed;
  const Real scale = Real(kind != 0 && s0 > 0 ? sk / s0 : 1.0);
  for (std::size_t i = 0; i < count; ++i) {
    fresh.copy_slot(cur.n + i, add, i);
    fresh.kind[cur.n + i] = kind;
    if (scale != Real(1))
      for (int c = 0; c < s_.dims; ++c) fresh.v[c][cur.n + i] *= scale;
  }
  const std::uint32_t first = next_id_;
  next_id_ += count;
  replace_store(fresh);
  return first;
}

template <class Real>
std::uint32_t EngineT<Real>::add_rows(const State& st) {
  if (!st.id.empty()) throw Error("add_boids: leave State::id empty; the world assigns ids");
  const std::size_t count = st.x.size();
  check_new_ids(next_id_, count);
  check_rows(st, count, s_.dims, def_, "add_boids", false);
  const BoidStore<Real>& cur = id_ordered();
  BoidStore<Real> fresh;
  fresh.dims = s_.dims;
  fresh.resize(cur.n + count);
  for (std::size_t r = 0; r < cur.n; ++r) fresh.copy_slot(r, cur, r);
  for (std::size_t i = 0; i < count; ++i) {
    fresh.id[cur.n + i] = next_id_ + std::uint32_t(i);
    put_row(fresh, cur.n + i, st, i, def_);
  }
  const std::uint32_t first = next_id_;
  next_id_ += std::uint32_t(count);
  replace_store(fresh);
  return first;
}

template <class Real>
void EngineT<Real>::remove(std::span<const std::uint32_t> ids) {
  const BoidStore<Real>& cur = id_ordered();
  std::vector<std::uint32_t> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i] == sorted[i - 1])
      throw Error("remove_boids: id " + std::to_string(sorted[i]) + " given twice");
    if (!std::binary_search(cur.id.begin(), cur.id.begin() + cur.n, sorted[i]))
      throw Error("remove_boids: no boid has id " + std::to_string(sorted[i]));
  }
  BoidStore<Real> fresh;
  fresh.dims = s_.dims;
  fresh.resize(cur.n - sorted.size());
  std::size_t to = 0, k = 0;
  for (std::size_t r = 0; r < cur.n; ++r) {
    if (k < sorted.size() && cur.id[r] == sorted[k]) {
      ++k;
      continue;
    }
    fresh.copy_slot(to++, cur, r);
  }
  replace_store(fresh);
}

template <class Real>
void EngineT<Real>::restore(const State& st, std::uint64_t steps, std::uint32_t next_id) {
  const std::size_t n = st.id.size();
  check_rows(st, n, s_.dims, def_, "restore", true);
  for (std::size_t r = 0; r < n; ++r) {
    if ((r > 0 && st.id[r] <= st.id[r - 1]) || st.id[r] >= next_id)
      throw Error("restore: ids must be strictly increasing and below next_id");
  }
  BoidStore<Real> fresh;
  fresh.dims = s_.dims;
  fresh.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    fresh.id[r] = st.id[r];
    put_row(fresh, r, st, r, def_);
  }
  steps_ = steps;
  next_id_ = next_id;
  replace_store(fresh);
}

template <class Real>
void EngineT<Real>::set_def(const WorldDef& def) {
  def_ = def;
  m_ = ModelParams<Real>::from_def(def_);
  invalidate_cache();
  on_def_changed();
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
