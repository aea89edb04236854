#include "compiler/cost_analysis.h"

#include <set>
#include <string>

#include "ir/attribute.h"
#include "ir/elementwise_spec.h"
#include "support/enum_table.h"

namespace jft::compiler {
namespace {

using ir::OpKind;

bool isTranscendental(OpKind kind) {
  return isOneOf(kind, {OpKind::Exponential, OpKind::ExponentialMinusOne, OpKind::Log,
                        OpKind::LogPlusOne, OpKind::Logistic, OpKind::Power, OpKind::Sqrt,
                        OpKind::Rsqrt, OpKind::Cbrt, OpKind::Tanh, OpKind::Sine,
                        OpKind::Cosine, OpKind::Tan, OpKind::Atan2});
}

// Elementwise ops that convert or move bits compute nothing.
bool isConversion(OpKind kind) {
  return isOneOf(kind, {OpKind::BitcastConvert, OpKind::Complex, OpKind::Convert,
                        OpKind::Imag, OpKind::Real, OpKind::ReducePrecision});
}

// Arithmetic and logic applied element by element: one operation per output.
bool isElementwiseArithmetic(OpKind kind) {
  return ir::elementwiseSpec(kind) && !isTranscendental(kind) && !isConversion(kind);
}

double elements(const ir::Type& type) {
  return type.isTensor() ? static_cast<double>(type.numElements()) : 0.0;
}

double firstResultElements(const ir::Module& module, const ir::Op& op) {
  return op.results.empty() ? 0.0 : elements(module.typeOf(op.results[0]));
}

double dotFlops(const ir::Module& module, const ir::Op& op) {
  const auto* numbers =
      ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  if (op.operands.empty()) return 0;
  const ir::Type& lhs = module.typeOf(op.operands[0]);
  double contracted = 1;
  if (numbers != nullptr) {
    for (int64_t d : numbers->lhs_contracting_dims)
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dims[d]);
  } else if (lhs.rank() > 0) {  // stablehlo.dot: contracts lhs's last dimension
    contracted = static_cast<double>(lhs.dims.back());
  }
  return 2 * firstResultElements(module, op) * contracted;
}

// Each output element sums kernel spatial size x input features per group products.
double convolutionFlops(const ir::Module& module, const ir::Op& op) {
  const auto* numbers =
      ir::findAttrAs<ir::ConvDimensionNumbers>(op.attrs, "dimension_numbers");
  if (numbers == nullptr || op.operands.size() < 2) return 0;
  const ir::Type& kernel = module.typeOf(op.operands[1]);
  double perOutput = 1;
  for (int64_t d : numbers->kernel_spatial_dims)
    if (d >= 0 && d < kernel.rank()) perOutput *= static_cast<double>(kernel.dims[d]);
  if (numbers->kernel_input_feature_dim < kernel.rank())
    perOutput *= static_cast<double>(kernel.dims[numbers->kernel_input_feature_dim]);
  return 2 * firstResultElements(module, op) * perOutput;
}

class Counter {
 public:
  explicit Counter(const ir::Module& module) : module_(module) {}

  void region(const ir::Region& region) {
    for (const ir::Op& op : region.ops) this->op(op);
  }
  ProgramCost cost;

 private:
  void op(const ir::Op& op) {
    const double out = firstResultElements(module_, op);
    if (isTranscendental(op.kind)) {
      cost.transcendentals += out;
    } else if (isElementwiseArithmetic(op.kind)) {
      cost.flops += out;
    } else if (op.kind == OpKind::DotGeneral || op.kind == OpKind::Dot) {
      cost.flops += dotFlops(module_, op);
    } else if (op.kind == OpKind::Convolution) {
      cost.flops += convolutionFlops(module_, op);
    } else if (op.kind == OpKind::Reduce || op.kind == OpKind::ReduceWindow) {
      // Every input element is combined into some output once (reduce);
      // a window op combines one window per output.
      double combined = 0;
      const size_t inputs = op.operands.size() / 2;
      for (size_t i = 0; i < inputs; ++i)
        combined += op.kind == OpKind::Reduce
                        ? elements(module_.typeOf(op.operands[i])) - out
                        : out;
      cost.flops += combined > 0 ? combined : 0;
    } else if (op.kind == OpKind::Call) {
      const auto* callee = ir::findAttrAs<ir::SymbolRef>(op.attrs, "callee");
      const ir::Function* function =
          callee != nullptr ? module_.findFunction(callee->name) : nullptr;
      if (function != nullptr && visiting_.insert(function).second) {
        region(function->body);
        visiting_.erase(function);
      }
    } else if (op.kind == OpKind::While || op.kind == OpKind::Case ||
               op.kind == OpKind::If) {
      for (const ir::Region& nested : op.regions) region(nested);
    }
  }

  const ir::Module& module_;
  std::set<const ir::Function*> visiting_;  // against recursive calls
};

}  // namespace

ProgramCost programCost(const ir::Module& module, const ir::Function& function) {
  Counter counter(module);
  counter.region(function.body);
  return counter.cost;
}

}  // namespace jft::compiler
