// Small helpers over the HDF5 C API shared by the H5MD writer and reader: an owning handle,
// and the few object kinds we create. Internal to io/.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>

#include "boids/world.hpp"

namespace boids::h5md {

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Hid {
 public:
  Hid() = default;
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t get() const noexcept { return id_; }
  /// Gives up ownership (the caller closes it).
  hid_t release() noexcept { return std::exchange(id_, H5I_INVALID_HID); }
  explicit operator bool() const noexcept { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

/// HDF5 prints an error stack to stderr by default; we report one line of our own instead.
inline void silence_hdf5_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

inline Hid group_handle(hid_t id) { return Hid(id, H5Gclose); }
inline Hid dataset_handle(hid_t id) { return Hid(id, H5Dclose); }
inline Hid space_handle(hid_t id) { return Hid(id, H5Sclose); }
inline Hid plist_handle(hid_t id) { return Hid(id, H5Pclose); }
inline Hid type_handle(hid_t id) { return Hid(id, H5Tclose); }
inline Hid attr_handle(hid_t id) { return Hid(id, H5Aclose); }

/// The kind groups under /particles, indexed by Kind.
inline constexpr const char* kKindGroup[kKindCount] = {"boids", "predators", "leaders"};

/// The H5MD particle group path of a kind, "/particles/boids" etc.
inline std::string kind_path(int kind) { return std::string("/particles/") + kKindGroup[kind]; }

}  // namespace boids::h5md
