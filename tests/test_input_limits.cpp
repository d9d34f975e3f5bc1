// Crash-proof input (issue 12): depth and size caps before parsing, regular-file checks,
// memory caps before allocating, float-overflow refusal, u64 seeds, escaped control bytes.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "boids/world.hpp"
#include "core/engine.hpp"
#include "core/input_limits.hpp"
#include "core/scenario.hpp"
#include "core/snapshot.hpp"
#include "core/state_csv.hpp"

using Catch::Matchers::Contains;

namespace {

std::string tmp(const std::string& name) {
  return "/tmp/boids_limits_" + std::to_string(::getpid()) + "_" + name;
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A key with `parts` dotted parts, far deeper than any stack survives unchecked.
// The pieces joined by appending. (GCC 12 at -O2 reports a false -Wrestrict overlap in
// `"[" + std::string&&` when the string is this long, which -Werror turns into an error.)
std::string join(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& p : parts) out += p;
  return out;
}

std::string dotted(std::size_t parts) {
  std::string out = "a";
  out += repeat(".a", parts - 1);
  return out;
}

// Sets BOIDS_MEMORY_LIMIT for the life of the object.
struct MemoryLimit {
  explicit MemoryLimit(const char* bytes) { ::setenv("BOIDS_MEMORY_LIMIT", bytes, 1); }
  ~MemoryLimit() { ::unsetenv("BOIDS_MEMORY_LIMIT"); }
};

const std::string kSmall =
    "[world]\ndims = 2\nsize = 20.0\n[boids]\ncount = 5\n[rules]\nradius = 3.0\n"
    "separation_radius = 1.0\n[engine]\nthreads = 1\n";

}  // namespace

TEST_CASE("deeply nested or dotted TOML is refused before parsing", "[input]") {
  const std::size_t deep = 100000;  // unchecked, each of these overflows the stack
  const std::string cases[] = {
      join({dotted(deep), " = 1\n"}),                                          // dotted key
      join({"[", dotted(deep), "]\n"}),                                        // table header
      join({"[world]\nsize = ", repeat("[", deep), repeat("]", deep), "\n"}),  // nested arrays
      join({"x = ", repeat("{a = ", deep), "1", repeat("}", deep), "\n"}),     // inline tables
      join({"[[", dotted(deep), "]]\n"}),                                      // array of tables
  };
  for (const auto& text : cases) {
    REQUIRE_THROWS_WITH(boids::parse_scenario(text, "deep.toml"),
                        Contains("deep.toml:") && Contains("nested more than 16 levels"));
  }
  // The line of the offending key is named.
  REQUIRE_THROWS_WITH(boids::parse_scenario("[world]\n# c\n" + dotted(40) + " = 1\n", "d.toml"),
                      Contains("d.toml:3: TOML nested more than"));
  // Dots inside strings and comments do not count; a float's dot is one level.
  const std::string ok = "[world]\n# " + repeat(".", 100) + "\nsize = 50.5\n[boids]\ncount = 5\n" +
                         "\"" + repeat(".", 100) + "\" = 1\n";
  REQUIRE_THROWS_WITH(boids::parse_scenario(ok, "s.toml"), Contains("unknown key"));
  // Within the cap the parser runs and the schema answers.
  REQUIRE_THROWS_WITH(boids::parse_scenario(dotted(15) + " = 1\n", "s.toml"),
                      Contains("unknown section"));
}

TEST_CASE("overrides given with --set are capped like files", "[input]") {
  const std::string def(boids::default_scenario_text());
  REQUIRE_THROWS_WITH(boids::parse_scenario(def, "d", {dotted(200000) + "=1"}),
                      Contains("--set") && Contains("dotted parts"));
  REQUIRE_THROWS_WITH(
      boids::parse_scenario(def, "d", {"world.size=" + repeat("[", 100000) + repeat("]", 100000)}),
      Contains("--set world.size=") && Contains("nested more than"));
  REQUIRE_THROWS_WITH(boids::parse_scenario(def, "d", {"world.=3"}), Contains("section.key=value"));
}

TEST_CASE("scenario text larger than the limit is refused", "[input]") {
  const std::string big = "[world]\n# " + std::string(boids::kMaxScenarioBytes, 'x') + "\n";
  REQUIRE_THROWS_WITH(boids::parse_scenario(big, "big.toml"),
                      Contains("big.toml: scenario text is") && Contains("more than the limit"));
  const std::string path = tmp("big.toml");
  std::ofstream(path) << big;
  REQUIRE_THROWS_WITH(boids::load_scenario(path),
                      Contains(path + ": scenario file is") && Contains("more than the limit"));
  std::remove(path.c_str());
}

TEST_CASE("snapshots with deep embedded TOML are refused", "[input]") {
  const std::string toml = dotted(200000) + " = 1\n";
  std::string payload;
  auto put = [&](auto v) { payload.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(std::uint64_t(0));            // step count
  put(std::uint32_t(0));            // next id
  put(std::uint32_t(0));            // n
  put(std::uint32_t(3));            // dims
  put(std::uint32_t(4));            // bytes per value
  put(std::uint32_t(toml.size()));  // T
  put(std::uint32_t(0));            // reserved
  payload += toml;
  std::string file(boids::kSnapshotMagic, 8);
  auto put_file = [&](auto v) { file.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put_file(boids::kSnapshotVersion);
  put_file(std::uint32_t(0));
  put_file(std::uint64_t(payload.size()));
  put_file(boids::fnv1a(payload.data(), payload.size()));
  file += payload;
  REQUIRE_THROWS_WITH(boids::decode_snapshot(file, "deep.snap"),
                      Contains("deep.snap (embedded scenario)") && Contains("nested more than"));
}

TEST_CASE("directories and special files are errors naming them, never empty input", "[input]") {
  const std::string dir = tmp("dir");
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  REQUIRE_THROWS_WITH(boids::load_scenario(dir), Contains(dir + ": is a directory"));
  REQUIRE_THROWS_WITH(boids::read_state_csv(dir, 3, 5), Contains(dir + ": is a directory"));
  REQUIRE_THROWS_WITH(boids::World::load(dir), Contains(dir + ": is a directory"));
  ::rmdir(dir.c_str());
  // A FIFO with no writer: refused at once, not waited on.
  const std::string fifo = tmp("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  REQUIRE_THROWS_WITH(boids::load_scenario(fifo), Contains(fifo + ": is not a regular file"));
  std::remove(fifo.c_str());
  REQUIRE_THROWS_WITH(boids::load_scenario("/dev/zero"), Contains("/dev/zero: is not a regular"));
  REQUIRE_THROWS_WITH(boids::load_scenario(tmp("missing.toml")),
                      Contains("missing.toml: cannot open scenario file"));
}

TEST_CASE("a state file far larger than its boids could need is refused unread", "[input]") {
  const std::string path = tmp("huge.csv");
  {
    std::ofstream f(path);
    f << "id,x,y,vx,vy\n" << std::string(200000, ' ') << "\n";
  }
  REQUIRE_THROWS_WITH(boids::read_state_csv(path, 2, 3),
                      Contains(path + ": state file is") && Contains("more than the limit"));
  std::remove(path.c_str());
}

TEST_CASE("cgroup memory limits are read", "[input]") {
  CHECK_FALSE(boids::parse_memory_limit("max\n").has_value());
  CHECK(boids::parse_memory_limit("1073741824\n") == std::uint64_t(1) << 30);
  CHECK_FALSE(boids::parse_memory_limit("9223372036854771712\n").has_value());  // v1 unlimited
  CHECK_FALSE(boids::parse_memory_limit("").has_value());
  CHECK_FALSE(boids::parse_memory_limit("12abc").has_value());
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  CHECK(boids::memory_limit_bytes() <= std::uint64_t(pages) * std::uint64_t(page));
  MemoryLimit lim("123456789");
  CHECK(boids::memory_limit_bytes() == 123456789u);
}

TEST_CASE("counts that do not fit in memory are refused before allocating", "[input]") {
  boids::WorldDef d = boids::default_world_def();
  d.dims = 2;
  d.size = 50;
  d.count = 100;
  d.threads = 1;
  // The 32-bit limit holds whatever the memory: 2^31 boids are never accepted.
  boids::World w = boids::World::create(d);
  REQUIRE_THROWS_WITH(w.add_boids(0x7FFFFFFFu), Contains("more than the limit of 2147483647"));
  CHECK(w.count() == 100);
  {
    MemoryLimit lim("1000000");  // 1 MB: a few thousand boids
    d.count = 100000;
    REQUIRE_THROWS_WITH(boids::World::create(d), Contains("boids.count: 100000 boids need about") &&
                                                     Contains("GiB this process may use"));
    REQUIRE_THROWS_WITH(w.add_boids(100000), Contains("add_boids: count"));
    CHECK(w.count() == 100);
  }
}

TEST_CASE("numbers whose products overflow the world's precision are refused", "[input]") {
  REQUIRE_THROWS_WITH(boids::parse_scenario(kSmall, "s.toml", {"world.size=1e39"}),
                      Contains("--set world.size=1e39: world.size: must be at most 1e+12"));
  REQUIRE_THROWS_WITH(
      boids::parse_scenario(kSmall + "[motion]\ndt = 1e-30\n", "s.toml"),
      Contains("s.toml:12: motion.dt: must be at least 1e-12 in magnitude in a float world"));
  REQUIRE_THROWS_WITH(
      boids::parse_scenario(kSmall + "[behaviour]\nseek = 1e20\n", "s.toml"),
      Contains("s.toml:12: behaviour.seek: must be at most 1e+12 in magnitude in a float world"));
  boids::WorldDef d = boids::default_world_def();
  d.size = 1e39;
  REQUIRE_THROWS_WITH(boids::validate(d), Contains("world.size"));
  // A double world takes it, and the state stays finite.
  d = boids::parse_scenario(kSmall, "s.toml", {"world.size=1e39", "engine.precision=\"double\""});
  boids::World w = boids::World::create(d);
  w.step(3);
  for (double x : w.state().x) CHECK(std::isfinite(x));
}

TEST_CASE("seeds up to 2^64-1 round-trip through scenarios and snapshots", "[input]") {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t big = std::uint64_t(1) << 63;
  for (std::uint64_t seed : {max, big, big - 1, std::uint64_t(0)}) {
    boids::WorldDef d =
        boids::parse_scenario(kSmall, "s.toml", {"boids.seed=\"" + std::to_string(seed) + "\""});
    CHECK(d.seed == seed);
    CHECK(boids::parse_scenario(boids::scenario_to_toml(d), "t").seed == seed);
    const std::string snap = tmp("seed.snap");
    boids::World w = boids::World::create(d);
    w.step(2);
    w.save(snap);
    boids::World l = boids::World::load(snap);
    CHECK(l.def().seed == seed);
    CHECK(l.state_hash() == w.state_hash());
    std::remove(snap.c_str());
  }
  CHECK(boids::parse_scenario(kSmall, "s", {"boids.seed=18446744073709551615"}).seed == max);
  REQUIRE_THROWS_WITH(
      boids::parse_scenario(kSmall, "s", {"boids.seed=18446744073709551616"}),
      Contains("boids.seed: must be an integer between 0 and 18446744073709551615"));
  REQUIRE_THROWS_WITH(boids::parse_scenario(kSmall, "s", {"boids.seed=-1"}),
                      Contains("boids.seed: must be an integer"));
}

TEST_CASE("control bytes in input are escaped in messages", "[input]") {
  try {
    boids::parse_scenario("[world]\n\"a\\u0001\\u001b[31m\" = 1\n", "c.toml");
    FAIL("no error");
  } catch (const boids::Error& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Contains("c.toml:2: world.a\\x01\\x1b[31m: unknown key"));
    for (char c : m) CHECK(static_cast<unsigned char>(c) >= 0x20);
  }
  const std::string path = tmp("ctl.csv");
  std::ofstream(path) << "id,x,y,vx,vy\n0,1\x1b[2J,1,1,1\n";
  REQUIRE_THROWS_WITH(boids::read_state_csv(path, 2, 1),
                      Contains(path + ":2: column x: expected a number, got \"1\\x1b[2J\""));
  std::remove(path.c_str());
  CHECK(boids::escape_control("a\nb\x7f") == "a\\x0ab\\x7f");
}
