// The per-boid accumulator of behaviour_finish() (core/behaviour_finish.cpp): the total
// steering force, the term being computed, the hints for the vehicle, and the boid's own
// state. Each term writes `term` and calls add(name), which adds it to the force in a fixed
// order and hands it to explain_forces' recorder.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/model.hpp"
#include "core/vehicles.hpp"

namespace boids::beh {

template <class Real, int D>
struct Steer {
  const Real* p;
  const Real* v;
  Real v_len;  // |v|
  Real ms;     // the kind's max_speed
  ForceRecorder* rec;
  Real force[3] = {0, 0, 0};
  Real term[3] = {0, 0, 0};
  DriveHint<Real> hint;

  Steer(const KindParams<Real>& kp, const Real* p_, const Real* v_, ForceRecorder* rec_)
      : p(p_), v(v_), v_len(norm<Real, D>(v_)), ms(kp.max_speed), rec(rec_) {
    hint.max_speed = kp.max_speed;
    hint.min_speed = kp.min_speed;
  }

  BOIDS_BEH_INLINE void add(const char* name) {
    for (int c = 0; c < D; ++c) force[c] += term[c];
    if (rec) record(name);
  }

  // explain_forces only: out of line, so add() stays small.
  [[gnu::noinline, gnu::cold]] void record(const char* name) { rec->add(name, term, D); }

  void zero_term() {
    for (int c = 0; c < D; ++c) term[c] = Real(0);
  }

  // Arrival lowers the speed floor: min_speed applies except within the braking distance of
  // the arrival point or while moving away from it, so it never stops a boid from arriving.
  void arriving(Real speed, const Real* to) {
    if (hint.arriving) return;
    hint.arriving = true;
    hint.arrive_speed = speed;
    for (int c = 0; c < D; ++c) hint.arrive_to[c] = to[c];
    // The floor is min(min_speed, speed * cos+ of the angle between v and the point), so a
    // boid moving away from the point (or abeam of it) can brake and turn back.
    const Real tn = norm<Real, D>(to);
    const Real cosv = tn > Real(0) && v_len > Real(0) ? dot<Real, D>(v, to) / (tn * v_len) : 0;
    hint.min_speed = std::min(hint.min_speed, speed * std::max(cosv, Real(0)));
  }
};

}  // namespace boids::beh
