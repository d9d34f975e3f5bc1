// The part of boids/h5md.hpp that needs no HDF5.
#include <string>

#include "boids/h5md.hpp"

namespace boids::h5md {

bool is_h5md_path(const std::string& path) {
  auto ends = [&](const char* s) {
    const std::size_t n = std::char_traits<char>::length(s);
    return path.size() > n && path.compare(path.size() - n, n, s) == 0;
  };
  return ends(".h5") || ends(".h5md");
}

}  // namespace boids::h5md
