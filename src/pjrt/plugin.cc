// Plugin initialisation and attributes.
#include "pjrt/plugin.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"
#include "pjrt/named_values.h"

namespace jft::pjrt {
namespace {

const NamedValues& attributes() {
  static const NamedValues* values = [] {
    auto* built = new NamedValues();
    built->addInt64("xla_version", 2);
    built->addInt64List(
        "stablehlo_current_version",
        {kStablehloCurrent[0], kStablehloCurrent[1], kStablehloCurrent[2]});
    built->addInt64List(
        "stablehlo_minimum_version",
        {kStablehloMinimum[0], kStablehloMinimum[1], kStablehloMinimum[2]});
    return built;
  }();
  return *values;
}

}  // namespace

PJRT_Error* pluginInitialize(PJRT_Plugin_Initialize_Args* args) {
  return boundary("PJRT_Plugin_Initialize", [&]() -> Status {
    return checkArgs(args,
                     JFT_ABI_SIZE_UP_TO(PJRT_Plugin_Initialize_Args, extension_start),
                     "PJRT_Plugin_Initialize");
  });
}

JFT_PJRT_ENTRY(pluginAttributes, Plugin_Attributes, num_attributes,
               setView(args->attributes, args->num_attributes, attributes()))

}  // namespace jft::pjrt
