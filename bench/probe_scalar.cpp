// Machine probe, scalar path: the plain per-candidate loop with a branch, compiled with
// -fno-tree-vectorize so it stays scalar (the comparison point for the scalar kernel).
#include "bench/probe_kernel.hpp"

namespace boids::bench::probe {

namespace {
template <class Real, int D>
double run_scalar(const ProbeData<Real>& d, int sweeps) {
  double total = 0;
  for (int s = 0; s < sweeps; ++s) {
    for (std::size_t i = 0; i < kRun; ++i) {
      Real pi[D], sd[D] = {}, sv[D] = {};
      int k = 0;
      for (int c = 0; c < D; ++c) pi[c] = d.p[c][i];
      for (std::size_t j = 0; j < kRun; ++j) {
        Real dd[D], d2 = 0;
        for (int c = 0; c < D; ++c) {
          dd[c] = d.p[c][j] - pi[c];
          d2 += dd[c] * dd[c];
        }
        if (d2 < d.r2) {
          ++k;
          for (int c = 0; c < D; ++c) {
            sd[c] += dd[c];
            sv[c] += d.v[c][j];
          }
        }
      }
      total += k;
      for (int c = 0; c < D; ++c) total += double(sd[c] + sv[c]);
    }
  }
  return total;
}
}  // namespace

double sweeps_scalar(bool f64, int dims, int sweeps) {
  if (f64) {
    static const ProbeData<double> d;
    return dims == 2 ? run_scalar<double, 2>(d, sweeps) : run_scalar<double, 3>(d, sweeps);
  }
  static const ProbeData<float> d;
  return dims == 2 ? run_scalar<float, 2>(d, sweeps) : run_scalar<float, 3>(d, sweeps);
}

}  // namespace boids::bench::probe
