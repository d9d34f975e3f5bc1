// Small helpers of the distributed grid engine (mpi/distributed_grid.cpp): MPI types, the cell
// list's plane index, a radix sort by id and the CPU clocks of the summary line.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <vector>

namespace boids::mpi::detail {

inline double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Adds the process CPU time and wall time spent while alive to `cpu` and `wall`: wrapped around
// the MPI calls, so the step's own work is its CPU time minus these (the summary line).
struct InMpi {
  InMpi(double& cpu, double& wall)
      : cpu_(cpu), wall_(wall), c0_(process_cpu_s()), w0_(MPI_Wtime()) {}
  ~InMpi() {
    cpu_ += process_cpu_s() - c0_;
    wall_ += MPI_Wtime() - w0_;
  }
  InMpi(const InMpi&) = delete;
  InMpi& operator=(const InMpi&) = delete;
  double &cpu_, &wall_;
  double c0_, w0_;
};

template <class T>
MPI_Datatype mpi_real();
template <>
inline MPI_Datatype mpi_real<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_real<double>() {
  return MPI_DOUBLE;
}

// The cell list's axis index (parallel/cell_list.cpp, axis_cell): the same expression, so a
// boid's plane here is the plane of its cell there.
inline int axis_cell(double x, double lo, double inv, int n) {
  const double f = std::floor((x - lo) * inv);
  if (!(f >= 0)) return 0;
  return f >= n ? n - 1 : int(f);
}

// order = the permutation sorting ids ascending (LSD radix, two 16-bit digits; stable).
inline void sort_by_id(const std::uint32_t* ids, std::size_t n, std::vector<std::uint32_t>& order,
                       std::vector<std::uint32_t>& tmp) {
  order.resize(n);
  tmp.resize(n);
  for (std::size_t i = 0; i < n; ++i) tmp[i] = std::uint32_t(i);
  std::vector<std::uint32_t> count(65537);
  for (int pass = 0; pass < 2; ++pass) {
    const int shift = 16 * pass;
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t i = 0; i < n; ++i) ++count[((ids[tmp[i]] >> shift) & 0xffff) + 1];
    for (std::size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (std::size_t i = 0; i < n; ++i) order[count[(ids[tmp[i]] >> shift) & 0xffff]++] = tmp[i];
    if (pass == 0) order.swap(tmp);
  }
}

}  // namespace boids::mpi::detail
