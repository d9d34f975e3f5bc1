#include "core/id_rows.hpp"

#include <cmath>
#include <cstring>

#include "core/engine.hpp"

namespace boids {

namespace {

template <class Real>
void gather_typed(const EngineT<Real>& e, int col, std::size_t first, std::size_t rows, void* out) {
  const BoidStore<Real>& s = e.slots();
  const std::uint32_t* slot = e.rank_slots();
  auto copy = [&](const auto* src, auto* dst) {
    if (!slot) {
      std::memcpy(dst, src + first, rows * sizeof(*dst));
      return;
    }
    for (std::size_t r = 0; r < rows; ++r) dst[r] = src[slot[first + r]];
  };
  if (col < 3)
    copy(s.p[col].data(), static_cast<Real*>(out));
  else if (col < 6)
    copy(s.v[col - 3].data(), static_cast<Real*>(out));
  else if (col == IdRows::id)
    copy(s.id.data(), static_cast<std::uint32_t*>(out));
  else
    copy(s.kind.data(), static_cast<std::uint8_t*>(out));
}

template <class Real>
bool finite_typed(const EngineT<Real>& e) {
  const BoidStore<Real>& s = e.slots();
  for (int c = 0; c < 3; ++c) {
    for (const Real* a : {s.p[c].data(), s.v[c].data()}) {
      for (std::size_t i = 0; i < s.n; ++i) {
        if (!std::isfinite(a[i])) return false;
      }
    }
  }
  return true;
}

template <class Real>
bool any_kind_typed(const EngineT<Real>& e) {
  const BoidStore<Real>& s = e.slots();
  for (std::size_t i = 0; i < s.n; ++i) {
    if (s.kind[i] != 0) return true;
  }
  return false;
}

}  // namespace

IdRows::IdRows(const World& w)
    : engine_(&engine_of(w)), n_(w.count()), dims_(w.dims()), prec_(w.precision()) {}

std::size_t IdRows::elem_bytes(int col) const noexcept {
  if (col == id) return 4;
  if (col == kind) return 1;
  return prec_ == Precision::f64 ? 8 : 4;
}

void IdRows::gather(int col, std::size_t first, std::size_t rows, void* out) const {
  const auto* base = static_cast<const EngineBase*>(engine_);
  if (prec_ == Precision::f64)
    gather_typed(static_cast<const EngineT<double>&>(*base), col, first, rows, out);
  else
    gather_typed(static_cast<const EngineT<float>&>(*base), col, first, rows, out);
}

bool IdRows::any_kind() const {
  // Slot order does not matter here: read the store itself.
  const auto* base = static_cast<const EngineBase*>(engine_);
  return prec_ == Precision::f64 ? any_kind_typed(static_cast<const EngineT<double>&>(*base))
                                 : any_kind_typed(static_cast<const EngineT<float>&>(*base));
}

bool IdRows::all_finite() const {
  const auto* base = static_cast<const EngineBase*>(engine_);
  if (prec_ == Precision::f64) return finite_typed(static_cast<const EngineT<double>&>(*base));
  return finite_typed(static_cast<const EngineT<float>&>(*base));
}

}  // namespace boids
