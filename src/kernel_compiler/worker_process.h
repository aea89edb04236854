// One compile worker process and the two channels to it.
//
// The child's stdin and stdout are one end of a Unix socket pair (so that a
// write to a dead worker fails with EPIPE instead of raising SIGPIPE in the
// host), its stderr a pipe that we drain while waiting so the child never
// blocks on it; the last few kilobytes are kept for error messages. The child
// leads its own process group: a terminal's Ctrl-C does not reach it, and
// kill() takes down whatever it started (ptxas) with it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_compiler/protocol.h"
#include "support/status.h"

namespace jft::kernel_compiler {

using Deadline = std::chrono::steady_clock::time_point;

struct WorkerCommand {
  std::vector<std::string> argv;       // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> extra_env;  // "NAME=value", replacing inherited NAME
};

class WorkerProcess {
 public:
  static StatusOr<std::unique_ptr<WorkerProcess>> spawn(const WorkerCommand& command);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Errors: UNAVAILABLE when the worker has gone away (message says how it
  // ended), DEADLINE_EXCEEDED on timeout, DATA_LOSS for a malformed stream.
  Status sendFrame(const Json& header, std::string_view payload, Deadline deadline);
  StatusOr<Frame> receiveFrame(Deadline deadline);

  // Asks for a clean exit (shutdown message), waits up to grace, then kills.
  void shutdown(std::chrono::milliseconds grace);
  // The two halves of shutdown(), so that a pool can ask all its workers
  // first and wait once.
  void requestShutdown(Deadline deadline);
  void finishShutdown(Deadline deadline);
  // SIGKILL to the worker's process group, then reaps it. Idempotent.
  void kill();

  pid_t pid() const { return pid_; }
  bool alive() const { return pid_ > 0; }
  const std::string& stderrTail() const { return stderr_tail_; }

 private:
  WorkerProcess(pid_t pid, int channel, int stderr_fd);
  // True in a fork() of the process that spawned the worker: the worker is
  // the parent's, and must be neither signalled nor told to exit from here.
  bool inForkedChild() const;

  // Waits until the channel is ready for `events` (POLLIN/POLLOUT) while
  // draining stderr.
  Status waitFor(short events, Deadline deadline);
  Status readExactly(size_t count, std::string& out, Deadline deadline);
  void drainStderr();
  // Reaps the exited child; returns "exited with status N" or similar.
  std::string reapAfterHangup();
  Status goneError(const std::string& while_doing);
  void closeChannels();

  pid_t pid_ = -1;
  pid_t owner_pid_ = -1;
  int channel_ = -1;
  int stderr_fd_ = -1;
  std::string stderr_tail_;
  std::string end_description_;
};

}  // namespace jft::kernel_compiler
