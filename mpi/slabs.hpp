// The slab partition of the distributed grid engine (mpi/distributed_grid.cpp): the planes of
// cells along the slab axis (the slowest in cell order, so a slab is a contiguous range of
// cells) cut into one run of planes per rank, and for every plane the ranks that need its
// boids. Pure functions of the global boid counts per plane: every rank computes the same
// partition, and ownership never enters the arithmetic of a step.
#pragma once

#include <vector>

namespace boids::mpi::detail {

struct Slabs {
  std::vector<int> cuts;               // rank q owns planes [cuts[q], cuts[q + 1])
  std::vector<int> owner;              // per plane, the owning rank
  std::vector<std::vector<int>> dest;  // per plane, the ranks holding it (owner, ghosts), ascending
  int planes = -1;                     // the plane count the cuts were made for

  /// Cuts `count` (the global boids per plane) into `ranks` runs of about equal boids.
  void balance(const std::vector<long long>& count, int ranks);
  /// Fills owner and dest for slabs widened by `reach` planes, wrapped periodically when `wrap`.
  void route(int reach, bool wrap);
};

}  // namespace boids::mpi::detail
