// explain_forces(): the per-boid math of one step for one boid, term by term.
#include <algorithm>

#include "boids/debug.hpp"
#include "core/engine.hpp"

namespace boids {
namespace {

template <class Real, int D>
ForceExplanation explain(const EngineT<Real>& e, std::uint32_t id) {
  const BoidStore<Real>& s = e.id_ordered();
  const ModelParams<Real>& m = e.params();
  const auto* first = s.id.data();
  const auto* last = s.id.data() + s.n;
  const auto* it = std::lower_bound(first, last, id);
  if (it == last || *it != id) throw Error("explain_forces: no boid with id " + std::to_string(id));
  const std::size_t i = std::size_t(it - first);
  ForceExplanation out;
  Real pi[3] = {0, 0, 0}, vi[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) {
    pi[c] = s.p[c][i];
    vi[c] = s.v[c][i];
  }
  const FlockSums<Real> sums = naive_sums<Real, D>(m, s, i, &out.neighbours);
  StepContext<Real> ctx = prepare_step(m, s, e.step_count(), e.def().seed);
  ctx.beh.active = true;  // always take the term-by-term path
  ForceRecorder rec;
  Real po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
  behaviour_finish<Real, D>(m, ctx, s.kind[i], id, sums, pi, vi, po, vo, &rec);
  for (const auto& t : rec.terms) out.terms.push_back({t.name, t.f[0], t.f[1], t.f[2]});
  if (m.beh.profile == Profile::abm && s.kind[i] == 0) {
    // The abm profile sets the velocity directly: its "total" is the new unit velocity.
    double tot[3] = {0, 0, 0};
    for (const auto& t : rec.terms)
      for (int c = 0; c < 3; ++c) tot[c] += t.f[c];
    out.terms.push_back({"total", tot[0], tot[1], tot[2]});
  } else {
    out.terms.push_back({"total", rec.total[0], rec.total[1], rec.total[2]});
  }
  ForceTerm applied{"applied", 0, 0, 0};
  double* a[3] = {&applied.x, &applied.y, &applied.z};
  for (int c = 0; c < D; ++c) *a[c] = (double(vo[c]) - double(vi[c])) / double(m.dt);
  out.terms.push_back(applied);
  return out;
}

template <class Real>
ForceExplanation explain_typed(const EngineT<Real>& e, std::uint32_t id) {
  return e.def().dims == 2 ? explain<Real, 2>(e, id) : explain<Real, 3>(e, id);
}

}  // namespace

ForceExplanation explain_forces(const World& world, std::uint32_t id) {
  const EngineBase& base = engine_of(world);
  if (const auto* f = dynamic_cast<const EngineT<float>*>(&base)) return explain_typed(*f, id);
  if (const auto* d = dynamic_cast<const EngineT<double>*>(&base)) return explain_typed(*d, id);
  throw Error("explain_forces: unknown engine");
}

TargetPose target_pose(const WorldDef& def, double t) {
  double p0[3] = {0, 0, 0}, vel[3] = {0, 0, 0};
  for (int c = 0; c < def.dims && c < 3; ++c) {
    const auto i = std::size_t(c);
    p0[c] = i < def.target.position.size() ? def.target.position[i] : 0.5 * def.size;
    vel[c] = i < def.target.velocity.size() ? def.target.velocity[i] : 0.0;
  }
  TargetPose pose;
  beh::target_at(p0, vel, def.target.hold, def.target.move, t, std::min(def.dims, 3), pose.position,
                 pose.velocity);
  return pose;
}

}  // namespace boids
