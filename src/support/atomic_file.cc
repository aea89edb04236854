#include "support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace jft {
namespace {

Status ioError(const std::string& what, const std::string& path) {
  return unavailable(what + " '" + path + "': " + std::strerror(errno));
}

std::string temporaryNameFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  // pid + counter: unique among threads and among processes sharing the cache.
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

Status writeAll(int fd, std::string_view bytes, const std::string& path) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ioError("cannot write", path);
    written += static_cast<size_t>(n);
  }
  return Status::ok();
}

}  // namespace

Status writeFileAtomically(const std::string& path, std::string_view bytes) {
  std::string temporary = temporaryNameFor(path);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ioError("cannot create", temporary);
  Status status = writeAll(fd, bytes, temporary);
  if (status.isOk() && ::fsync(fd) != 0) status = ioError("cannot flush", temporary);
  if (::close(fd) != 0 && status.isOk()) status = ioError("cannot close", temporary);
  if (status.isOk() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = ioError("cannot rename a temporary file onto", path);
  }
  if (!status.isOk()) ::unlink(temporary.c_str());
  return status;
}

StatusOr<std::string> readWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return notFound("no file '" + path + "'");
    return ioError("cannot open", path);
  }
  std::string contents;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status error = ioError("cannot read", path);
      ::close(fd);
      return error;
    }
    if (n == 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return contents;
}

Status makeDirectories(const std::string& path) {
  if (path.empty()) return invalidArgument("empty directory path");
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return ioError("cannot create directory", prefix);
    }
    if (slash == std::string::npos) break;
  }
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return unavailable("'" + path + "' is not a directory");
  }
  return Status::ok();
}

}  // namespace jft
