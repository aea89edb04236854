// Attention programs as JAX lowers them, written as IR text for the planner
// and kernel tests of the attention family (fusion/attention_form.h):
//
//   s = einsum("bhqd,bhkd->bhqk", q, k).astype(f32) * scale
//   s = where(tril(ones((t, t), bool)), s, fill)          (causal only)
//   out = einsum("bhqk,bhkd->bhqd", softmax(s, -1).astype(q.dtype), v)
//
// and the variants the tests need (scale by division, the probabilities
// read elsewhere, a mask op shared with another reader).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "ir/module.h"
#include "ir/parser.h"
#include "support/status.h"

namespace jft::codegen::ttir::testing {

struct AttentionProgram {
  int64_t batch = 2, heads = 2, tq = 64, tk = 64, d = 32, dv = 32;
  std::string type = "bf16";  // q, k, v and the output: bf16, f16 or f32
  bool causal = true;
  bool divide = false;        // s / sqrt(d) instead of s * d^-0.5
  bool highest = false;       // precision_config HIGHEST (f32: exact products)
  bool return_probs = false;  // the probabilities are read outside too
  bool return_mask = false;   // the causal compare is read outside too
  std::string fill = "-1.000000e+30";
  // Keys k <= q + mask_offset kept (causal only): negative offsets leave the
  // first rows with no key (uniform weights under a finite fill).
  int64_t mask_offset = 0;
  double scale() const { return 1.0 / std::sqrt(static_cast<double>(d)); }
};

inline std::string attentionText(const AttentionProgram& p) {
  const std::string e = p.type;
  auto t = [](std::initializer_list<int64_t> dims, const std::string& elem) {
    std::string s = "tensor<";
    for (int64_t d : dims) s += std::to_string(d) + "x";
    return s + elem + ">";
  };
  const int64_t b = p.batch, h = p.heads;
  const std::string q = t({b, h, p.tq, p.d}, e), k = t({b, h, p.tk, p.d}, e),
                    v = t({b, h, p.tk, p.dv}, e), out = t({b, h, p.tq, p.dv}, e);
  const std::string s_e = t({b, h, p.tq, p.tk}, e), s = t({b, h, p.tq, p.tk}, "f32"),
                    row = t({b, h, p.tq}, "f32"), row1 = t({b, h, p.tq, 1}, "f32");
  const std::string precision =
      p.highest ? ", precision_config = [#stablehlo<precision HIGHEST>, "
                  "#stablehlo<precision HIGHEST>]"
                : "";
  std::ostringstream o;
  o << "func.func @main(%q: " << q << ", %k: " << k << ", %v: " << v << ") -> (" << out
    << (p.return_probs ? ", " + s : "")
    << (p.return_mask ? ", " + t({p.tq, p.tk}, "i1") : "") << ") {\n";
  o << "  " << (e == "f32" ? "%sf" : "%s")
    << " = stablehlo.dot_general %q, %k {dot_dimension_numbers = #stablehlo.dot<"
       "lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], "
       "lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>"
    << precision << "} : (" << q << ", " << k << ") -> " << (e == "f32" ? s : s_e)
    << "\n";
  if (e != "f32") o << "  %sf = stablehlo.convert %s : (" << s_e << ") -> " << s << "\n";
  char scale[64];
  std::snprintf(scale, sizeof scale, "%.9e", p.divide ? 1 / p.scale() : p.scale());
  o << "  %c = stablehlo.constant dense<" << scale << "> : tensor<f32>\n";
  o << "  %cb = stablehlo.broadcast_in_dim %c {broadcast_dimensions = array<i64>} : "
       "(tensor<f32>) -> "
    << s << "\n";
  o << "  %x0 = stablehlo." << (p.divide ? "divide" : "multiply") << " %sf, %cb : " << s
    << "\n";
  std::string x = "%x0";
  if (p.causal) {
    const std::string ii = t({p.tq, p.tk}, "i32"), pred = t({p.tq, p.tk}, "i1");
    o << "  %row = stablehlo.iota {iota_dimension = 0} : " << ii << "\n";
    o << "  %col = stablehlo.iota {iota_dimension = 1} : " << ii << "\n";
    std::string row = "%row";
    if (p.mask_offset != 0) {
      o << "  %off = stablehlo.constant dense<" << p.mask_offset << "> : tensor<i32>\n";
      o << "  %offb = stablehlo.broadcast_in_dim %off {broadcast_dimensions = "
           "array<i64>} : "
           "(tensor<i32>) -> "
        << ii << "\n";
      o << "  %rowo = stablehlo.add %row, %offb : " << ii << "\n";
      row = "%rowo";
    }
    o << "  %keep = stablehlo.compare " << row
      << ", %col {comparison_direction = "
         "#stablehlo<comparison_direction GE>, compare_type = "
         "#stablehlo<comparison_type SIGNED>} : ("
      << ii << ", " << ii << ") -> " << pred << "\n";
    o << "  %keepb = stablehlo.broadcast_in_dim %keep {broadcast_dimensions = array<i64: "
         "2, 3>} : ("
      << pred << ") -> " << t({b, h, p.tq, p.tk}, "i1") << "\n";
    o << "  %fill = stablehlo.constant dense<" << p.fill << "> : tensor<f32>\n";
    o << "  %fillb = stablehlo.broadcast_in_dim %fill {broadcast_dimensions = "
         "array<i64>} "
         ": (tensor<f32>) -> "
      << s << "\n";
    o << "  %x = stablehlo.select %keepb, %x0, %fillb : (" << t({b, h, p.tq, p.tk}, "i1")
      << ", " << s << ", " << s << ") -> " << s << "\n";
    x = "%x";
  }
  auto reduce = [&](const std::string& name, const std::string& in,
                    const std::string& init, const std::string& op) {
    o << "  " << name << " = stablehlo.reduce " << in << ", " << init
      << " {dimensions = array<i64: 3>} ({\n"
      << "  ^bb0(" << name << "_a: tensor<f32>, " << name << "_b: tensor<f32>):\n"
      << "    " << name << "_r = stablehlo." << op << " " << name << "_a, " << name
      << "_b : tensor<f32>\n"
      << "    stablehlo.return " << name << "_r : tensor<f32>\n"
      << "    }) : (" << s << ", tensor<f32>) -> " << row << "\n";
  };
  auto rowBroadcast = [&](const std::string& name, const std::string& in) {
    o << "  " << name << "1 = stablehlo.broadcast_in_dim " << in
      << " {broadcast_dimensions = array<i64: 0, 1, 2>} : (" << row << ") -> " << row1
      << "\n";
    o << "  " << name << " = stablehlo.broadcast_in_dim " << name
      << "1 {broadcast_dimensions = array<i64: 0, 1, 2, 3>} : (" << row1 << ") -> " << s
      << "\n";
  };
  o << "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n";
  reduce("%mx", x, "%ninf", "maximum");
  o << "  %ninfb = stablehlo.broadcast_in_dim %ninf {broadcast_dimensions = array<i64>} "
       ": "
       "(tensor<f32>) -> "
    << row << "\n";
  o << "  %m = stablehlo.maximum %ninfb, %mx : " << row << "\n";
  rowBroadcast("%mb", "%m");
  o << "  %sub = stablehlo.subtract " << x << ", %mb : " << s << "\n";
  o << "  %e = stablehlo.exponential %sub : " << s << "\n";
  o << "  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n";
  reduce("%l", "%e", "%zero", "add");
  rowBroadcast("%lb", "%l");
  o << "  %p = stablehlo.divide %e, %lb : " << s << "\n";
  std::string probs = "%p";
  if (e != "f32") {
    o << "  %pc = stablehlo.convert %p : (" << s << ") -> " << s_e << "\n";
    probs = "%pc";
  }
  o << "  %o = stablehlo.dot_general " << probs
    << ", %v {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0, 1], "
       "rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], "
       "rhs_contracting_dimensions = [2]>"
    << precision << "} : (" << (e == "f32" ? s : s_e) << ", " << v << ") -> " << out
    << "\n";
  o << "  return %o" << (p.return_probs ? ", %p" : "") << (p.return_mask ? ", %keep" : "")
    << " : " << out << (p.return_probs ? ", " + s : "")
    << (p.return_mask ? ", " + t({p.tq, p.tk}, "i1") : "") << "\n}\n";
  return o.str();
}

inline StatusOr<ir::Module> attentionModule(const AttentionProgram& p) {
  return ir::parseModule(attentionText(p));
}

}  // namespace jft::codegen::ttir::testing
