// The command line that runs fake_worker.py, with the protocol module on PYTHONPATH.
#pragma once

#include <string>

#include "kernel_compiler/worker_pool.h"

namespace jft::kernel_compiler::testing {

inline WorkerCommand fakeWorkerCommand(const std::string& mode = "",
                                       const std::string& log_path = "") {
  WorkerCommand command;
  command.argv = {JFT_PYTHON3, JFT_FAKE_WORKER};
  command.extra_env = {std::string("PYTHONPATH=") + JFT_PYTHON_DIR + "/jax_flagtree",
                       "FAKE_WORKER_MODE=" + mode, "FAKE_WORKER_LOG=" + log_path};
  return command;
}

inline WorkerPoolOptions fakePoolOptions(int workers, const std::string& dump_dir,
                                         const std::string& mode = "",
                                         const std::string& log_path = "") {
  WorkerPoolOptions options;
  options.command = fakeWorkerCommand(mode, log_path);
  options.num_workers = workers;
  options.startup_timeout = std::chrono::milliseconds(20000);
  options.compile_timeout = std::chrono::milliseconds(20000);
  options.dump_dir = dump_dir;
  return options;
}

// A TTIR kernel named `name` with two f32 pointers and an i32, plus directives.
inline std::string fakeTtir(const std::string& name, const std::string& directives = "") {
  return directives + "module {\n  tt.func public @" + name +
         "(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %y: !tt.ptr<f32>, %n: i32) "
         "attributes {noinline = false} {\n    tt.return\n  }\n}\n";
}

}  // namespace jft::kernel_compiler::testing
