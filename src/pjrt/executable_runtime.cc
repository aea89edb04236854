// The production DeviceProgram: runtime::Executable.
#include "pjrt/executable_program.h"

namespace jft::pjrt {
namespace {

class RuntimeProgram final : public DeviceProgram {
 public:
  explicit RuntimeProgram(std::unique_ptr<runtime::Executable> executable)
      : executable_(std::move(executable)) {}

  StatusOr<runtime::ExecuteResult> execute(
      std::span<const runtime::ExecuteArgument> arguments,
      const runtime::ParticipantContext* participant) override {
    return executable_->execute(arguments, participant);
  }

 private:
  std::unique_ptr<runtime::Executable> executable_;
};

}  // namespace

ProgramLoader runtimeProgramLoader() {
  return [](runtime::Device& device,
            const runtime::Program& program) -> StatusOr<std::unique_ptr<DeviceProgram>> {
    JFT_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executable> executable,
                         runtime::Executable::load(device, program));
    return std::unique_ptr<DeviceProgram>(new RuntimeProgram(std::move(executable)));
  };
}

}  // namespace jft::pjrt
