#include "pjrt/layouts_extension.h"

#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/executable.h"
#include "pjrt/shape.h"

struct PJRT_Layouts_SerializedLayout {
  std::string bytes;
};

namespace jft::pjrt {
namespace {

// The dense row-major layout of a shape the caller describes.
StatusOr<PJRT_Layouts_MemoryLayout*> defaultLayout(PJRT_Buffer_Type type,
                                                   const int64_t* dims, size_t num_dims,
                                                   const char* function) {
  JFT_RETURN_IF_ERROR(validateDims(dims, num_dims));
  if (type <= PJRT_Buffer_Type_INVALID || type > PJRT_Buffer_Type_F6E3M2FN)
    return invalidArgument(std::string(function) + ": element type " +
                           std::to_string(static_cast<int>(type)) +
                           " is not a PJRT buffer type");
  return new PJRT_Layouts_MemoryLayout{layoutText({}, num_dims)};
}

StatusOr<const ExecutableInfo*> infoOf(const PJRT_Executable* executable,
                                       const char* function) {
  JFT_RETURN_IF_ERROR(requireNonNull(executable, "executable", function));
  if (executable->info == nullptr)
    return invalidArgument(std::string(function) + ": the executable is empty");
  return executable->info.get();
}

JFT_PJRT_ENTRY(memoryLayoutDestroy, Layouts_MemoryLayout_Destroy, layout,
               { delete args->layout; })

JFT_PJRT_ENTRY(memoryLayoutSerialize, Layouts_MemoryLayout_Serialize,
               serialized_layout_deleter, {
                 JFT_RETURN_IF_ERROR(requireNonNull(args->layout, "layout", kName));
                 auto* owned = new PJRT_Layouts_SerializedLayout{args->layout->text};
                 args->serialized_bytes = owned->bytes.data();
                 args->serialized_bytes_size = owned->bytes.size();
                 args->serialized_layout = owned;
                 args->serialized_layout_deleter = [](PJRT_Layouts_SerializedLayout* s) {
                   delete s;
                 };
               })

JFT_PJRT_ENTRY(clientDefaultLayout, Layouts_PJRT_Client_GetDefaultLayout, layout, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->client, "client", kName));
  JFT_ASSIGN_OR_RETURN(args->layout,
                       defaultLayout(args->type, args->dims, args->num_dims, kName));
})

JFT_PJRT_ENTRY(topologyDefaultLayout, Layouts_PJRT_Topology_GetDefaultLayout, layout, {
  JFT_RETURN_IF_ERROR(
      requireNonNull(args->topology_description, "topology_description", kName));
  JFT_ASSIGN_OR_RETURN(args->layout,
                       defaultLayout(args->type, args->dims, args->num_dims, kName));
})

JFT_PJRT_ENTRY(bufferLayout, Layouts_PJRT_Buffer_MemoryLayout, layout, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->buffer, "buffer", kName));
  args->layout = new PJRT_Layouts_MemoryLayout{
      layoutText(args->buffer->layoutOrder(), args->buffer->dims.size())};
})

JFT_PJRT_ENTRY(executableOutputLayouts, Layouts_PJRT_Executable_GetOutputLayouts, layouts,
               {
                 JFT_ASSIGN_OR_RETURN(const ExecutableInfo* info,
                                      infoOf(args->executable, kName));
                 args->num_outputs = info->output_layouts.size();
                 args->layouts = const_cast<PJRT_Layouts_MemoryLayout**>(
                     info->output_layouts.data());  // the ABI's type; never written
               })

JFT_PJRT_ENTRY(executableParameterLayouts, Layouts_PJRT_Executable_GetParameterLayouts,
               layouts, {
                 JFT_ASSIGN_OR_RETURN(const ExecutableInfo* info,
                                      infoOf(args->executable, kName));
                 args->num_parameters = info->parameter_layouts.size();
                 args->layouts = const_cast<PJRT_Layouts_MemoryLayout**>(
                     info->parameter_layouts.data());
               })

}  // namespace

PJRT_Extension_Base* layoutsExtension(PJRT_Extension_Base* next) {
  static PJRT_Layouts_Extension* extension = [] {
    auto* e = new PJRT_Layouts_Extension{};  // never destroyed: jaxlib holds it
    e->base.struct_size = sizeof(PJRT_Layouts_Extension);
    e->base.type = PJRT_Extension_Type_Layouts;
    e->PJRT_Layouts_MemoryLayout_Destroy = &memoryLayoutDestroy;
    e->PJRT_Layouts_MemoryLayout_Serialize = &memoryLayoutSerialize;
    e->PJRT_Layouts_PJRT_Client_GetDefaultLayout = &clientDefaultLayout;
    e->PJRT_Layouts_PJRT_Buffer_MemoryLayout = &bufferLayout;
    e->PJRT_Layouts_PJRT_Topology_GetDefaultLayout = &topologyDefaultLayout;
    e->PJRT_Layouts_PJRT_Executable_GetOutputLayouts = &executableOutputLayouts;
    e->PJRT_Layouts_PJRT_Executable_GetParameterLayouts = &executableParameterLayouts;
    return e;
  }();
  extension->base.next = next;
  return &extension->base;
}

}  // namespace jft::pjrt
