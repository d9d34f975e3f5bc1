// The XDMF description written beside an H5MD recording, so ParaView (File -> Open) and
// meshio read the run as a time series of point clouds. Internal to io/.
//
// XDMF readers want one grid per time step whose arrays are whole datasets (meshio reads only
// whole datasets; ParaView reads hyperslabs too, but one layout for both is simpler). The
// particle data lives per kind in (frames, rows, dims) datasets padded with fill rows, so
// each frame gets small HDF5 *virtual* datasets under /parameters/xdmf/frame_F that map the
// live rows of every kind, concatenated in kind order, without copying a byte:
// position (n, dims), velocity (n, dims), id (n) and kind (n). The XML file is rewritten
// only at its tail: each frame overwrites the closing tags with its grid plus the closing
// tags, then flushes, so the file is complete after every frame.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "boids/world.hpp"
#include "io/h5md_hdf5.hpp"

namespace boids::h5md {

/// The live rows of one kind in one frame: rows 0..rows-1 of frame `frame` of that kind's
/// value datasets.
struct XdmfPart {
  int kind = 0;
  hsize_t frame = 0;
  std::size_t rows = 0;
};

class XdmfWriter {
 public:
  XdmfWriter() = default;
  ~XdmfWriter();
  XdmfWriter(const XdmfWriter&) = delete;
  XdmfWriter& operator=(const XdmfWriter&) = delete;

  /// Starts the XML file at `xdmf_path` describing `h5_path` (open as `file`).
  void open(const std::string& xdmf_path, const std::string& h5_path, hid_t file, int dims,
            Precision precision, hid_t gcpl, hid_t dcpl);
  /// Adds frame `frame` at `time` made of `parts`; a frame without boids is left out.
  void add_frame(std::uint64_t frame, double time, const std::vector<XdmfPart>& parts);
  /// Closes the HDF5 objects (before the HDF5 file is closed).
  void close_datasets();
  /// Closes the XML file. Throws Error on a write failure.
  void finish();

 private:
  void write_tail();
  void make_vertices(std::size_t n);
  void make_virtual(const std::string& name, const char* source, hid_t type, int rank,
                    const std::vector<XdmfPart>& parts, std::size_t total);

  std::string path_, h5name_;
  std::FILE* f_ = nullptr;
  long tail_at_ = 0;
  hid_t file_ = H5I_INVALID_HID, gcpl_ = H5I_INVALID_HID, dcpl_ = H5I_INVALID_HID;
  Hid group_, vertices_;
  hsize_t vertices_rows_ = 0;
  std::set<std::size_t> vertex_views_;
  int dims_ = 3;
  Precision precision_ = Precision::f32;
  bool failed_ = false;
};

}  // namespace boids::h5md
