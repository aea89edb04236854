// Defaults for the kernel-execution part of Device: a device that only moves
// data (or a test fake) need not implement it.
#include "runtime/device.h"

namespace jft::runtime {
namespace {

Status notSupported(const DeviceInfo& info, const std::string& what) {
  return unimplemented(info.name + " cannot " + what);
}

}  // namespace

StatusOr<KernelHandle> Device::loadKernel(const KernelImage&) {
  return notSupported(info(), "load kernels");
}

void Device::unloadKernel(KernelHandle) {}

Status Device::launchKernel(KernelHandle, const LaunchDims&, void**) {
  return notSupported(info(), "launch kernels");
}

StatusOr<GraphHandle> Device::createLaunchGraph(std::span<const GraphLaunch>) {
  return notSupported(info(), "record launch graphs");
}

Status Device::updateGraphLaunch(GraphHandle, size_t, const GraphLaunch&) {
  return notSupported(info(), "update launch graphs");
}

Status Device::launchGraph(GraphHandle) {
  return notSupported(info(), "launch graphs");
}

void Device::destroyGraph(GraphHandle) {}

Status Device::copyOnDevice(uint64_t, uint64_t, uint64_t) {
  return notSupported(info(), "copy within device memory");
}

Status Device::fill(uint64_t, uint8_t, uint64_t) {
  return notSupported(info(), "fill device memory");
}

Status Device::gemm(const GemmDesc&, uint64_t, uint64_t, uint64_t, uint64_t) {
  return notSupported(info(), "run library matrix products");
}

Status Device::library(const LibraryOp& op, const std::vector<uint64_t>&) {
  return notSupported(info(), "run library operations (" + libraryOpText(op) + ")");
}

Status Device::prepareLibrary(const LibraryOp& op) {
  return notSupported(info(), "run library operations (" + libraryOpText(op) + ")");
}

StatusOr<std::string> Device::sourceCompiler() {
  return notSupported(info(), "compile kernel source");
}

StatusOr<std::string> Device::compileSource(const std::string&, const std::string& name) {
  return notSupported(info(), "compile kernel source (" + name + ")");
}

StatusOr<EventPtr> Device::recordEvent() {
  return notSupported(info(), "record events");
}

Status Device::waitForStream(void*) {
  return notSupported(info(), "wait for another stream");
}

StatusOr<CollectiveRunner*> Device::collectiveRunner() {
  return unavailable(info().name +
                     " has no collective library, so it cannot run "
                     "collectives over several devices");
}

void Platform::setCliqueIdExchange(std::shared_ptr<CliqueIdExchange>) {}

}  // namespace jft::runtime
