// Attributes and types held as text (entries without a custom encoding),
// in the spellings builtin and VHLO print (VhloTypes.td / VhloAttrs.td
// assembly formats, MLIR's builtin syntax).
#include "frontend/bytecode/asm_text.h"

#include <gtest/gtest.h>

namespace jft::frontend::bytecode {
namespace {

TEST(AsmText, VhloScalarTypes) {
  MTypePtr f8 = parseTypeAsm("vhlo", "!vhlo.f8E4M3FN_v1");
  EXPECT_EQ(f8->kind, MType::Kind::Float);
  EXPECT_EQ(f8->float_name, "f8E4M3FN");
  EXPECT_EQ(parseTypeAsm("vhlo", "!vhlo.tf31_v1")->float_name,
            "tf32");  // VHLO's own spelling
  MTypePtr u8 = parseTypeAsm("vhlo", "!vhlo.ui8_v1");
  EXPECT_EQ(u8->kind, MType::Kind::Integer);
  EXPECT_EQ(u8->width, 8u);
  EXPECT_EQ(u8->signedness, MType::Signedness::Unsigned);
  EXPECT_EQ(parseTypeAsm("vhlo", "!vhlo.bool_v1")->width, 1u);
  EXPECT_EQ(parseTypeAsm("vhlo", "!vhlo.token_v1")->kind, MType::Kind::Token);
}

TEST(AsmText, TensorsAndFunctions) {
  MTypePtr t = parseTypeAsm("vhlo", "!vhlo.tensor_v1<4x?x!vhlo.f32_v1>");
  ASSERT_EQ(t->kind, MType::Kind::RankedTensor);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{4, kDynamicDim}));
  EXPECT_EQ(t->elements[0]->float_name, "f32");
  MTypePtr scalar = parseTypeAsm("builtin", "tensor<bf16>");
  ASSERT_EQ(scalar->kind, MType::Kind::RankedTensor);
  EXPECT_TRUE(scalar->shape.empty());
  EXPECT_EQ(parseTypeAsm("builtin", "tensor<*xi32>")->kind, MType::Kind::UnrankedTensor);
  MTypePtr f = parseTypeAsm("builtin", "(i32, tensor<2xf32>) -> (i1, index)");
  ASSERT_EQ(f->kind, MType::Kind::Function);
  EXPECT_EQ(f->num_inputs, 2u);
  ASSERT_EQ(f->elements.size(), 4u);
  EXPECT_EQ(f->elements[3]->kind, MType::Kind::Index);
}

TEST(AsmText, VhloAttributes) {
  MAttrPtr accuracy = parseAttrAsm("vhlo",
                                   "#vhlo.result_accuracy_v1<atol = 0.000000e+00, rtol = "
                                   "1.000000e-01, ulps = 2, mode = "
                                   "#vhlo<result_accuracy_mode_v1 TOLERANCE>>");
  ASSERT_EQ(accuracy->kind, MAttr::Kind::Struct);
  EXPECT_EQ(accuracy->name, "vhlo.result_accuracy_v1");
  EXPECT_DOUBLE_EQ(accuracy->get("rtol")->float_value, 0.1);
  EXPECT_EQ(accuracy->get("ulps")->int_value, 2);
  EXPECT_EQ(accuracy->get("mode")->int_value, 2);
  EXPECT_EQ(accuracy->get("mode")->str, "TOLERANCE");

  MAttrPtr direction = parseAttrAsm("vhlo", "#vhlo<comparison_direction_v1 LT>");
  ASSERT_EQ(direction->kind, MAttr::Kind::Enum);
  EXPECT_EQ(direction->name, "vhlo.comparison_direction_v1");
  EXPECT_EQ(direction->int_value, 5);

  MAttrPtr alias = parseAttrAsm(
      "vhlo",
      "#vhlo.output_operand_alias_v1<output_tuple_indices = [0, 1], operand_index = 3, "
      "operand_tuple_indices = []>");
  ASSERT_EQ(alias->kind, MAttr::Kind::Struct);
  EXPECT_EQ(alias->get("output_tuple_indices")->ints, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(alias->get("operand_index")->int_value, 3);

  MAttrPtr integer = parseAttrAsm("vhlo", "#vhlo.integer_v1<-7 : i32>");
  ASSERT_EQ(integer->kind, MAttr::Kind::Integer);
  EXPECT_EQ(integer->int_value, -7);
  EXPECT_EQ(parseAttrAsm("vhlo", "#vhlo.string_v1<\"a\\22b\">")->str, "a\"b");
}

TEST(AsmText, BuiltinAttributes) {
  MAttrPtr dict =
      parseAttrAsm("builtin", "{a = 1 : i32, b, \"c d\" = [true, 2.5 : f32]}");
  ASSERT_EQ(dict->kind, MAttr::Kind::Dictionary);
  EXPECT_EQ(dict->get("a")->int_value, 1);
  EXPECT_EQ(dict->get("b")->kind, MAttr::Kind::Unit);
  ASSERT_EQ(dict->get("c d")->elements.size(), 2u);
  EXPECT_EQ(dict->get("c d")->elements[0]->kind, MAttr::Kind::Bool);
  EXPECT_EQ(dict->get("c d")->elements[1]->float_value, 2.5);
  MAttrPtr array = parseAttrAsm("builtin", "array<i64: 1, -2>");
  ASSERT_EQ(array->kind, MAttr::Kind::DenseArray);
  EXPECT_EQ(array->ints, (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(array->data.size(), 16u);
  MAttrPtr sym = parseAttrAsm("builtin", "@outer::@inner");
  ASSERT_EQ(sym->kind, MAttr::Kind::SymbolRef);
  EXPECT_EQ(sym->str, "outer");
  EXPECT_EQ(sym->elements.at(0)->str, "inner");
}

TEST(AsmText, AnythingElseStaysOpaqueText) {
  MAttrPtr sharding = parseAttrAsm("sdy", "#sdy.sharding<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(sharding->kind, MAttr::Kind::Opaque);
  EXPECT_EQ(sharding->dialect, "sdy");
  EXPECT_EQ(sharding->str, "#sdy.sharding<@mesh, [{\"x\"}, {}]>");
  for (std::string text :
       {"#vhlo.string_v1<", "affine_map<(d0) -> (d0)>", "[1, 2", "<<>>", ""}) {
    MAttrPtr a = parseAttrAsm("builtin", text);
    EXPECT_EQ(a->kind, MAttr::Kind::Opaque) << text;
    EXPECT_EQ(a->str, text);
  }
  EXPECT_EQ(parseTypeAsm("foo", "!foo.bar<1, 2>")->kind, MType::Kind::Opaque);
  // Hostile nesting ends in Opaque, not in a stack overflow.
  std::string deep(100000, '[');
  EXPECT_EQ(parseAttrAsm("builtin", deep)->kind, MAttr::Kind::Opaque);
  std::string deep_types;
  for (int i = 0; i < 20000; ++i) deep_types += "tuple<";
  EXPECT_EQ(parseTypeAsm("builtin", deep_types)->kind, MType::Kind::Opaque);
}

TEST(AsmText, EveryProperPrefixStaysOpaque) {
  // Views into a longer buffer: reading past a view's end would see the rest
  // of the text and could wrongly complete the value.
  const std::string texts[] = {
      "#vhlo.type_extensions_v1<bounds = [1, -9223372036854775808]>",
      "#vhlo.output_operand_alias_v1<output_tuple_indices = [0], operand_index = 0, "
      "operand_tuple_indices = []>",
      "{a = array<i64: 1, 2>, b = [\"s\", 2.5 : f32]}",
  };
  for (const std::string& text : texts) {
    EXPECT_NE(parseAttrAsm("vhlo", text)->kind, MAttr::Kind::Opaque) << text;
    for (size_t n = 0; n < text.size(); ++n) {
      std::string_view prefix(text.data(), n);
      MAttrPtr a = parseAttrAsm("vhlo", prefix);
      if (a->kind == MAttr::Kind::Opaque) {
        EXPECT_EQ(a->str, prefix);
      } else {
        // Only a prefix that is itself complete may decode ("{a = array<i64: 1, 2>" is
        // not).
        EXPECT_TRUE(prefix.empty() || prefix.back() == '>' || prefix.back() == '}' ||
                    prefix.back() == ']')
            << prefix;
      }
    }
  }
  const std::string type = "!vhlo.tensor_v1<4x?x!vhlo.f32_v1>";
  for (size_t n = 0; n < type.size(); ++n)
    EXPECT_EQ(parseTypeAsm("vhlo", std::string_view(type.data(), n))->kind,
              MType::Kind::Opaque)
        << n;
}

}  // namespace
}  // namespace jft::frontend::bytecode
