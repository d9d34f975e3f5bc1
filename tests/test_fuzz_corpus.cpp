// Replays every committed fuzz corpus file (tests/fuzz/corpus/<target>/) through the fuzz
// targets' bodies, in every build (Release, ASan+UBSan), so inputs that once crashed stay
// regression tests even where clang's libFuzzer is not available.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz/fuzz_targets.hpp"

namespace {

std::size_t replay(const char* target, void (*fn)(const std::uint8_t*, std::size_t)) {
  const std::filesystem::path dir =
      std::filesystem::path(BOIDS_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target;
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    INFO(e.path().string());
    CHECK_NOTHROW(fn(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    ++files;
  }
  return files;
}

}  // namespace

TEST_CASE("every committed fuzz corpus file runs clean", "[fuzz][input]") {
  CHECK(replay("scenario", &boids::fuzz::scenario) >= 5);
  CHECK(replay("state_csv", &boids::fuzz::state_csv) >= 3);
  CHECK(replay("snapshot", &boids::fuzz::snapshot) >= 2);
  CHECK(replay("c_api", &boids::fuzz::c_api) >= 5);
}
