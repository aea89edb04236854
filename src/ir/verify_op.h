// Internal to the verifier: the view one op rule gets of its op, and the
// rule entry points, one per family of ops (verify_*.cc). Not a public API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace jft::ir {

// Errors gathered across a whole module, capped so a broken module cannot
// produce an unbounded message.
class ErrorList {
 public:
  void add(std::string message);
  bool empty() const { return messages_.empty() && dropped_ == 0; }
  std::string joined() const;

 private:
  std::vector<std::string> messages_;
  size_t dropped_ = 0;
};

// The name an op has in messages: "stablehlo.add", "func.call",
// "func.return" (in a function body) or "stablehlo.return".
std::string opDisplayName(OpKind kind, bool in_function_body);

class OpVerifier {
 public:
  OpVerifier(const Module& module, const Op& op, ErrorList& errors,
             bool in_function_body = false)
      : module_(module), op_(op), errors_(errors), in_function_body_(in_function_body) {}

  const Module& module() const { return module_; }
  const Op& op() const { return op_; }
  size_t numOperands() const { return op_.operands.size(); }
  size_t numResults() const { return op_.results.size(); }
  const Type& operand(size_t i) const { return module_.typeOf(op_.operands[i]); }
  const Type& result(size_t i) const { return module_.typeOf(op_.results[i]); }
  // Types of operands [begin, end) (end clamped to the count), of all results.
  std::vector<Type> operandTypes(size_t begin = 0, size_t end = SIZE_MAX) const;
  std::vector<Type> resultTypes() const;

  // Records "<op> at <location>: <rule>"; returns false so a rule can
  // `return fail(...)`.
  bool fail(const std::string& rule);

  // Exact counts; a negative count accepts any number.
  bool expectCounts(int operands, int results);
  // Every operand and result is a tensor (not a token or tuple).
  bool expectTensors();
  // Reductions (reduce, reduce_window): N inputs, then N init values, for N
  // results, all tensors.
  bool expectInputsAndInits();
  // Result i is tensor<shape x elements[i]> for every i (reductions' results).
  bool expectResultShapes(const std::vector<ElementType>& elements,
                          const std::vector<int64_t>& shape);

  // An attribute of type T: nullptr when absent; a wrong kind is an error.
  template <typename T>
  const T* optionalAttr(std::string_view name) {
    const Attribute* a = findAttr(op_.attrs, name);
    if (!a) return nullptr;
    if (a->is<T>()) return &a->as<T>();
    fail("attribute '" + std::string(name) + "' has an unexpected kind");
    return nullptr;
  }
  // The same, absent being an error too.
  template <typename T>
  const T* requiredAttr(std::string_view name) {
    if (!findAttr(op_.attrs, name)) {
      fail("missing attribute '" + std::string(name) + "'");
      return nullptr;
    }
    return optionalAttr<T>(name);
  }
  // Integer lists arrive as array<i64> or as dense integer literals
  // (convolution padding); both read here, flattened row-major.
  std::optional<std::vector<int64_t>> intsAttr(std::string_view name,
                                               bool required = true);
  std::optional<std::vector<bool>> boolsAttr(std::string_view name);
  std::optional<int64_t> intAttr(std::string_view name, bool required = true);

 private:
  const Module& module_;
  const Op& op_;
  ErrorList& errors_;
  bool in_function_body_;
};

// Text helpers for messages.
std::string listText(const std::vector<int64_t>& values);  // "[1, 2]"
std::string shapeText(const std::vector<int64_t>& dims);   // "[4, 8]"
std::string typesText(const std::vector<Type>& types);     // "(tensor<f32>, tensor<i32>)"

// Checks on dimension lists: each reports "<what> ..." and returns false.
bool checkDimsInRange(OpVerifier& v, const std::vector<int64_t>& dims, int64_t rank,
                      std::string_view what);
bool checkUnique(OpVerifier& v, const std::vector<int64_t>& dims, std::string_view what);
bool checkSorted(OpVerifier& v, const std::vector<int64_t>& dims, std::string_view what);

// The result has `operand`'s type (ops whose result is their operand's type
// unchanged); otherwise reports the two types and returns false.
bool checkResultIsOperandType(OpVerifier& v, const Type& operand);

// The types a region takes and returns (its terminator's operands); nullopt
// when the region has no return (reported by the structural checks).
std::vector<Type> regionArgTypes(const Module& module, const Region& region);
std::optional<std::vector<Type>> regionResultTypes(const Module& module,
                                                   const Region& region);

// A region taking `args` and returning `results`; `what` names it in
// messages ("comparator", "body", "branch #1").
bool checkRegionSignature(OpVerifier& v, const Region& region,
                          const std::vector<Type>& args, const std::vector<Type>& results,
                          const std::string& what);

// Size arithmetic on values from user input: nullopt when int64 overflows.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
std::optional<int64_t> checkedProduct(const std::vector<int64_t>& dims);

// Windows along one dimension, as convolution (C25), reduce_window (C15)
// and select_and_scatter (C2) count them; nullopt on overflow. `stride`
// and the dilations must be positive.
std::optional<int64_t> windowCount(int64_t input, int64_t window, int64_t stride,
                                   int64_t pad_low, int64_t pad_high,
                                   int64_t base_dilation, int64_t window_dilation);

// The combiner of reduce/scatter (and friends): 2N 0-d arguments typed
// (E0..EN-1, E0..EN-1) returning (E0..EN-1), with each input element type
// promotable to its Ei. Returns the Ei, or nullopt after reporting.
std::optional<std::vector<ElementType>> checkCombiner(
    OpVerifier& v, const Region& body, const std::vector<ElementType>& inputs);

// Rule families. Each expects the op's structure (ids in range) to be sound.
void verifyElementwise(OpVerifier& v);  // unary/binary/compare/select/clamp/convert/...
void verifyShapeOp(OpVerifier& v);      // broadcast_in_dim ... reverse, constant
void verifyContraction(OpVerifier& v);  // dot_general, convolution
void verifyIndexing(OpVerifier& v);     // gather, scatter
void verifyRegionOp(OpVerifier& v);     // reduce, sort, while, if, case, map
void verifyWindowOp(OpVerifier& v);     // reduce_window, select_and_scatter
void verifyLibraryOp(
    OpVerifier& v);  // fft, cholesky, triangular_solve, rng_bit_generator
// call, composite, tuple, get_tuple_element, optimization_barrier,
// after_all, get_dimension_size
void verifyPlumbing(OpVerifier& v);

}  // namespace jft::ir
