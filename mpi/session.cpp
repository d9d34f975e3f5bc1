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

// Rank 0's record of the other ranks' progress posts (post_progress / poll_progress).
constexpr int kProgressTag = 7101, kProgressFinalTag = 7102;
std::vector<unsigned long long> g_latest;  // per rank, its latest posted count
int g_finals = 0;                          // ranks that posted their final count

void receive_progress(int source, int tag) {
  unsigned long long v = 0;
  MPI_Recv(&v, 1, MPI_UNSIGNED_LONG_LONG, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (g_latest.size() != std::size_t(g_size)) g_latest.assign(std::size_t(g_size), 0);
  g_latest[std::size_t(source)] = v;
  if (tag == kProgressFinalTag) ++g_finals;
}

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

void post_progress(std::size_t finished, bool final) {
  if (!g_active || g_rank == 0) return;
  // Eight bytes: sent eagerly, so this does not wait for rank 0 to receive.
  const unsigned long long v = finished;
  MPI_Send(&v, 1, MPI_UNSIGNED_LONG_LONG, 0, final ? kProgressFinalTag : kProgressTag,
           MPI_COMM_WORLD);
}

std::size_t poll_progress() {
  if (!g_active || g_rank != 0) return 0;
  for (int tag : {kProgressTag, kProgressFinalTag}) {
    for (;;) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
      if (!flag) break;
      receive_progress(st.MPI_SOURCE, tag);
    }
  }
  unsigned long long sum = 0;
  for (unsigned long long v : g_latest) sum += v;
  return std::size_t(sum);
}

std::size_t wait_progress() {
  if (!g_active || g_rank != 0) return 0;
  // Only the progress posts are point-to-point messages in flight here (the collectives
  // use their own communicator context), so any tag probed is one of ours.
  while (g_finals < g_size - 1) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    receive_progress(st.MPI_SOURCE, st.MPI_TAG);
  }
  unsigned long long sum = 0;
  for (unsigned long long v : g_latest) sum += v;
  g_latest.clear();
  g_finals = 0;
  return std::size_t(sum);
}

}  // namespace boids::mpi
