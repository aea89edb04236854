// Spotting JAX's global-view (Shardy) programs.
#include "frontend/sdy/global_view.h"

#include <string>

#include "frontend/sdy/localize_manual.h"

namespace jft::frontend::sdy {
namespace {

struct Findings {
  int manual_computations = 0;
  std::string splitting;  // the first sharding that splits a value, as text
};

// A sharding splits a value when one of its dimensions names a mesh axis
// (`{"x"}` in Shardy's spelling, `devices=[...]` in the HLO one). A Shardy
// attribute we hold only as bytes counts as splitting: we cannot tell.
bool splits(const frontend::MAttr& attr, std::string_view key) {
  using Kind = frontend::MAttr::Kind;
  if (attr.kind == Kind::Opaque && attr.dialect == "sdy") {
    if (attr.str.empty()) return namesSharding(key) || namesSharding(attr.name);
    return attr.str.find("sharding") != std::string::npos &&
           attr.str.find("{\"") != std::string::npos;
  }
  if (attr.kind == Kind::String && namesSharding(key))
    return attr.str.find("devices=") != std::string::npos;
  return false;
}

void visitAttr(const frontend::MAttr& attr, std::string_view key, Findings& found) {
  if (!found.splitting.empty()) return;
  if (splits(attr, key)) {
    found.splitting = std::string(key) + " = " +
                      (attr.str.empty() ? std::string("<encoded>") : attr.str);
    return;
  }
  for (const frontend::MAttrPtr& element : attr.elements) {
    if (element != nullptr) visitAttr(*element, key, found);
  }
  for (const auto& [name, entry] : attr.entries) {
    if (entry != nullptr) visitAttr(*entry, name, found);
  }
}

void visitOp(const frontend::MOp& op, Findings& found) {
  if (op.name == "sdy.manual_computation") ++found.manual_computations;
  for (const auto& [name, attr] : op.attrs) {
    if (attr != nullptr) visitAttr(*attr, name, found);
  }
  for (const frontend::MRegion& region : op.regions) {
    for (const frontend::MBlock& block : region.blocks) {
      for (const frontend::MOp& inner : block.ops) visitOp(inner, found);
    }
  }
}

}  // namespace

Status refuseGlobalView(const frontend::MTree& tree, int num_partitions,
                        const std::string& whyNot) {
  Findings found;
  for (const frontend::MOp& op : tree.top) visitOp(op, found);
  if (found.manual_computations == 0 && found.splitting.empty()) return Status::ok();
  std::string what = found.manual_computations > 0
                         ? std::to_string(found.manual_computations) +
                               " sdy.manual_computation (shard_map)"
                         : "";
  if (!found.splitting.empty())
    what +=
        (what.empty() ? "" : " and ") + std::string("the sharding ") + found.splitting;
  return unimplemented(
      "this program is JAX's global view of a computation over " +
      std::to_string(num_partitions) + " partitions (Shardy: " + what +
      "); XLA partitions such programs into one program per device at compile time "
      "(Shardy propagation, then the SPMD partitioner), which jax-flagtree does not do: "
      "it runs only programs whose values are all replicated and fully manual ones "
      "(@main one sdy.manual_computation over every mesh axis, as jax.pmap and a "
      "top-level shard_map give)" +
      (whyNot.empty() ? std::string() : "; this one is not fully manual: " + whyNot));
}

StatusOr<bool> localizeGlobalView(frontend::MTree& tree, int num_partitions) {
  if (refuseGlobalView(tree, num_partitions).isOk()) return false;
  std::string whyNot;
  if (localizeFullyManual(tree, whyNot)) return true;
  return refuseGlobalView(tree, num_partitions, whyNot);
}

}  // namespace jft::frontend::sdy
