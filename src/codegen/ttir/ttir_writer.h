// Writing TTIR text: fresh SSA names, one op per line, typed values.
//
// The emitters build a kernel body through this class only, so the spelling of
// types and the layout of the text live in one place. A Value is an SSA name
// with its TTIR type; tensors are the tile shape the emitter chose.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/element_type.h"

namespace jft::codegen::ttir {

// The compiler backend a module is written for. Only the names of library
// math functions differ (libdevice on CUDA, OCML on HIP); both backends link
// their library themselves, so the TTIR never names a file.
enum class Target : uint8_t { kCuda, kHip };

// TTIR scalar type of an element type as held in registers: f32, bf16, f16,
// f64, f8E4M3FN, f8E5M2, i1 (pred), i8/i16/i32/i64 (signed and unsigned alike:
// TTIR integers are signless; the op chosen carries the signedness).
// Element types Triton cannot compute with travel as opaque bytes: sub-byte
// integers as i8, the other 8-bit-or-narrower floats as i8 (only data
// movement is emittable for them); complex types have none ("" is returned).
std::string registerType(ir::ElementType element);
// As stored in memory: the same, except pred, which is a byte (i8).
std::string memoryType(ir::ElementType element);
// "tensor<64x128xf32>"; a scalar when `shape` is empty ("f32").
std::string tensorType(const std::vector<int64_t>& shape, std::string_view scalar);

struct Value {
  std::string name;            // "%12"
  std::string type;            // "tensor<256xf32>", "i32", "!tt.ptr<f32>"
  std::vector<int64_t> shape;  // empty for scalars and pointers
  std::string scalar;          // element type of `type` ("f32", "i1", "!tt.ptr<f32>")
};

class TtirWriter {
 public:
  // "%name = <text>", typed `type`; returns the new value. `text` is the op and
  // its operands and trailing type list, e.g. "arith.addf %1, %2 : tensor<256xf32>".
  Value op(std::string_view text, std::vector<int64_t> shape, std::string scalar);
  // A line with no result ("tt.store ...", "tt.return").
  void line(std::string_view text);
  // Opens/closes a nested block (a tt.reduce combiner, an scf.for body).
  void open(std::string_view header);   // writes header, indents
  void close(std::string_view footer);  // dedents, writes footer
  void between(std::string_view text);  // "} else {": at the outer indent, stays in
  std::string freshName();              // "%17": for block arguments and loop results

  const std::string& body() const { return body_; }

  Target target() const { return target_; }
  void setTarget(Target target) { target_ = target; }

 private:
  std::string body_;
  Target target_ = Target::kCuda;
  int indent_ = 2;
  int next_ = 0;
};

}  // namespace jft::codegen::ttir
