#include "runtime/collective_groups.h"

namespace jft::runtime {

StatusOr<ResolvedCollective> resolveCollective(const CollectiveDesc& desc,
                                               const CollectiveGroups&,
                                               const ParticipantLayout&, int64_t,
                                               int64_t) {
  return unimplemented("resolving the process groups of " + collectiveText(desc) +
                       " is not written yet");
}

}  // namespace jft::runtime
