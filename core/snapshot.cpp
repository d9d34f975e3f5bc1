#include "core/snapshot.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "core/engine.hpp"
#include "core/files.hpp"
#include "core/id_rows.hpp"
#include "core/input_limits.hpp"
#include "core/scenario.hpp"
#include "core/state_csv.hpp"

namespace boids {

static_assert(std::endian::native == std::endian::little,
              "snapshot and recording files are little-endian; add byte swapping for this host");

namespace {

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

// Sequential reader over the payload; every read is bounds-checked.
struct Reader {
  std::string_view b;
  std::size_t at = 0;
  const std::string& name;

  [[noreturn]] void fail(const std::string& what) const { throw Error(name + ": " + what); }
  void need(std::size_t bytes) const {
    if (b.size() - at < bytes) fail("snapshot is inconsistent (payload shorter than its counts)");
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  template <class Real>
  void get_reals(std::vector<double>& to, std::size_t n) {
    need(n * sizeof(Real));
    to.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      Real v;
      std::memcpy(&v, b.data() + at + i * sizeof(Real), sizeof(Real));
      to[i] = double(v);  // exact: float -> double -> float round-trips
    }
    at += n * sizeof(Real);
  }
};

// The payload, in file order, to `sink(const void*, bytes)`: a string, a running checksum or
// a file. The state is gathered in id order a chunk at a time (core/id_rows.hpp), so neither
// the id-order copy of the store nor the payload needs to exist in memory as a whole.
template <class Sink>
void emit_payload(const World& w, const std::string& toml, Sink&& sink) {
  const IdRows rows(w);
  const std::uint32_t real_bytes = w.precision() == Precision::f64 ? 8 : 4;
  std::string head;
  put<std::uint64_t>(head, w.step_count());
  put<std::uint32_t>(head, w.next_id());
  put<std::uint32_t>(head, static_cast<std::uint32_t>(rows.count()));
  put<std::uint32_t>(head, static_cast<std::uint32_t>(w.dims()));
  put<std::uint32_t>(head, real_bytes);
  put<std::uint32_t>(head, static_cast<std::uint32_t>(toml.size()));
  put<std::uint32_t>(head, 0);  // reserved
  sink(head.data(), head.size());
  sink(toml.data(), toml.size());
  rows.write_columns(sink);
}

std::uint64_t payload_bytes(const World& w, const std::string& toml) {
  const std::uint64_t real_bytes = w.precision() == Precision::f64 ? 8 : 4;
  return 32 + toml.size() +
         std::uint64_t(w.count()) * (5 + 2 * std::uint64_t(w.dims()) * real_bytes);
}

std::string snapshot_toml(const World& w) {
  WorldDef def = w.def();
  def.host_parallel_for = nullptr;
  def.host_context = nullptr;
  return scenario_to_toml(def);
}

// Header then payload to `sink`; the header's checksum takes one pass over the payload first.
template <class Sink>
void emit_snapshot(const World& w, Sink&& sink) {
  const std::string toml = snapshot_toml(w);
  std::uint64_t hash = 0xcbf29ce484222325ull;  // fnv1a's offset basis
  emit_payload(w, toml, [&](const void* d, std::size_t b) { hash = fnv1a(d, b, hash); });
  std::string head(kSnapshotMagic, sizeof(kSnapshotMagic));
  put<std::uint32_t>(head, kSnapshotVersion);
  put<std::uint32_t>(head, 0);  // reserved
  put<std::uint64_t>(head, payload_bytes(w, toml));
  put<std::uint64_t>(head, hash);
  sink(head.data(), head.size());
  emit_payload(w, toml, sink);
}

}  // namespace

std::string encode_snapshot(const World& w) {
  std::string out;
  out.reserve(kSnapshotHeaderBytes + payload_bytes(w, snapshot_toml(w)));
  emit_snapshot(w,
                [&](const void* d, std::size_t b) { out.append(static_cast<const char*>(d), b); });
  return out;
}

void write_snapshot(const std::string& path, const World& w) {
  AtomicFile f(path, std::size_t(1) << 20);
  emit_snapshot(w, [&](const void* d, std::size_t b) { f.write(d, b); });
  f.commit();
}

SnapshotData decode_snapshot(std::string_view bytes, const std::string& name) {
  auto fail = [&](const std::string& what) -> void { throw Error(name + ": " + what); };
  if (bytes.size() < sizeof(kSnapshotMagic) ||
      std::memcmp(bytes.data(), kSnapshotMagic, sizeof(kSnapshotMagic)) != 0)
    fail("not a boids snapshot (no BOIDSNAP magic at the start)");
  if (bytes.size() < kSnapshotHeaderBytes)
    fail("truncated boids snapshot (" + std::to_string(bytes.size()) +
         " bytes, the header alone is " + std::to_string(kSnapshotHeaderBytes) + ")");
  Reader h{bytes, sizeof(kSnapshotMagic), name};
  const auto version = h.get<std::uint32_t>();
  h.get<std::uint32_t>();
  const auto payload_bytes = h.get<std::uint64_t>();
  const auto checksum = h.get<std::uint64_t>();
  if (version != kSnapshotVersion)
    fail("snapshot format version " + std::to_string(version) + ", this library reads version " +
         std::to_string(kSnapshotVersion));
  const std::size_t have = bytes.size() - kSnapshotHeaderBytes;
  if (payload_bytes > have)
    fail("truncated boids snapshot (header announces " + std::to_string(payload_bytes) +
         " payload bytes, file has " + std::to_string(have) + ")");
  if (payload_bytes < have)
    fail("boids snapshot has " + std::to_string(have - payload_bytes) +
         " unexpected bytes after its payload");
  const std::string_view payload = bytes.substr(kSnapshotHeaderBytes);
  if (fnv1a(payload.data(), payload.size()) != checksum)
    fail("boids snapshot is corrupt (checksum mismatch)");

  Reader r{payload, 0, name};
  SnapshotData d;
  d.step_count = r.get<std::uint64_t>();
  d.next_id = r.get<std::uint32_t>();
  const std::size_t n = r.get<std::uint32_t>();
  if (n > kMaxBoids) fail("snapshot holds " + std::to_string(n) + " boids, more than the limit");
  const auto dims = r.get<std::uint32_t>();
  const auto real_bytes = r.get<std::uint32_t>();
  const std::size_t toml_bytes = r.get<std::uint32_t>();
  r.get<std::uint32_t>();
  r.need(toml_bytes);
  const std::string toml(payload.substr(r.at, toml_bytes));
  r.at += toml_bytes;
  d.def = parse_scenario(toml, name + " (embedded scenario)");
  check_boid_count(std::max<std::uint64_t>(n, d.def.count), d.def, name + ": boids.count");
  if (dims != std::uint32_t(d.def.dims) || (real_bytes != 4 && real_bytes != 8) ||
      (real_bytes == 8) != (d.def.precision == Precision::f64))
    fail("snapshot is inconsistent (dims or precision differ from its scenario)");
  const std::size_t expect = r.at + n * (5 + 2 * std::size_t(dims) * real_bytes);
  if (expect != payload.size())
    fail("snapshot is inconsistent (payload size does not match its counts)");

  d.state.id.resize(n);
  if (n != 0) std::memcpy(d.state.id.data(), payload.data() + r.at, n * 4);  // data() may be null
  r.at += n * 4;
  d.state.kind.assign(payload.begin() + std::ptrdiff_t(r.at),
                      payload.begin() + std::ptrdiff_t(r.at + n));
  r.at += n;
  std::vector<double>* comps[6] = {&d.state.x,  &d.state.y,  &d.state.z,
                                   &d.state.vx, &d.state.vy, &d.state.vz};
  for (int pv = 0; pv < 2; ++pv) {
    for (std::uint32_t c = 0; c < dims; ++c) {
      if (real_bytes == 8)
        r.get_reals<double>(*comps[3 * pv + int(c)], n);
      else
        r.get_reals<float>(*comps[3 * pv + int(c)], n);
    }
  }
  return d;
}

std::string read_file_bytes(const std::string& path) {
  // A snapshot of n boids is ~29n (float) bytes and becomes a state of 56n: refuse files that
  // could not be loaded within the memory this process may use before reading them.
  return read_input_file(path, "snapshot", memory_limit_bytes() / 4);
}

}  // namespace boids
