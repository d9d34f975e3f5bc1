// One libFuzzer entry point per target, chosen by BOIDS_FUZZ_TARGET at compile time.
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  boids::fuzz::BOIDS_FUZZ_TARGET(data, size);
  return 0;
}
