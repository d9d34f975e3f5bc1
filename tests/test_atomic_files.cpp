// Atomic writes (core/files.hpp): unique temporary names, nothing left behind, the target
// untouched on failure, and early refusal of outputs that cannot be written.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "boids/world.hpp"
#include "core/files.hpp"

using Catch::Matchers::Contains;

namespace {

std::string dir_for(const std::string& name) {
  const std::string d = "/tmp/boids_atomic_" + std::to_string(::getpid()) + "_" + name;
  ::mkdir(d.c_str(), 0755);
  return d;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void remove_all(const std::string& dir) {
  for (const auto& e : entries(dir)) std::remove((dir + "/" + e).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace

TEST_CASE("two writes of one process never share a temporary file", "[files]") {
  const std::string dir = dir_for("unique");
  const std::string path = dir + "/out.csv";
  {
    boids::AtomicFile a(path), b(path);
    CHECK(a.temp_path() != b.temp_path());
    CHECK(a.temp_path().rfind(path, 0) == 0);  // same directory as the target
    a.write("first\n");
    b.write("second\n");
    b.commit();
    a.commit();
  }
  CHECK(slurp(path) == "first\n");
  CHECK(entries(dir) == std::vector<std::string>{"out.csv"});
  // Many threads writing one path: every result is one whole write, nothing is left over.
  std::vector<std::thread> ts;
  std::vector<std::string> errors(8);
  for (int t = 0; t < 8; ++t) {
    ts.emplace_back([&, t] {
      try {
        for (int i = 0; i < 40; ++i)
          boids::write_file_atomically(path, std::string(1000 + t, char('a' + t)));
      } catch (const std::exception& e) {
        errors[std::size_t(t)] = e.what();
      }
    });
  }
  for (auto& t : ts) t.join();
  for (const auto& e : errors) CHECK(e.empty());
  const std::string got = slurp(path);
  REQUIRE(got.size() >= 1000);
  CHECK(got == std::string(got.size(), got[0]));
  CHECK(got.size() == 1000 + std::size_t(got[0] - 'a'));
  CHECK(entries(dir) == std::vector<std::string>{"out.csv"});
  remove_all(dir);
}

TEST_CASE("an unfinished write leaves the target untouched and no temporary file", "[files]") {
  const std::string dir = dir_for("abort");
  const std::string path = dir + "/state.csv";
  boids::write_file_atomically(path, "old\n");
  {
    boids::AtomicFile f(path);
    f.write("new, but never committed\n");
  }
  CHECK(slurp(path) == "old\n");
  CHECK(entries(dir) == std::vector<std::string>{"state.csv"});
  remove_all(dir);
}

TEST_CASE("outputs that cannot be written are refused up front", "[files]") {
  const std::string dir = dir_for("refuse");
  REQUIRE_THROWS_WITH(boids::check_output_path(dir),
                      Contains(dir + ": cannot write here") && Contains("directory"));
  REQUIRE_THROWS_WITH(boids::check_output_path(dir + "/missing/x.csv"),
                      Contains(dir + "/missing/x.csv: cannot write here"));
  REQUIRE_THROWS_WITH(boids::check_output_path("/dev/null"), Contains("not a regular file"));
  boids::check_output_path(dir + "/fine.csv");
  CHECK(entries(dir).empty());  // the probe leaves nothing behind
  remove_all(dir);
}
