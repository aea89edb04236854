// Topology entry points.
#include "pjrt/topology.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {

PJRT_Error* topologyDestroy(PJRT_TopologyDescription_Destroy_Args* args) {
  return boundary("PJRT_TopologyDescription_Destroy", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_TopologyDescription_Destroy_Args, topology),
        "PJRT_TopologyDescription_Destroy"));
    if (args->topology != nullptr && args->topology->owner == nullptr)
      delete args->topology;
    return Status::ok();
  });
}

PJRT_Error* topologyPlatformName(PJRT_TopologyDescription_PlatformName_Args* args) {
  return boundary("PJRT_TopologyDescription_PlatformName", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args,
                  JFT_PJRT_SIZE_UP_TO(PJRT_TopologyDescription_PlatformName_Args,
                                      platform_name_size),
                  "PJRT_TopologyDescription_PlatformName"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->topology, "topology",
                                       "PJRT_TopologyDescription_PlatformName"));
    args->platform_name = args->topology->platform_name.c_str();
    args->platform_name_size = args->topology->platform_name.size();
    return Status::ok();
  });
}

PJRT_Error* topologyPlatformVersion(PJRT_TopologyDescription_PlatformVersion_Args* args) {
  return boundary("PJRT_TopologyDescription_PlatformVersion", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args,
                  JFT_PJRT_SIZE_UP_TO(PJRT_TopologyDescription_PlatformVersion_Args,
                                      platform_version_size),
                  "PJRT_TopologyDescription_PlatformVersion"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->topology, "topology",
                                       "PJRT_TopologyDescription_PlatformVersion"));
    args->platform_version = args->topology->platform_version.c_str();
    args->platform_version_size = args->topology->platform_version.size();
    return Status::ok();
  });
}

PJRT_Error* topologyGetDeviceDescriptions(
    PJRT_TopologyDescription_GetDeviceDescriptions_Args* args) {
  return boundary("PJRT_TopologyDescription_GetDeviceDescriptions", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args,
                  JFT_PJRT_SIZE_UP_TO(PJRT_TopologyDescription_GetDeviceDescriptions_Args,
                                      num_descriptions),
                  "PJRT_TopologyDescription_GetDeviceDescriptions"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->topology, "topology",
                                       "PJRT_TopologyDescription_GetDeviceDescriptions"));
    args->descriptions = args->topology->descriptions.data();
    args->num_descriptions = args->topology->descriptions.size();
    return Status::ok();
  });
}

PJRT_Error* topologyAttributes(PJRT_TopologyDescription_Attributes_Args* args) {
  return boundary("PJRT_TopologyDescription_Attributes", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args,
        JFT_PJRT_SIZE_UP_TO(PJRT_TopologyDescription_Attributes_Args, num_attributes),
        "PJRT_TopologyDescription_Attributes"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->topology, "topology",
                                       "PJRT_TopologyDescription_Attributes"));
    args->attributes = args->topology->attributes.data();
    args->num_attributes = args->topology->attributes.size();
    return Status::ok();
  });
}

}  // namespace jft::pjrt
