// The `boids` program's hook into the distributed (MPI) mode; design in mpi/distributed_grid.cpp
// and docs/distributed.md.
//
// Without BOIDS_MPI (the default build) everything here is an inline no-op: one process, rank 0,
// no stepper. With it, a program started by mpirun initialises MPI through Session, and
// make_stepper() partitions an identical World on every rank into slabs of the grid engine's
// cell grid. Only rank 0 writes files and prints; the other ranks step and exchange boids.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
  /// sent per step per rank (mean and largest rank) and the owned boids per rank after the
  /// last step. Collective.
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
#else
class Session {
 public:
  Session(int&, char**&) {}
};
inline int rank() noexcept { return 0; }
inline int size() noexcept { return 1; }
inline bool active() noexcept { return false; }
inline std::unique_ptr<Stepper> make_stepper(const World&) { return nullptr; }
#endif

/// True on the rank that writes files and prints (rank 0).
inline bool is_root() noexcept { return rank() == 0; }

}  // namespace boids::mpi
