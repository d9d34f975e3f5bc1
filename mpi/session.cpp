// MPI start-up for the `boids` program (mpi/distributed.hpp). MPI is initialised only when
// the process was started by mpirun, so `boids` run by hand from an MPI build never touches
// it (no singleton start-up, no daemon).
#include <mpi.h>

#include <cstdlib>

#include "mpi/distributed.hpp"

namespace boids::mpi {
namespace {

bool g_active = false;
int g_rank = 0, g_size = 1;

bool started_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

}  // namespace

Session::Session(int& argc, char**& argv) {
  if (!started_by_mpirun()) return;
  // Only the main thread calls MPI; the engine's TBB workers never do.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_active = true;
}

Session::~Session() {
  if (g_active) MPI_Finalize();
}

int rank() noexcept { return g_rank; }
int size() noexcept { return g_size; }
bool active() noexcept { return g_active; }

}  // namespace boids::mpi
