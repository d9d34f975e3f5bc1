// The two readers behind boids::Recording (include/boids/recording.hpp). Internal to io/.
#pragma once

#include <string>
#include <vector>

#include "boids/recording.hpp"

namespace boids {

struct Recording::Impl {
  std::string path;
  RecordingFormat format = RecordingFormat::boidsrec;
  int dims = 3;
  Precision precision = Precision::f32;
  std::uint64_t every = 1;
  std::string scenario;
  std::vector<std::uint64_t> steps;  // one per frame, at least one

  virtual ~Impl() = default;
  /// Reads frame k; comps = x, y, z, vx, vy, vz. 2D: the z components are left alone.
  virtual void read_f(std::size_t k, std::vector<std::uint32_t>& id,
                      std::vector<std::uint8_t>& kind, std::vector<float>* comps[6]) = 0;
  virtual void read_d(std::size_t k, std::vector<std::uint32_t>& id,
                      std::vector<std::uint8_t>& kind, std::vector<double>* comps[6]) = 0;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(path + ": " + where + ": " + what);
  }
};

namespace io_detail {
/// BOIDSREC (io/recording.cpp).
std::unique_ptr<Recording::Impl> open_boidsrec(const std::string& path);
/// H5MD (io/recording_h5md.cpp; io/h5md_none.cpp throws in a build without HDF5).
std::unique_ptr<Recording::Impl> open_h5md(const std::string& path);

/// Checks one frame's rows: ids strictly increasing, kinds 0..2, values finite. `where` names
/// the frame in messages.
template <class Real>
void check_rows(const Recording::Impl& r, const std::string& where,
                const std::vector<std::uint32_t>& id, const std::vector<std::uint8_t>& kind,
                std::vector<Real>* const comps[6], int dims);
}  // namespace io_detail

}  // namespace boids
