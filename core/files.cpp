#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "boids/world.hpp"

namespace boids {

namespace {

std::string reason() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Closes a descriptor on every path out of read_input_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, const char* what, std::uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0 && errno == ENOENT) throw Error(path + ": cannot open " + what);
  if (f.fd < 0) throw Error(path + ": cannot open " + what + " (" + reason() + ")");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw Error(path + ": cannot read " + what + " (" + reason() + ")");
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a " + what);
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": is not a regular file (a device, FIFO or socket), not a " + what);
  if (std::uint64_t(st.st_size) > max_bytes)
    throw Error(path + ": " + what + " is " + std::to_string(st.st_size) +
                " bytes, more than the limit of " + std::to_string(max_bytes));
  std::string out(std::size_t(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::read(f.fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Error(path + ": cannot read " + what + " (" + reason() + ")");
    if (r == 0) break;  // shrank while reading: take what is there
    got += std::size_t(r);
  }
  out.resize(got);
  return out;
}

AtomicFile::AtomicFile(const std::string& path, std::size_t buffer_bytes) : path_(path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(path + ": cannot write here (it is a directory)");
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(path + ": cannot write here (not a regular file)");
  // A unique name in the target's directory (rename is atomic only within one file system):
  // the pid tells processes apart, the counter calls within one process, O_EXCL a stale file
  // left by a crashed process that had the same pid.
  static std::atomic<std::uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp_ = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw Error(path + ": cannot write here (" + reason() + ")");
    f_ = ::fdopen(fd, "wb");
    if (!f_) {
      const std::string why = reason();
      ::close(fd);
      ::unlink(tmp_.c_str());
      throw Error(path + ": cannot write here (" + why + ")");
    }
    if (buffer_bytes != 0) {
      buffer_ = std::make_unique<char[]>(buffer_bytes);
      std::setvbuf(f_, buffer_.get(), _IOFBF, buffer_bytes);
    }
    return;
  }
  throw Error(path + ": cannot write here (no free temporary name)");
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (!f_) return;
  std::fclose(f_);
  f_ = nullptr;
  ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!f_) throw Error(path_ + ": write after commit");
  if (bytes != 0 && std::fwrite(data, 1, bytes, f_) != bytes)
    throw Error(path_ + ": write failed (" + reason() + ")");
}

void AtomicFile::commit() {
  if (!f_) throw Error(path_ + ": committed twice");
  if (std::fflush(f_) != 0 || std::ferror(f_) || ::fsync(::fileno(f_)) != 0) {
    const std::string why = reason();
    discard();
    throw Error(path_ + ": write failed (" + why + ")");
  }
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!closed) {
    const std::string why = reason();
    ::unlink(tmp_.c_str());
    throw Error(path_ + ": write failed (" + why + ")");
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const std::string why = reason();
    ::unlink(tmp_.c_str());
    throw Error(path_ + ": cannot replace the file (" + why + ")");
  }
  // Make the rename itself durable. Some file systems refuse fsync on a directory: the data
  // is already safe then, so that is not an error.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicFile f(path);
  f.write(contents);
  f.commit();
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("output path is empty");
  AtomicFile probe(path);  // created and removed again: the directory takes new files
}

}  // namespace boids
