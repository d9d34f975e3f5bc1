// Checked reading of H5MD datasets, shared by --init (io/h5md_reader.cpp) and the public
// recording reader (io/recording_h5md.cpp). Every failure is one Error line
// "PATH: DATASET: what", never HDF5's own error stack. Internal to io/.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "io/h5md_hdf5.hpp"

namespace boids::h5md {

struct Reader {
  std::string path;
  Hid file;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(path + ": " + where + ": " + what);
  }

  bool exists(const std::string& p) const {
    // Walk the path one link at a time: H5Lexists fails on a missing intermediate group.
    std::size_t at = 1;
    while (true) {
      const std::size_t slash = p.find('/', at);
      const std::string part = p.substr(0, slash);
      if (H5Lexists(file.get(), part.c_str(), H5P_DEFAULT) <= 0) return false;
      if (slash == std::string::npos) return true;
      at = slash + 1;
    }
  }

  Hid dataset(const std::string& p) const {
    if (!exists(p)) fail(p, "missing");
    Hid d = dataset_handle(H5Dopen2(file.get(), p.c_str(), H5P_DEFAULT));
    if (!d) fail(p, "not a readable dataset");
    return d;
  }

  std::vector<hsize_t> shape(const Hid& d) const {
    Hid s = space_handle(H5Dget_space(d.get()));
    const int rank = H5Sget_simple_extent_ndims(s.get());
    std::vector<hsize_t> dims(std::size_t(std::max(rank, 0)));
    if (rank > 0) H5Sget_simple_extent_dims(s.get(), dims.data(), nullptr);
    return dims;
  }

  static std::string shape_text(const std::vector<hsize_t>& s) {
    std::string t = "(";
    for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + (s.size() == 1 ? ",)" : ")");
  }

  void expect_class(const Hid& d, H5T_class_t cls, const std::string& p, const char* what) const {
    Hid t = type_handle(H5Dget_type(d.get()));
    if (H5Tget_class(t.get()) != cls) fail(p, std::string("wrong type (expected ") + what + ")");
  }

  // Reads elements [start, start+count) along the first dimension times the rest, as T.
  template <class T>
  std::vector<T> read_rows(const Hid& d, const std::string& p, hid_t mem_type, hsize_t first,
                           const std::vector<hsize_t>& shp) const {
    std::vector<hsize_t> start(shp.size(), 0), count = shp;
    start[0] = first;
    count[0] = 1;
    hsize_t n = 1;
    for (std::size_t i = 1; i < count.size(); ++i) n *= count[i];
    std::vector<T> out(n);
    if (n == 0) return out;
    Hid fs = space_handle(H5Dget_space(d.get()));
    // Shaped like the selection, so HDF5 copies whole chunks rather than element by element.
    Hid ms = space_handle(H5Screate_simple(int(count.size()), count.data(), nullptr));
    if (H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr) < 0 ||
        H5Dread(d.get(), mem_type, ms.get(), fs.get(), H5P_DEFAULT, out.data()) < 0)
      fail(p, "cannot read (file damaged?)");
    return out;
  }

  template <class T>
  std::vector<T> read_1d(const std::string& p, hid_t mem_type, H5T_class_t cls,
                         const char* what) const {
    Hid d = dataset(p);
    expect_class(d, cls, p, what);
    const auto s = shape(d);
    if (s.size() != 1) fail(p, "wrong shape " + shape_text(s) + ", expected (frames,)");
    std::vector<T> out(s[0]);
    if (s[0] > 0 && H5Dread(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail(p, "cannot read (file damaged?)");
    return out;
  }

  std::string read_string(const std::string& p) const {
    Hid d = dataset(p);
    Hid t = type_handle(H5Dget_type(d.get()));
    if (H5Tget_class(t.get()) != H5T_STRING) fail(p, "wrong type (expected a string)");
    Hid s = space_handle(H5Dget_space(d.get()));
    if (H5Sget_simple_extent_type(s.get()) != H5S_SCALAR) fail(p, "expected one string");
    if (H5Tis_variable_str(t.get()) > 0) {
      char* text = nullptr;
      if (H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) < 0 || !text)
        fail(p, "cannot read (file damaged?)");
      std::string out(text);
      H5free_memory(text);
      return out;
    }
    const std::size_t n = H5Tget_size(t.get());
    std::string out(n, '\0');
    if (H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail(p, "cannot read (file damaged?)");
    out.resize(std::char_traits<char>::length(out.c_str()));
    return out;
  }
};

}  // namespace boids::h5md
