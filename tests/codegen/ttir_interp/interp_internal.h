// The interpreter's pieces: values, the parsed program, numerics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft::codegen::ttir::testing::interp {

enum class Elem : uint8_t { kI1, kI8, kI16, kI32, kI64, kF16, kBF16, kF32, kF64, kPtr };

bool isFloat(Elem e);
int bitsOf(Elem e);   // storage width; pointers are 64
int bytesOf(Elem e);  // in memory (i1 is never loaded: pred travels as i8)
std::string nameOf(Elem e);

struct Type {
  std::vector<int64_t> shape;  // empty for scalars
  Elem elem = Elem::kI32;
  Elem pointee = Elem::kI32;  // when elem == kPtr
  bool tensor = false;
  int64_t size() const;
};

// Integers (and pointers, and i1 as 0/1) live in `ints`, sign-extended from
// their width so that the signed value is exact; floats live in `floats` as a
// double already rounded to their type (exact for f16/bf16/f32/f64).
struct Tensor {
  Type type;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  int64_t size() const { return type.size(); }
};

Tensor makeTensor(const Type& type);

// Numerics.
int64_t wrapInt(uint64_t v, Elem e);  // to the width, then sign-extended (i1: 0/1)
uint64_t unsignedOf(int64_t v, Elem e);
double roundTo(double v, Elem e);  // round to nearest even into f16/bf16/f32/f64
uint64_t floatBits(double v, Elem e);
double floatFromBits(uint64_t bits, Elem e);

// The parsed program. Values are slots of one frame; every SSA name (the
// emitters never reuse one) has its own.
struct Op;
struct Region {
  std::vector<int> args;  // slots of the block arguments
  std::vector<Op> ops;
};

struct Op {
  std::string name;  // "arith.addi"
  int line = 0;
  std::string text;          // the source line, for errors
  std::vector<int> results;  // slots
  std::vector<int> operands;
  std::vector<Type> types;    // result types where the text gives them
  std::string attr;           // predicate, program-id axis, libdevice symbol
  std::vector<int64_t> ints;  // axis, trans order, make_range start
  std::shared_ptr<Tensor> constant;
  std::vector<Region> regions;  // scf.for body; scf.if then/else; tt.reduce combiner
};

struct Function {
  std::string name;
  std::vector<int> params;
  std::vector<Type> param_types;
  Region body;
  int slots = 0;
};

StatusOr<Function> parseModule(std::string_view text);

// The elementwise ops (arith.*, math.*, bitcasts, casts, libdevice calls):
// `out` of op.types[0] from `in` (all of the result's shape, or scalars).
// False when `op` is not one of them.
StatusOr<bool> runElementwise(const Op& op, const std::vector<const Tensor*>& in,
                              Tensor& out);
StatusOr<Type> parseType(std::string_view text);

}  // namespace jft::codegen::ttir::testing::interp
