// A custom call's backend_config dictionary (api_version 4: the attributes an
// XLA FFI handler receives) with its scalars' and arrays' element types kept:
// a handler binding Attr<uint64_t> checks the type, so an integer becomes a
// rank-0 ir::DenseElements of its type and a dense array a rank-1 one.
// Dictionaries nest; strings, bools and everything else convert as usual.
#pragma once

#include <string_view>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "ir/attribute.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

StatusOr<ir::Attribute> readTypedConfig(const MAttr* attr, std::string_view name,
                                        const OpSite& site);

}  // namespace jft::frontend::vhlo
