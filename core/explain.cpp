// explain_forces(): the per-boid math of one step for one boid, term by term.
#include <algorithm>

#include "boids/debug.hpp"
#include "core/engine.hpp"
#include "core/neighbour_list.hpp"
#include "core/profile_couzin.hpp"

namespace boids {
namespace {

// The couzin profile has no forces: its terms are the zones' directions as the paper writes
// them (d_r = -sum of unit offsets in the repulsion zone, d_o = sum of the unit velocities in
// the orientation zone, d_a = sum of unit offsets in the attraction zone; docs/profiles.md),
// "total" the desired direction they give (unit, before the noise), "applied" what the turn
// limit and the noise made of it.
template <class Real, int D>
ForceExplanation explain_couzin(const ModelParams<Real>& m, const StepContext<Real>& ctx,
                                const BoidStore<Real>& s, std::size_t i,
                                const std::vector<nlist::Neighbour<Real>>& nb,
                                ForceExplanation out) {
  Real p[3] = {0, 0, 0}, v[3] = {0, 0, 0}, po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
  for (int c = 0; c < D; ++c) {
    p[c] = s.p[c][i];
    v[c] = s.v[c][i];
  }
  couzin::Zones<Real> z;
  for (const auto& n : nb) {
    Real vj[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) vj[c] = s.v[c][n.slot];
    couzin::accumulate<Real, D>(m, n.d, n.dist2, vj, z);
  }
  out.terms.push_back({"repulsion", -z.rep[0], -z.rep[1], -z.rep[2]});
  out.terms.push_back({"orientation", z.ori[0], z.ori[1], z.ori[2]});
  out.terms.push_back({"attraction", z.att[0], z.att[1], z.att[2]});
  double h[3] = {0, 0, 0}, want[3] = {0, 0, 0};
  couzin::desired<Real, D>(z, v, h, want);
  out.terms.push_back({"total", want[0], want[1], want[2]});
  couzin::finish<Real, D>(m, ctx, s.id[i], z, p, v, po, vo);
  ForceTerm applied{"applied", 0, 0, 0};
  double* a[3] = {&applied.x, &applied.y, &applied.z};
  for (int c = 0; c < D; ++c) *a[c] = (double(vo[c]) - double(v[c])) / double(m.dt);
  out.terms.push_back(applied);
  return out;
}

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
  StepContext<Real> ctx = prepare_step(m, s, e.step_count(), e.def().seed);
  Real po[3] = {0, 0, 0}, vo[3] = {0, 0, 0};
  FlockSums<Real> sums;
  if (m.list.active && s.kind[i] == 0) {
    // Topological neighbours and the couzin profile see the list of the naive stepper
    // (core/neighbour_list.hpp): the visible boids, the k nearest kept, in id order.
    std::vector<nlist::Neighbour<Real>> nb;
    nlist::gather<Real, D>(m, s, i, 0, std::uint32_t(s.n), nb);
    nlist::select(m.list.topo_k, nb);
    for (const auto& n : nb) out.neighbours.push_back(n.id);
    if (m.list.couzin) return explain_couzin<Real, D>(m, ctx, s, i, nb, std::move(out));
    sums = nlist::list_sums<Real, D>(m.kind[0], s, i, nb);
  } else {
    sums = naive_sums<Real, D>(m, s, i, &out.neighbours);
  }
  ctx.beh.active = true;  // always take the term-by-term path
  ForceRecorder rec;
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
