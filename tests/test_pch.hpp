// The headers most test files include, compiled once per build tree as boids_tests' precompiled
// header (tests/CMakeLists.txt): Catch2 v2's single header alone costs each test file about
// 1.5 s of CPU to parse, half its compile time at -O1, in each of CI's three builds. Test
// files still include what they use; this header only makes those includes cheap.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"
