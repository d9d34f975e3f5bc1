// MPI start-up for the `boids` program (mpi/distributed.hpp). MPI is initialised only when
// the process was started by mpirun, so `boids` run by hand from an MPI build never touches
// it (no singleton start-up, no daemon).
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

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

std::vector<std::string> all_gather(const std::string& mine) {
  if (!g_active) return {mine};
  const int len = int(mine.size());
  const std::size_t P = static_cast<std::size_t>(g_size);
  std::vector<int> lens(P), displs(P + 1, 0);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t q = 0; q < lens.size(); ++q) displs[q + 1] = displs[q] + lens[q];
  std::string all(std::size_t(displs.back()), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t q = 0; q < lens.size(); ++q)
    out.push_back(all.substr(std::size_t(displs[q]), std::size_t(lens[q])));
  return out;
}

void barrier() {
  if (g_active) MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace boids::mpi
