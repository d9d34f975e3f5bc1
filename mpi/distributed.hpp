// The `boids` program's hook into the distributed (MPI) mode; design in mpi/distributed_grid.cpp
// and docs/distributed.md.
//
// Without BOIDS_MPI (the default build) everything here is an inline no-op: one process, rank 0,
// no stepper. With it, a program started by mpirun initialises MPI through Session, and
// make_stepper() partitions an identical World on every rank into slabs of the grid engine's
// cell grid. Only rank 0 writes files and prints; the other ranks step and exchange boids.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "boids/world.hpp"

namespace boids::mpi {

/// Steps one world on all ranks together (a collective object: every rank calls the same
/// members in the same order).
class Stepper {
 public:
  virtual ~Stepper() = default;
  /// Advances the distributed state by `count` steps.
  virtual void step(int count) = 0;
  /// Gathers the state to rank 0 and puts it, with the step count, into rank 0's `world`
  /// (the other ranks' worlds are left as they are). Called before anything is written.
  virtual void sync(World& world) = 0;
  /// One line on rank 0 (empty elsewhere) with the ranks, the bytes of ghosts and migrants
  /// sent per step per rank (mean and largest rank), the owned boids per rank after the last
  /// step, and per step per rank the CPU time outside MPI calls and the wall time inside
  /// them. The per-step figures leave out the first step (it distributes the initial
  /// state). Collective.
  virtual std::string summary() = 0;
};

#if BOIDS_MPI
/// Initialises MPI when the program was started by mpirun (and only then), finalises it at
/// destruction.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};
/// This process's rank and the number of ranks (0 and 1 when not started by mpirun).
int rank() noexcept;
int size() noexcept;
/// True when started by mpirun (any -np, 1 included): `run` then steps through a Stepper.
bool active() noexcept;
/// A stepper over `world` (identical on every rank) when active(), else nullptr. Throws Error
/// (on every rank alike) when the world cannot be stepped distributed.
std::unique_ptr<Stepper> make_stepper(const World& world);
/// Every rank's string, in rank order, on every rank (collective; {mine} when not active).
std::vector<std::string> all_gather(const std::string& mine);
/// Waits for every rank (collective; nothing when not active).
void barrier();
/// Progress of work spread over the ranks (a sweep's finished runs), reduced on rank 0 while
/// the work goes on. Main thread only (MPI is initialised FUNNELED). A rank other than 0
/// posts its running count, and once its final count (`final`); rank 0 polls the sum of the
/// other ranks' latest counts (non-blocking), and ends with wait_progress(), which returns
/// their final counts' sum once every other rank posted it, so no message is left in flight.
void post_progress(std::size_t finished, bool final);
std::size_t poll_progress();
std::size_t wait_progress();
#else
class Session {
 public:
  Session(int&, char**&) {}
};
inline int rank() noexcept { return 0; }
inline int size() noexcept { return 1; }
inline bool active() noexcept { return false; }
inline std::unique_ptr<Stepper> make_stepper(const World&) { return nullptr; }
inline std::vector<std::string> all_gather(const std::string& mine) { return {mine}; }
inline void barrier() {}
inline void post_progress(std::size_t, bool) {}
inline std::size_t poll_progress() { return 0; }
inline std::size_t wait_progress() { return 0; }
#endif

/// The rows of an ensemble whose runs were spread over the ranks: every rank passes the
/// (index, text) rows it made (text without '\n') and its error message (empty: none); on
/// return every rank holds all rows in index order, and the first error in rank order is
/// returned. Collective.
inline std::string share_rows(std::vector<std::pair<std::size_t, std::string>>& rows,
                              const std::string& failure) {
  std::string mine = failure + "\n";
  for (const auto& [i, text] : rows) mine += std::to_string(i) + " " + text + "\n";
  rows.clear();
  std::string first;
  for (const std::string& all : all_gather(mine)) {
    std::size_t at = all.find('\n');
    if (first.empty()) first = all.substr(0, at);
    for (++at; at < all.size();) {
      const std::size_t sp = all.find(' ', at), end = all.find('\n', at);
      rows.emplace_back(std::stoull(all.substr(at, sp - at)), all.substr(sp + 1, end - sp - 1));
      at = end + 1;
    }
  }
  std::sort(rows.begin(), rows.end());
  return first;
}

/// True on the rank that writes files and prints (rank 0).
inline bool is_root() noexcept { return rank() == 0; }

}  // namespace boids::mpi
