#include "ir/verify_op.h"

#include <algorithm>
#include <set>

#include "ir/attribute_printer.h"
#include "support/text.h"

namespace jft::ir {
namespace {

constexpr size_t kMaxErrors = 100;

// An integer list held as a dense literal (dimension lists, padding, replica
// groups) has a handful of elements; a splat claiming more is not one.
constexpr int64_t kMaxListElements = int64_t{1} << 20;

// Integers of a dense literal, or nullopt if its elements are not integers.
std::optional<std::vector<int64_t>> denseInts(const DenseElements& dense) {
  const ElementType element = dense.type.element;
  if (!dense.type.isTensor() || !(isInteger(element) || isPred(element)))
    return std::nullopt;
  if (!dense.wellFormed() || dense.numElements() > kMaxListElements) return std::nullopt;
  const int64_t size = storageBytes(element);
  std::vector<int64_t> values;
  for (int64_t index = 0; index < dense.numElements(); ++index) {
    const std::span<const uint8_t> bytes = dense.element(index);
    uint64_t raw = 0;
    for (int64_t i = size - 1; i >= 0; --i) raw = (raw << 8) | bytes[i];
    const int bits = bitWidth(element);
    if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
    int64_t value = static_cast<int64_t>(raw);
    if (isSignedInteger(element) && bits < 64) {
      const int unused = 64 - bits;
      value = static_cast<int64_t>(raw << unused) >> unused;
    }
    values.push_back(value);
  }
  return values;
}

}  // namespace

void ErrorList::add(std::string message) {
  if (messages_.size() < kMaxErrors) {
    messages_.push_back(std::move(message));
    return;
  }
  ++dropped_;
}

std::string ErrorList::joined() const {
  std::string out;
  for (size_t i = 0; i < messages_.size(); ++i) out += (i ? "\n" : "") + messages_[i];
  if (dropped_) out += "\n... and " + std::to_string(dropped_) + " more errors";
  return out;
}

std::string opDisplayName(OpKind kind, bool in_function_body) {
  if (kind == OpKind::Call) return "func.call";
  if (kind == OpKind::Return && in_function_body) return "func.return";
  return "stablehlo." + std::string(opKindName(kind));
}

bool OpVerifier::fail(const std::string& rule) {
  errors_.add(opDisplayName(op_.kind, in_function_body_) + " at " +
              module_.locations.describe(op_.loc) + ": " + rule);
  return false;
}

std::vector<Type> OpVerifier::operandTypes(size_t begin, size_t end) const {
  std::vector<Type> types;
  for (size_t i = begin; i < std::min(end, numOperands()); ++i)
    types.push_back(operand(i));
  return types;
}

std::vector<Type> OpVerifier::resultTypes() const {
  std::vector<Type> types;
  for (size_t i = 0; i < numResults(); ++i) types.push_back(result(i));
  return types;
}

bool OpVerifier::expectCounts(int operands, int results) {
  bool ok = true;
  if (operands >= 0 && numOperands() != static_cast<size_t>(operands))
    ok = fail("expects " + std::to_string(operands) + " operands, got " +
              std::to_string(numOperands()));
  if (results >= 0 && numResults() != static_cast<size_t>(results))
    ok = fail("expects " + std::to_string(results) + " results, got " +
              std::to_string(numResults())) &&
         ok;
  return ok;
}

bool OpVerifier::expectTensors() {
  for (size_t i = 0; i < numOperands(); ++i)
    if (!operand(i).isTensor())
      return fail("operand #" + std::to_string(i) + " must be a tensor, got " +
                  operand(i).str());
  for (size_t i = 0; i < numResults(); ++i)
    if (!result(i).isTensor())
      return fail("result #" + std::to_string(i) + " must be a tensor, got " +
                  result(i).str());
  return true;
}

bool OpVerifier::expectInputsAndInits() {
  if (!expectTensors()) return false;
  const size_t n = numResults();
  if (n == 0 || numOperands() != 2 * n)
    return fail("expects N inputs and N init values for N results, got " +
                std::to_string(numOperands()) + " operands and " + std::to_string(n) +
                " results");
  return true;
}

std::optional<std::vector<int64_t>> OpVerifier::intsAttr(std::string_view name,
                                                         bool required) {
  const Attribute* a = findAttr(op_.attrs, name);
  if (!a) {
    if (required) fail("missing attribute '" + std::string(name) + "'");
    return std::nullopt;
  }
  if (a->is<std::vector<int64_t>>()) return a->as<std::vector<int64_t>>();
  if (a->is<DenseElements>())
    if (auto values = denseInts(a->as<DenseElements>())) return values;
  if (a->is<AttrList>()) {
    std::vector<int64_t> values;
    for (const Attribute& element : a->as<AttrList>()) {
      if (!element.is<int64_t>()) break;
      values.push_back(element.as<int64_t>());
    }
    if (values.size() == a->as<AttrList>().size()) return values;
  }
  fail("attribute '" + std::string(name) + "' must be a list of integers, got " +
       printAttribute(*a));
  return std::nullopt;
}

bool OpVerifier::expectResultShapes(const std::vector<ElementType>& elements,
                                    const std::vector<int64_t>& shape) {
  // The caller has checked that `elements` has one entry per result.
  for (size_t i = 0; i < numResults(); ++i) {
    const Type expected = Type::tensor(elements[i], shape);
    if (result(i) != expected)
      return fail("result #" + std::to_string(i) + " " + result(i).str() + " should be " +
                  expected.str());
  }
  return true;
}

std::optional<std::vector<bool>> OpVerifier::boolsAttr(std::string_view name) {
  const Attribute* a = findAttr(op_.attrs, name);
  if (!a) return std::nullopt;
  if (a->is<std::vector<bool>>()) return a->as<std::vector<bool>>();
  if (a->is<DenseElements>() && isPred(a->as<DenseElements>().type.element)) {
    // Named: a range-for over `*denseInts(...)` would iterate a destroyed temporary.
    std::optional<std::vector<int64_t>> ints = denseInts(a->as<DenseElements>());
    std::vector<bool> values;
    if (ints)
      for (int64_t v : *ints) values.push_back(v != 0);
    return values;
  }
  fail("attribute '" + std::string(name) + "' must be a list of booleans");
  return std::nullopt;
}

std::optional<int64_t> OpVerifier::intAttr(std::string_view name, bool required) {
  const Attribute* a = findAttr(op_.attrs, name);
  if (!a) {
    if (required) fail("missing attribute '" + std::string(name) + "'");
    return std::nullopt;
  }
  if (a->is<int64_t>()) return a->as<int64_t>();
  fail("attribute '" + std::string(name) + "' must be an integer");
  return std::nullopt;
}

std::string listText(const std::vector<int64_t>& values) {
  return intListText(values);
}

std::string shapeText(const std::vector<int64_t>& dims) {
  return listText(dims);
}

std::string typesText(const std::vector<Type>& types) {
  std::string out = "(";
  for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i].str();
  return out + ")";
}

bool checkDimsInRange(OpVerifier& v, const std::vector<int64_t>& dims, int64_t rank,
                      std::string_view what) {
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return v.fail(std::string(what) + " " + listText(dims) + " has " +
                    std::to_string(d) + " outside [0, " + std::to_string(rank) + ")");
  return true;
}

bool checkUnique(OpVerifier& v, const std::vector<int64_t>& dims, std::string_view what) {
  std::set<int64_t> seen;
  for (int64_t d : dims)
    if (!seen.insert(d).second)
      return v.fail(std::string(what) + " " + listText(dims) + " repeats " +
                    std::to_string(d));
  return true;
}

bool checkSorted(OpVerifier& v, const std::vector<int64_t>& dims, std::string_view what) {
  if (!std::is_sorted(dims.begin(), dims.end()))
    return v.fail(std::string(what) + " " + listText(dims) + " is not sorted");
  return true;
}

bool checkResultIsOperandType(OpVerifier& v, const Type& operand) {
  if (v.result(0) != operand)
    return v.fail("result type " + v.result(0).str() + " differs from operand type " +
                  operand.str());
  return true;
}

std::vector<Type> regionArgTypes(const Module& module, const Region& region) {
  std::vector<Type> types;
  for (ValueId arg : region.args) types.push_back(module.typeOf(arg));
  return types;
}

std::optional<std::vector<Type>> regionResultTypes(const Module& module,
                                                   const Region& region) {
  if (region.ops.empty() || region.ops.back().kind != OpKind::Return) return std::nullopt;
  std::vector<Type> types;
  for (ValueId value : region.ops.back().operands) types.push_back(module.typeOf(value));
  return types;
}

// A region taking `args` and returning `results`; `what` names it in messages.
bool checkRegionSignature(OpVerifier& v, const Region& region,
                          const std::vector<Type>& args, const std::vector<Type>& results,
                          const std::string& what) {
  const std::vector<Type> actual_args = regionArgTypes(v.module(), region);
  if (actual_args != args)
    return v.fail(what + " takes " + typesText(actual_args) + ", expected " +
                  typesText(args));
  auto actual_results = regionResultTypes(v.module(), region);
  if (actual_results && *actual_results != results)
    return v.fail(what + " returns " + typesText(*actual_results) + ", expected " +
                  typesText(results));
  return true;
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<int64_t> checkedProduct(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t d : dims) {
    auto next = checkedMul(product, d);
    if (!next) return std::nullopt;
    product = *next;
  }
  return product;
}

std::optional<int64_t> windowCount(int64_t input, int64_t window, int64_t stride,
                                   int64_t pad_low, int64_t pad_high,
                                   int64_t base_dilation, int64_t window_dilation) {
  // (input - 1) * base_dilation + 1, then the padding on both sides.
  std::optional<int64_t> dilated_input = 0;
  if (input != 0) dilated_input = checkedMul(input - 1, base_dilation);
  if (dilated_input && input != 0) dilated_input = checkedAdd(*dilated_input, 1);
  std::optional<int64_t> padded;
  if (dilated_input) padded = checkedAdd(pad_low, *dilated_input);
  if (padded) padded = checkedAdd(*padded, pad_high);
  std::optional<int64_t> dilated_window = 0;
  if (window != 0) dilated_window = checkedMul(window - 1, window_dilation);
  if (dilated_window && window != 0) dilated_window = checkedAdd(*dilated_window, 1);
  if (!padded || !dilated_window) return std::nullopt;
  if (*padded <= 0 || *dilated_window > *padded) return 0;
  return (*padded - *dilated_window) / stride + 1;
}

std::optional<std::vector<ElementType>> checkCombiner(
    OpVerifier& v, const Region& body, const std::vector<ElementType>& inputs) {
  const Module& m = v.module();
  const size_t n = inputs.size();
  if (body.args.size() != 2 * n) {
    v.fail("body must take " + std::to_string(2 * n) + " arguments, got " +
           std::to_string(body.args.size()));
    return std::nullopt;
  }
  std::vector<ElementType> elements;
  for (size_t i = 0; i < n; ++i) {
    const Type& acc = m.typeOf(body.args[i]);
    const Type& next = m.typeOf(body.args[n + i]);
    if (!acc.isTensor() || acc.rank() != 0 || acc != next) {
      v.fail("body arguments #" + std::to_string(i) + " and #" + std::to_string(n + i) +
             " must be the same 0-d tensor type, got " + acc.str() + " and " +
             next.str());
      return std::nullopt;
    }
    // is_promotable: same kind of number, at least as wide.
    const ElementType e = acc.element;
    const bool same_kind = isPred(e) == isPred(inputs[i]) &&
                           isSignedInteger(e) == isSignedInteger(inputs[i]) &&
                           isUnsignedInteger(e) == isUnsignedInteger(inputs[i]) &&
                           isFloat(e) == isFloat(inputs[i]);
    if (!same_kind || bitWidth(e) < bitWidth(inputs[i])) {
      v.fail("input element type " + std::string(elementTypeName(inputs[i])) +
             " cannot be promoted to body type " + std::string(elementTypeName(e)));
      return std::nullopt;
    }
    elements.push_back(e);
  }
  auto results = regionResultTypes(m, body);
  if (!results) return std::nullopt;
  std::vector<Type> expected = regionArgTypes(m, body);
  expected.resize(n);
  if (*results != expected) {
    v.fail("body returns " + typesText(*results) + ", expected " + typesText(expected));
    return std::nullopt;
  }
  return elements;
}

}  // namespace jft::ir
