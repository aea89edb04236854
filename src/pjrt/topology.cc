// Topology entry points.
#include "pjrt/topology.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {

JFT_PJRT_ENTRY(topologyDestroy, TopologyDescription_Destroy, topology, {
  if (args->topology != nullptr && args->topology->owner == nullptr)
    delete args->topology;
})

#define JFT_TOPOLOGY_ENTRY(Function, Name, lastField, ...)                          \
  JFT_PJRT_OBJECT_ENTRY(Function, TopologyDescription_##Name, lastField, topology,  \
                        const PJRT_TopologyDescription& topology = *args->topology, \
                        __VA_ARGS__)

JFT_TOPOLOGY_ENTRY(topologyPlatformName, PlatformName, platform_name_size,
                   setView(args->platform_name, args->platform_name_size,
                           topology.platform_name))
JFT_TOPOLOGY_ENTRY(topologyPlatformVersion, PlatformVersion, platform_version_size,
                   setView(args->platform_version, args->platform_version_size,
                           topology.platform_version))
JFT_TOPOLOGY_ENTRY(topologyGetDeviceDescriptions, GetDeviceDescriptions, num_descriptions,
                   setView(args->descriptions, args->num_descriptions,
                           topology.descriptions))
JFT_TOPOLOGY_ENTRY(topologyAttributes, Attributes, num_attributes,
                   setView(args->attributes, args->num_attributes, topology.attributes))
#undef JFT_TOPOLOGY_ENTRY

}  // namespace jft::pjrt
