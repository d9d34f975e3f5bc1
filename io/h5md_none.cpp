// boids/h5md.hpp in a build without HDF5 (BOIDS_HDF5=OFF): every entry point says so.
#include "boids/h5md.hpp"
#include "io/recording_impl.hpp"

namespace boids::h5md {

[[noreturn]] void no_hdf5(const std::string& path) {
  throw Error(path +
              ": this build of boids has no HDF5 support (install libhdf5-dev and "
              "reconfigure with -DBOIDS_HDF5=ON) and cannot read or write .h5/.h5md");
}

bool available() noexcept { return false; }

struct Writer::Impl {
  std::string xdmf;
};

Writer::Writer(const std::string& path, const World&, const WriterOptions&) { no_hdf5(path); }
Writer::~Writer() = default;
void Writer::frame(const World&) {}
void Writer::append_observables(std::uint64_t, double,
                                const std::vector<std::pair<std::string, double>>&) {}
void Writer::finish() {}
std::uint64_t Writer::frames() const noexcept { return 0; }
const std::string& Writer::xdmf_path() const noexcept {
  static const std::string none;
  return none;
}

RecordedFrame read_frame(const std::string& path, long long) { no_hdf5(path); }

World world_from_frame(const WorldDef&, const RecordedFrame&, const std::string& path) {
  no_hdf5(path);
}

}  // namespace boids::h5md

namespace boids::io_detail {

std::unique_ptr<Recording::Impl> open_h5md(const std::string& path) { h5md::no_hdf5(path); }

}  // namespace boids::io_detail
