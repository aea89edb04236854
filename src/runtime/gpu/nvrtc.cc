// NVRTC loading and compilation.
#include "runtime/gpu/nvrtc.h"

#include <cstdlib>
#include <functional>

#include "runtime/gpu/library_loader.h"

namespace jft::runtime::gpu {
namespace {

std::string resultText(const Nvrtc& nvrtc, nvrtcResult result) {
  const char* text = nvrtc.getErrorString(result);
  return std::string(text != nullptr ? text : "NVRTC error") + " (" +
         std::to_string(result) + ")";
}

// Destroys the program on every path out of compileToCubin.
struct ProgramGuard {
  const Nvrtc& nvrtc;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr) nvrtc.destroyProgram(&program);
  }
};

std::string programLog(const Nvrtc& nvrtc, nvrtcProgram program) {
  size_t size = 0;
  if (nvrtc.getProgramLogSize(program, &size) != kNvrtcSuccess || size == 0) return "";
  std::string log(size, '\0');
  if (nvrtc.getProgramLog(program, log.data()) != kNvrtcSuccess) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::vector<std::string> Nvrtc::candidates() {
  std::vector<std::string> names;
  if (const char* dir = std::getenv("JFT_NVRTC_DIR"); dir != nullptr && *dir != '\0') {
    names.push_back(std::string(dir) + "/libnvrtc.so.13");
    names.push_back(std::string(dir) + "/libnvrtc.so.12");
  }
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    names.emplace_back(name);
  return names;
}

StatusOr<const Nvrtc*> Nvrtc::load() {
  static const StatusOr<const Nvrtc*> library = []() -> StatusOr<const Nvrtc*> {
    StatusOr<Nvrtc*> opened = openVendorLibrary<Nvrtc>(
        "JFT_NVRTC_LIBRARY", candidates(), "NVRTC",
        "the nvidia-cuda-nvrtc wheel (then point JFT_NVRTC_DIR at its lib folder)");
    if (!opened.isOk()) return opened.status();
    return static_cast<const Nvrtc*>(*opened);
  }();
  return library;
}

StatusOr<NvrtcVersion> nvrtcVersion() {
  JFT_ASSIGN_OR_RETURN(const Nvrtc* nvrtc, Nvrtc::load());
  NvrtcVersion version;
  const nvrtcResult result = nvrtc->version(&version.major, &version.minor);
  if (result != kNvrtcSuccess)
    return internalError("nvrtcVersion: " + resultText(*nvrtc, result));
  return version;
}

StatusOr<std::string> compileToCubin(const std::string& source,
                                     const std::string& program_name, int arch,
                                     const std::vector<std::string>& extra_options) {
  if (arch <= 0)
    return invalidArgument("NVRTC: bad GPU architecture " + std::to_string(arch));
  JFT_ASSIGN_OR_RETURN(const Nvrtc* nvrtc, Nvrtc::load());
  ProgramGuard guard{*nvrtc};
  const std::string file = program_name + ".cu";
  nvrtcResult result = nvrtc->createProgram(&guard.program, source.c_str(), file.c_str(),
                                            0, nullptr, nullptr);
  if (result != kNvrtcSuccess)
    return internalError("nvrtcCreateProgram(" + program_name +
                         "): " + resultText(*nvrtc, result));
  // A cubin (not PTX) for exactly this architecture: sm_NN, not compute_NN.
  std::vector<std::string> options{"--gpu-architecture=sm_" + std::to_string(arch),
                                   "--std=c++17"};
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  result = nvrtc->compileProgram(guard.program, static_cast<int>(pointers.size()),
                                 pointers.data());
  if (result != kNvrtcSuccess) {
    const std::string log = programLog(*nvrtc, guard.program);
    return internalError("NVRTC could not compile " + program_name + " for sm_" +
                         std::to_string(arch) + ": " + resultText(*nvrtc, result) +
                         (log.empty() ? "" : "\n" + log));
  }
  size_t size = 0;
  result = nvrtc->getCubinSize(guard.program, &size);
  if (result != kNvrtcSuccess || size == 0)
    return internalError("nvrtcGetCUBINSize(" + program_name + "): " +
                         (result != kNvrtcSuccess ? resultText(*nvrtc, result)
                                                  : std::string("empty cubin")));
  std::string cubin(size, '\0');
  result = nvrtc->getCubin(guard.program, cubin.data());
  if (result != kNvrtcSuccess)
    return internalError("nvrtcGetCUBIN(" + program_name +
                         "): " + resultText(*nvrtc, result));
  return cubin;
}

}  // namespace jft::runtime::gpu
