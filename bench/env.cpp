// What the run was measured on (CPU, compiler, build, commit), peak memory, and the
// progress display.
#include <sys/resource.h>
#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/bench.hpp"
#include "boids/world.hpp"

#ifndef BOIDS_BUILD_TYPE
#define BOIDS_BUILD_TYPE "unknown"
#endif
#ifndef BOIDS_GIT_COMMIT
#define BOIDS_GIT_COMMIT ""
#endif
#ifndef BOIDS_SOURCE_DIR
#define BOIDS_SOURCE_DIR "."
#endif

namespace boids::bench {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// First line of a command's standard output, "" when it fails.
std::string command_line_output(const std::string& cmd) {
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[256];
  std::string out;
  if (std::fgets(buf, sizeof buf, p)) out = buf;
  const int rc = pclose(p);
  return rc == 0 ? trim(out) : std::string();
}

std::string git_commit() {
  std::string c = command_line_output("git -C '" BOIDS_SOURCE_DIR
                                      "' describe --always --dirty --abbrev=12 2>/dev/null");
  if (!c.empty()) return c;
  c = BOIDS_GIT_COMMIT;
  if (!c.empty()) return c + " (at configure time)";
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

}  // namespace

Environment collect_environment() {
  Environment e;
  e.cores = int(std::thread::hardware_concurrency());
  std::ifstream cpu("/proc/cpuinfo");
  for (std::string line; std::getline(cpu, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "model name" && e.cpu_model.empty()) e.cpu_model = value;
    if (key == "flags" && e.simd_flags.empty()) {
      std::istringstream fs(value);
      for (std::string f; fs >> f;) {
        if (f == "sse4_2" || f == "avx" || f == "avx2" || f == "fma" || f == "avx512f" ||
            f == "avx512bw" || f == "avx512vl" || f == "avx512dq")
          e.simd_flags += (e.simd_flags.empty() ? "" : " ") + f;
      }
    }
  }
  if (e.cpu_model.empty()) e.cpu_model = "unknown";
  e.compiler = compiler();
  e.build_type = BOIDS_BUILD_TYPE;
  e.git_commit = git_commit();
  e.boids_version = version();
  utsname u{};
  if (uname(&u) == 0) e.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  const std::time_t now = std::time(nullptr);
  char ts[32];
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
  e.timestamp_utc = ts;
  e.load_start = load_average();
  return e;
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  if (!(in >> l)) return -1;
  return l;
}

bool reset_peak_rss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

double peak_rss_bytes() {
  std::ifstream st("/proc/self/status");
  for (std::string line; std::getline(st, line);) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream is(line.substr(6));
      double kb = 0;
      if (is >> kb) return kb * 1024;
    }
  }
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) return double(ru.ru_maxrss) * 1024;
  return 0;
}

// ---------------------------------------------------------------------------------------------

namespace {
double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

std::string render_bar(std::size_t done, std::size_t total, double elapsed_s,
                       std::string_view label, int width) {
  const double frac = total ? double(done) / double(total) : 1.0;
  const int cells = 24;
  const int full = int(frac * cells + 1e-9);
  std::string bar = "[";
  for (int i = 0; i < cells; ++i) bar += i < full ? '#' : '.';
  bar += "]";
  char info[64];
  const int secs = int(elapsed_s);
  std::snprintf(info, sizeof info, " %zu/%zu %3d%% %d:%02d ", done, total, int(frac * 100 + 1e-9),
                secs / 60, secs % 60);
  std::string line = bar + info + std::string(label);
  if (width > 0 && int(line.size()) > width) line.resize(std::size_t(width));
  return line;
}

Progress::Progress(std::FILE* out, std::size_t total, bool tty, bool quiet)
    : out_(out), total_(total), tty_(tty), quiet_(quiet), t0_(now_s()) {
  if (tty_ && !quiet_) {
    ticker_ = std::thread([this] {
      std::unique_lock lock(mu_);
      while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) draw();
    });
  }
}

Progress::~Progress() { finish(); }

void Progress::draw() {
  std::fprintf(out_, "\r\033[K%s", render_bar(done_, total_, now_s() - t0_, label_, 100).c_str());
  std::fflush(out_);
}

void Progress::begin(std::size_t index, const std::string& label) {
  if (quiet_ || !tty_) return;
  std::lock_guard lock(mu_);
  done_ = index;
  label_ = label;
  draw();
}

void Progress::end(std::size_t index, const std::string& line) {
  if (quiet_) return;
  std::lock_guard lock(mu_);
  if (tty_) {
    // Keep a record of each finished configuration above the live bar.
    std::fprintf(out_, "\r\033[K  %s\n", line.c_str());
    done_ = index + 1;
    label_.clear();
    draw();
  } else {
    std::fprintf(out_, "[%zu/%zu] %s\n", index + 1, total_, line.c_str());
    std::fflush(out_);
  }
}

void Progress::finish() {
  {
    std::lock_guard lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  if (!quiet_ && tty_) std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace boids::bench
