#include "mpi/slabs.hpp"

#include <cstddef>

namespace boids::mpi::detail {

void Slabs::balance(const std::vector<long long>& count, int ranks) {
  planes = int(count.size());
  long long total = 0;
  for (long long c : count) total += c;
  cuts.assign(std::size_t(ranks) + 1, planes);
  cuts[0] = 0;
  int z = 0;
  long long pre = 0;
  for (int q = 1; q < ranks; ++q) {
    const long long target = total * q / ranks;
    while (z < planes && pre + count[std::size_t(z)] <= target) pre += count[std::size_t(z++)];
    cuts[std::size_t(q)] = z;
  }
}

void Slabs::route(int reach, bool wrap) {
  dest.assign(std::size_t(planes), {});
  owner.assign(std::size_t(planes), 0);
  const int ranks = int(cuts.size()) - 1;
  for (int q = 0; q < ranks; ++q) {
    const int a = cuts[std::size_t(q)], b = cuts[std::size_t(q) + 1];
    for (int z = a; z < b; ++z) owner[std::size_t(z)] = q;
    if (a == b) continue;
    for (int z = a - reach; z < b + reach; ++z) {
      int w = z;
      if (wrap) {
        w = ((z % planes) + planes) % planes;
      } else if (z < 0 || z >= planes) {
        continue;
      }
      std::vector<int>& d = dest[std::size_t(w)];
      if (d.empty() || d.back() != q) d.push_back(q);
    }
  }
}

}  // namespace boids::mpi::detail
