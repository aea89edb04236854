// SSA names for plan descriptions, given as the IR printer gives them
// (ir/printer.h): block arguments %arg0.., op results %0.. in the order the
// text meets them, nested regions included; %5#1 for a result of a
// multi-result op.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/module.h"

namespace jft::fusion {

class ValueNames {
 public:
  explicit ValueNames(const ir::Region& region);
  // "%3"; "%v12" for a value the region does not define.
  std::string operator()(ir::ValueId id) const;

 private:
  void nameArgs(const ir::Region& region);
  void nameOps(const ir::Region& region);

  std::unordered_map<ir::ValueId, std::string> names_;
  int next_arg_ = 0;
  int next_value_ = 0;
};

}  // namespace jft::fusion
