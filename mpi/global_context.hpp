// The parts of the step context (core/behaviours.hpp, prepare_behaviours) that sum over every
// kind-0 boid, computed by ranks that each hold a slab of them.
//
// The single-process grid engine sums the global centre of kind 0 (need_centre) and each
// predator's view of the prey (chase) serially over its sorted store, in cell order. Floating-
// point sums depend on their order, so a tree reduction would change the bits. The slabs are
// contiguous ranges of that cell order in rank order, so the sums are passed along the ranks as
// a chain: rank r receives the running sums from rank r-1, adds its own boids in cell order
// with exactly the expressions of prepare_behaviours, sends them on, and the last rank
// broadcasts the totals. The nearest prey is a minimum of (distance, id), exact in any order.
// The chain costs P-1 message latencies per step and runs only when a behaviour needs it.
#pragma once

#include <mpi.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model.hpp"

namespace boids::mpi {

/// Completes `ctx` (from prepare_behaviours over the replicated kind 1/2 agents only) with
/// the sums over every rank's kind-0 boids: slots [s0, s1) of `in` are this rank's, in cell
/// order. Collective over `comm`.
template <class Real>
void complete_context(const ModelParams<Real>& m, const BoidStore<Real>& in, std::uint32_t s0,
                      std::uint32_t s1, StepContext<Real>& ctx, MPI_Comm comm) {
  BehaviourContext<Real>& b = ctx.beh;
  if (!b.active) return;
  const bool centre = m.beh.need_centre;
  const bool chase = m.kind[1].beh.chase != Real(0) && !b.predators.empty();
  if (!centre && !chase) return;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int D = m.dims;
  const bool wrap = m.boundary == Boundary::wrap;
  // Running values: 6 centre sums and the count, then 12 per predator (prey offset sums,
  // prey count, best distance², best id, nearest offset, nearest velocity).
  constexpr std::size_t kPred = 12;
  std::vector<double> acc(7 + kPred * b.predators.size(), 0.0);
  for (std::size_t a = 0; a < b.predators.size(); ++a)
    acc[7 + kPred * a + 4] = double(std::numeric_limits<Real>::infinity());
  if (rank > 0)
    MPI_Recv(acc.data(), int(acc.size()), MPI_DOUBLE, rank - 1, 17, comm, MPI_STATUS_IGNORE);

  if (centre) {
    const double L = double(m.size), tau = 2.0 * 3.14159265358979323846;
    for (std::uint32_t i = s0; i < s1; ++i) {
      acc[6] += 1;
      for (int c = 0; c < D; ++c) {
        const double x = double(in.p[c][i]);
        if (wrap) {
          acc[2 * c] += std::cos(tau * x / L);
          acc[2 * c + 1] += std::sin(tau * x / L);
        } else {
          acc[2 * c] += x;
        }
      }
    }
  }
  if (chase) {
    const KindParams<Real>& pk = m.kind[1];
    for (std::size_t ai = 0; ai < b.predators.size(); ++ai) {
      const SpecialAgent<Real>& a = b.predators[ai];
      double* r = acc.data() + 7 + kPred * ai;
      double sum[3] = {r[0], r[1], r[2]};
      std::int64_t prey = std::int64_t(r[3]);
      Real best2 = Real(r[4]);
      std::uint32_t best_id = std::uint32_t(r[5]);
      Real nd[3] = {Real(r[6]), Real(r[7]), Real(r[8])},
           nv[3] = {Real(r[9]), Real(r[10]), Real(r[11])};
      Real v_len = 0;
      for (int c = 0; c < D; ++c) v_len += a.v[c] * a.v[c];
      v_len = std::sqrt(v_len);
      for (std::uint32_t i = s0; i < s1; ++i) {
        Real d[3] = {0, 0, 0}, dist2 = 0;
        for (int c = 0; c < D; ++c) {
          d[c] = in.p[c][i] - a.p[c];
          if (wrap) d[c] = min_image(d[c], m.size, m.inv_size);
          dist2 += d[c] * d[c];
        }
        const bool seen = D == 2 ? beh::sees<Real, 2>(pk, d, dist2, a.v, v_len)
                                 : beh::sees<Real, 3>(pk, d, dist2, a.v, v_len);
        if (!seen) continue;
        ++prey;
        for (int c = 0; c < D; ++c) sum[c] += double(d[c]);
        if (dist2 < best2 || (dist2 == best2 && in.id[i] < best_id)) {
          best2 = dist2;
          best_id = in.id[i];
          for (int c = 0; c < D; ++c) {
            nd[c] = d[c];
            nv[c] = in.v[c][i];
          }
        }
      }
      r[0] = sum[0], r[1] = sum[1], r[2] = sum[2], r[3] = double(prey);
      r[4] = double(best2), r[5] = double(best_id);
      for (int c = 0; c < 3; ++c) r[6 + c] = double(nd[c]), r[9 + c] = double(nv[c]);
    }
  }
  if (rank + 1 < size) MPI_Send(acc.data(), int(acc.size()), MPI_DOUBLE, rank + 1, 17, comm);
  MPI_Bcast(acc.data(), int(acc.size()), MPI_DOUBLE, size - 1, comm);

  if (centre && acc[6] > 0) {
    // prepare_behaviours' centre and destination direction for kind 0, from the totals.
    const double L = double(m.size), tau = 2.0 * 3.14159265358979323846;
    Real dir[3] = {0, 0, 0};
    for (int c = 0; c < D; ++c) {
      double x;
      if (wrap) {
        x = L * std::atan2(acc[2 * c + 1], acc[2 * c]) / tau;
        if (x < 0) x += L;
        if (x >= L) x = 0;
      } else {
        x = acc[2 * c] / acc[6];
      }
      b.centre[0][c] = Real(x);
    }
    if (D == 2)
      beh::offset<Real, 2>(m, b.centre[0], m.beh.goal, dir);
    else
      beh::offset<Real, 3>(m, b.centre[0], m.beh.goal, dir);
    Real n2 = 0;
    for (int c = 0; c < D; ++c) n2 += dir[c] * dir[c];
    if (n2 > Real(0)) {
      const Real inv = Real(1) / std::sqrt(n2);
      for (int c = 0; c < D; ++c) b.dest_dir[0][c] = dir[c] * inv;
    }
  }
  if (chase) {
    for (std::size_t ai = 0; ai < b.predators.size(); ++ai) {
      SpecialAgent<Real>& a = b.predators[ai];
      const double* r = acc.data() + 7 + kPred * ai;
      a.prey = std::int32_t(r[3]);
      for (int c = 0; c < D; ++c) {
        a.nearest_d[c] = Real(r[6 + c]);
        a.nearest_v[c] = Real(r[9 + c]);
      }
      if (a.prey > 0) {
        for (int c = 0; c < D; ++c) a.prey_offset[c] = Real(r[c] / double(a.prey));
      }
    }
  }
}

}  // namespace boids::mpi
