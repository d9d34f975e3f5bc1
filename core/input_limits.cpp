#include "core/input_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "boids/world.hpp"

namespace boids {

namespace {

// Skips a TOML string starting at text[i] (a quote); returns the index after its end and
// counts the newlines it crossed. Unterminated strings end at the end of the text (or, for
// single-line strings, at the newline): toml++ reports them properly afterwards.
std::size_t skip_string(std::string_view t, std::size_t i, std::size_t& line) {
  const char q = t[i];
  const bool basic = q == '"';
  const bool multi = t.substr(i, 3) == std::string_view(basic ? "\"\"\"" : "'''");
  i += multi ? 3 : 1;
  while (i < t.size()) {
    const char c = t[i];
    if (basic && c == '\\') {
      if (i + 1 < t.size() && t[i + 1] == '\n') ++line;
      i += 2;
      continue;
    }
    if (c == '\n') {
      if (!multi) return i;
      ++line;
    }
    if (c == q && (!multi || t.substr(i, 3) == std::string_view(basic ? "\"\"\"" : "'''")))
      return i + (multi ? 3 : 1);
    ++i;
  }
  return t.size();
}

}  // namespace

void check_toml_text(std::string_view t, const std::string& name) {
  if (t.size() > kMaxScenarioBytes)
    throw Error(name + ": scenario text is " + std::to_string(t.size()) +
                " bytes, more than the limit of " + std::to_string(kMaxScenarioBytes));
  // Depth a line reaches = dots of the last [table] header + open brackets + dots in the key
  // being read. Dots are counted per run between separators, which also counts the dot of a
  // float such as 1.5 (one level, harmless) but never a dot inside a string.
  std::size_t line = 1;
  int brackets = 0, header_dots = 0, run_dots = 0;
  bool line_start = true, in_header = false;
  auto check = [&] {
    if (header_dots + brackets + run_dots > kMaxTomlDepth)
      throw Error(name + ":" + std::to_string(line) + ": TOML nested more than " +
                  std::to_string(kMaxTomlDepth) +
                  " levels deep (tables, arrays, inline tables and dotted keys)");
  };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == ' ' || c == '\t' || c == '\r') continue;
    const bool was_line_start = line_start;
    line_start = false;
    switch (c) {
      case '\n':
        ++line;
        run_dots = 0;
        line_start = true;
        break;
      case '#':
        while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
        break;
      case '"':
      case '\'':
        i = skip_string(t, i, line) - 1;
        break;
      case '.':
        ++run_dots;
        check();
        break;
      case '[':
        if (was_line_start && brackets == 0) {
          in_header = true;
          header_dots = 0;
        }
        ++brackets;
        run_dots = 0;
        check();
        break;
      case '{':
        ++brackets;
        run_dots = 0;
        check();
        break;
      case ']':
      case '}':
        if (in_header && c == ']') header_dots = std::max(header_dots, run_dots);
        brackets = std::max(0, brackets - 1);
        if (brackets == 0) in_header = false;
        run_dots = 0;
        break;
      case '=':
      case ',':
        run_dots = 0;
        break;
      default:
        break;
    }
  }
}

std::string escape_control(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  static const char hex[] = "0123456789abcdef";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::optional<std::uint64_t> parse_memory_limit(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  // cgroup v1 spells "unlimited" as a page-rounded INT64_MAX.
  if (v >= (std::uint64_t(1) << 62)) return std::nullopt;
  return v;
}

namespace {

std::optional<std::uint64_t> read_limit(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string s;
  std::getline(in, s);
  return parse_memory_limit(s);
}

// The cgroup files that may limit this process: the namespace root's and, from
// /proc/self/cgroup, this process's own group (v2 "0::/path", v1 "N:memory:/path").
std::vector<std::string> cgroup_limit_files() {
  std::vector<std::string> files = {"/sys/fs/cgroup/memory.max",
                                    "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
  std::ifstream in("/proc/self/cgroup");
  for (std::string l; std::getline(in, l);) {
    const auto a = l.find(':'), b = l.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctl = l.substr(a + 1, b - a - 1), path = l.substr(b + 1);
    if (path.find("..") != std::string::npos || path.size() <= 1) continue;
    if (ctl.empty()) files.push_back("/sys/fs/cgroup" + path + "/memory.max");
    if (ctl == "memory") files.push_back("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
  }
  return files;
}

}  // namespace

std::optional<std::uint64_t> available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("MemAvailable:", 0) != 0) continue;
    std::uint64_t kib = 0;
    const char* b = l.data() + 13;
    while (*b == ' ') ++b;
    const auto [ptr, ec] = std::from_chars(b, l.data() + l.size(), kib);
    if (ec != std::errc() || ptr == b) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

std::uint64_t memory_limit_bytes() {
  std::uint64_t limit = ~std::uint64_t(0);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) limit = std::uint64_t(pages) * std::uint64_t(page);
  for (const auto& f : cgroup_limit_files()) {
    if (auto l = read_limit(f)) limit = std::min(limit, *l);
  }
  if (const char* env = std::getenv("BOIDS_MEMORY_LIMIT")) {
    if (auto l = parse_memory_limit(env)) limit = std::min(limit, *l);
  }
  return limit;
}

void check_state_values(const State& s, const WorldDef& def, const std::string& what) {
  const double hi = max_magnitude(def.precision);
  const std::vector<double>* comps[6] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz};
  for (int c = 0; c < 6; ++c) {
    const std::vector<double>& v = *comps[c];
    for (std::size_t r = 0; r < v.size(); ++r) {
      if (std::isfinite(v[r]) && std::fabs(v[r]) > hi) {
        std::ostringstream os;
        os << what << ": " << (c < 3 ? "position" : "velocity") << " of row " << r << " is " << v[r]
           << ", more than " << hi << " in magnitude (the limit in a "
           << (def.precision == Precision::f32 ? "float" : "double") << " world)";
        throw Error(os.str());
      }
    }
  }
}

std::uint64_t bytes_per_boid(const WorldDef& def) {
  // An upper bound on the peak of a run (docs/engine.md, "Memory"): a store is six columns
  // of reals (z too, in 2D), a u32 id and a u8 kind. The grid and cluster engines hold two
  // stores (state, step input), cell starts (at most 2 cells per boid: 8) and per-block
  // histograms (at most 4 entries per boid: 16); the id-order copy behind World::positions()
  // (metrics, H5MD, Python views) is one more store. A State (7 doubles) passes through
  // set_state and --init; its share also covers the extra store of a population change.
  // Writing --out, snapshots and recordings streams and adds nothing per boid.
  const std::uint64_t real = def.precision == Precision::f64 ? 8 : 4;
  const std::uint64_t store = 6 * real + 5;
  return 3 * store + 24 + 56;
}

void check_boid_count(std::uint64_t boids, const WorldDef& def, const std::string& key) {
  if (boids > kMaxBoids)
    throw Error(key + ": " + std::to_string(boids) + " boids, more than the limit of " +
                std::to_string(kMaxBoids));
  // The limit, and the memory the kernel says is available now (other processes hold the
  // rest): a run that would need more is refused here rather than killed later.
  double budget = 0.85 * double(memory_limit_bytes());
  if (const auto avail = available_memory_bytes()) budget = std::min(budget, 0.9 * double(*avail));
  const double need = double(boids) * double(bytes_per_boid(def));
  if (need > budget) {
    std::ostringstream os;
    os.precision(3);
    os << key << ": " << boids << " boids need about " << need / double(1 << 30)
       << " GiB, more than the " << budget / double(1 << 30)
       << " GiB this process may use (85% of physical memory or the cgroup limit, at most 90% of "
          "the memory available now)";
    throw Error(os.str());
  }
}

}  // namespace boids
