#include "kernel_compiler/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace jft::kernel_compiler {
namespace {

constexpr size_t kStderrTailBytes = 8192;

std::string errnoText(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> merged;
  auto overridden = [&](std::string_view entry) {
    std::string_view name = entry.substr(0, entry.find('='));
    for (const std::string& e : extra) {
      if (std::string_view(e).substr(0, e.find('=')) == name) return true;
    }
    return false;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!overridden(*e)) merged.emplace_back(*e);
  }
  merged.insert(merged.end(), extra.begin(), extra.end());
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (std::string& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

int millisecondsUntil(Deadline deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

std::string describeWaitStatus(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "ended (wait status " + std::to_string(status) + ")";
}

}  // namespace

StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::spawn(
    const WorkerCommand& command) {
  if (command.argv.empty()) return invalidArgument("empty worker command");
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    return unavailable(errnoText("socketpair"));
  }
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(channel[0]);
    ::close(channel[1]);
    return unavailable(errnoText("pipe2"));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, channel[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, channel[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGINT);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  // The spawning thread may block signals for its own reasons; the worker
  // starts with none blocked.
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                            POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> argv_strings = command.argv;
  std::vector<std::string> env_strings = mergedEnvironment(command.extra_env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(channel[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(channel[0]);
    ::close(err_pipe[0]);
    return unavailable("cannot start compile worker '" + command.argv[0] +
                       "': " + std::strerror(rc));
  }
  fcntl(channel[0], F_SETFL, fcntl(channel[0], F_GETFL) | O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(pid, channel[0], err_pipe[0]));
}

WorkerProcess::WorkerProcess(pid_t pid, int channel, int stderr_fd)
    : pid_(pid), owner_pid_(::getpid()), channel_(channel), stderr_fd_(stderr_fd) {}

bool WorkerProcess::inForkedChild() const {
  return ::getpid() != owner_pid_;
}

WorkerProcess::~WorkerProcess() {
  kill();
}

void WorkerProcess::drainStderr() {
  if (stderr_fd_ < 0) return;
  char buffer[4096];
  while (true) {
    ssize_t n = ::read(stderr_fd_, buffer, sizeof buffer);
    if (n > 0) {
      stderr_tail_.append(buffer, static_cast<size_t>(n));
      if (stderr_tail_.size() > 2 * kStderrTailBytes) {
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrTailBytes);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // the child closed stderr (it is exiting)
      ::close(stderr_fd_);
      stderr_fd_ = -1;
    }
    return;
  }
}

Status WorkerProcess::waitFor(short events, Deadline deadline) {
  while (true) {
    pollfd fds[2] = {{channel_, events, 0}, {stderr_fd_, POLLIN, 0}};
    int count = stderr_fd_ >= 0 ? 2 : 1;
    int rc = ::poll(fds, count, millisecondsUntil(deadline));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return internalError(errnoText("poll"));
    }
    if (count == 2 && fds[1].revents != 0) drainStderr();
    if (fds[0].revents != 0) return Status::ok();
    if (rc == 0 || millisecondsUntil(deadline) == 0) {
      return Status(StatusCode::kDeadlineExceeded,
                    "timed out waiting for the compile worker");
    }
  }
}

std::string WorkerProcess::reapAfterHangup() {
  if (pid_ <= 0) return end_description_;
  // The channel closed: the child is exiting. Give it a moment, then make sure.
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done < 0 && errno == ECHILD) {  // the host ignores SIGCHLD: already reaped
      pid_ = -1;
      end_description_ = "exited";
      return end_description_;
    }
    if (done == pid_) {
      drainStderr();
      pid_ = -1;
      end_description_ = describeWaitStatus(status);
      return end_description_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill();
  end_description_ = "closed its output and was killed";
  return end_description_;
}

Status WorkerProcess::goneError(const std::string& while_doing) {
  pid_t pid = pid_;
  std::string how = reapAfterHangup();
  closeChannels();
  std::string message =
      "compile worker (pid " + std::to_string(pid) + ") " + how + " while " + while_doing;
  if (!stderr_tail_.empty()) message += "; its stderr ends with:\n" + stderr_tail_;
  return unavailable(message);
}

Status WorkerProcess::readExactly(size_t count, std::string& out, Deadline deadline) {
  size_t start = out.size();
  out.resize(start + count);
  size_t done = 0;
  while (done < count) {
    ssize_t n = ::read(channel_, out.data() + start + done, count - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return goneError("we read its answer");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return goneError(errnoText("reading"));
    JFT_RETURN_IF_ERROR(waitFor(POLLIN, deadline));
  }
  return Status::ok();
}

Status WorkerProcess::sendFrame(const Json& header, std::string_view payload,
                                Deadline deadline) {
  if (!alive()) return unavailable("compile worker is not running");
  std::string bytes = encodeFrame(header, payload);
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(channel_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      JFT_RETURN_IF_ERROR(waitFor(POLLOUT, deadline));
      continue;
    }
    return goneError("we sent it a request");
  }
  return Status::ok();
}

StatusOr<Frame> WorkerProcess::receiveFrame(Deadline deadline) {
  if (!alive()) return unavailable("compile worker is not running");
  std::string bytes;
  JFT_RETURN_IF_ERROR(readExactly(kFramePrefixBytes, bytes, deadline));
  auto prefix = decodeFramePrefix(bytes);
  if (!prefix.isOk()) return Status(StatusCode::kDataLoss, prefix.status().message());
  JFT_RETURN_IF_ERROR(
      readExactly(prefix->header_bytes + prefix->payload_bytes, bytes, deadline));
  auto frame = decodeFrame(bytes);
  if (!frame.isOk()) return Status(StatusCode::kDataLoss, frame.status().message());
  return std::move(frame).value();
}

void WorkerProcess::requestShutdown(Deadline deadline) {
  if (!alive() || inForkedChild()) return;
  if (!sendFrame(shutdownRequestHeader(), {}, deadline).isOk()) kill();
}

void WorkerProcess::finishShutdown(Deadline deadline) {
  if (!alive() || inForkedChild()) {
    kill();
    return;
  }
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill();
}

void WorkerProcess::shutdown(std::chrono::milliseconds grace) {
  Deadline deadline = std::chrono::steady_clock::now() + grace;
  requestShutdown(deadline);
  finishShutdown(deadline);
}

void WorkerProcess::kill() {
  if (pid_ > 0 && inForkedChild()) pid_ = -1;  // only our copies of the channels go
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);  // the whole group: ptxas and friends too
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    end_description_ = "was killed";
  }
  closeChannels();
}

void WorkerProcess::closeChannels() {
  if (channel_ >= 0) ::close(channel_);
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
  channel_ = -1;
  stderr_fd_ = -1;
}

}  // namespace jft::kernel_compiler
