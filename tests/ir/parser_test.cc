// parseModule: the printer's inverse on every attribute kind and float
// encoding (checked against the printer and against the IEEE/OCP bit
// layouts), hand-written text, and errors that name line:column.
#include "ir/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/attribute_printer.h"
#include "ir/builder.h"
#include "ir/float_text.h"
#include "ir/printer.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using testing::f32;

Module parseOk(const std::string& text) {
  auto parsed = parseModule(text);
  EXPECT_TRUE(parsed.isOk()) << parsed.status().toString() << "\n" << text;
  return parsed.isOk() ? std::move(parsed).value() : Module{};
}

std::string errorOf(const std::string& text) {
  auto parsed = parseModule(text);
  EXPECT_FALSE(parsed.isOk()) << text;
  return parsed.isOk() ? "" : parsed.status().message();
}

// A module whose one op carries every attribute kind Attribute holds.
Module everyAttributeKind() {
  Module m;
  m.name = "kinds";
  m.attrs = {{"mhlo.num_partitions", int64_t{1}}};
  Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), Type::token()},
                           {f32({4}), Type::makeTuple({f32(), Type::token()})});
  ConvDimensionNumbers conv{0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {2, 1}};
  DotAlgorithm algorithm{f32(), Type::scalar(ElementType::BF16), f32(), 1, 1, 6, true};
  NamedAttrs attrs = {
      {"unit", UnitAttr{}},
      {"flag", true},
      {"count", int64_t{-7}},
      {"scale", 0.1},
      {"huge", HUGE_VAL},
      {"tiny", -HUGE_VAL},
      {"name", std::string("a \"quoted\"\n\x01 string")},
      {"dims", std::vector<int64_t>{1, 0, 2}},
      {"no_dims", std::vector<int64_t>{}},
      {"mask", std::vector<bool>{true, false}},
      {"literal", denseFromValues(Type::tensor(ElementType::I32, {2, 2}), {1, -2, 3, 4})},
      {"type", Type::makeTuple({f32({2}), Type::token()})},
      {"callee", SymbolRef{"helper"}},
      {"comparison_direction", ComparisonDirection::GE},
      {"compare_type", ComparisonType::TOTALORDER},
      {"precision_config",
       std::vector<Precision>{Precision::DEFAULT, Precision::HIGHEST}},
      {"fft_type", FftType::IRFFT},
      {"rng_algorithm", RngAlgorithm::PHILOX},
      {"rng_distribution", RngDistribution::NORMAL},
      {"transpose_a", Transpose::ADJOINT},
      {"api_version", CustomCallApiVersion::TYPED_FFI},
      {"dot_dimension_numbers", DotDimensionNumbers{{0}, {0}, {2}, {1}}},
      {"algorithm", algorithm},
      {"dimension_numbers", conv},
      {"gather", GatherDimensionNumbers{{1}, {0}, {}, {}, {0}, 1}},
      {"scatter", ScatterDimensionNumbers{{1}, {0}, {2}, {3}, {0}, 1}},
      {"accuracy", ResultAccuracy{1e-5, 0.5, 2, ResultAccuracyMode::TOLERANCE}},
      {"channel_handle", ChannelHandle{3, 1}},
      {"aliases", std::vector<OutputOperandAlias>{{{0}, 1, {}}, {{}, 0, {2, 3}}}},
      {"list", AttrList{int64_t{1}, std::string("x"), AttrList{}, UnitAttr{}}},
      {"dict", NamedAttrs{{"inner", int64_t{2}}, {"set", UnitAttr{}}}},
      {"sharding", OpaqueAttr{"sdy", "#sdy.sharding<@mesh, [{\"x\"}, {}]>"}},
      {"opaque_hex", OpaqueAttr{"builtin", "0x150B81"}},
  };
  ValueId c = b.op1(OpKind::CustomCall, {a[0]}, f32({4}), attrs);
  ValueId t = b.op1(OpKind::Tuple, {b.constant(denseFromValues(f32(), {2})), a[1]},
                    Type::makeTuple({f32(), Type::token()}));
  b.ret({c, t});
  b.endFunction();
  return m;
}

TEST(Parser, EveryAttributeKindRoundTrips) {
  Module m = everyAttributeKind();
  const std::string text = printModule(m);
  Module parsed = parseOk(text);
  EXPECT_EQ(printModule(parsed), text);
  // Not only the text: the values come back as the same typed attributes.
  ASSERT_EQ(parsed.functions.size(), 1u);
  const Op& call = parsed.functions[0].body.ops[0];
  for (const auto& [name, value] : m.functions[0].body.ops[0].attrs) {
    const Attribute* back = findAttr(call.attrs, name);
    ASSERT_NE(back, nullptr) << name;
    if (value.is<double>()) continue;  // compared as text above (nan != nan)
    EXPECT_TRUE(*back == value) << name << ": " << printAttribute(*back);
  }
}

TEST(Parser, RegionsMultipleResultsCallsAndLocations) {
  Module m;
  Builder b(m);
  auto h = b.beginFunction("helper", {f32({4})}, {f32({4})}, /*is_public=*/false);
  b.ret({h[0]});
  b.endFunction();
  auto a = b.beginFunction("main", {f32({4}), f32({4})}, {f32({4}), f32({4})});
  LocId file = b.fileLoc("zoo.py", 3, 9);
  Location name{Location::Kind::Name, "jit(f)/sort", 0, 0, 0, 0, {file}};
  Location range{Location::Kind::File, "lib.py", 10, 2, 12, 7, {}};
  LocId callsite =
      m.locations.add(Location{Location::Kind::CallSite,
                               "",
                               0,
                               0,
                               0,
                               0,
                               {m.locations.add(name), m.locations.add(range)}});
  LocId fused =
      m.locations.add(Location{Location::Kind::Fused, "", 0, 0, 0, 0, {file, callsite}});
  b.setLoc(callsite);
  auto cmp = b.beginRegion({f32(), f32(), f32(), f32()});
  b.ret({b.op1(OpKind::Compare, {cmp[0], cmp[1]}, Type::scalar(ElementType::PRED),
               {{"comparison_direction", ComparisonDirection::LT}})});
  Region comparator = b.endRegion();
  b.setLoc(fused);
  auto sorted = b.op(OpKind::Sort, {a[0], a[1]}, {f32({4}), f32({4})},
                     {{"dimension", int64_t{0}}}, {});
  b.lastOp().regions.push_back(std::move(comparator));
  ValueId called =
      b.op1(OpKind::Call, {sorted[1]}, f32({4}), {{"callee", SymbolRef{"helper"}}});
  b.ret({sorted[0], called});
  b.endFunction().loc = file;
  for (int mode = 0; mode < 3; ++mode) {
    PrintOptions options;
    options.print_locations = mode > 0;
    options.full_locations = mode > 1;
    const std::string text = printModule(m, options);
    EXPECT_EQ(printModule(parseOk(text), options), text) << text;
  }
  PrintOptions full;
  full.print_locations = full.full_locations = true;
  const std::string text = printModule(m, full);
  EXPECT_NE(
      text.find("loc(fused[\"zoo.py\":3:9, callsite(\"jit(f)/sort\"(\"zoo.py\":3:9) at "
                "\"lib.py\":10:2 to 12:7)])"),
      std::string::npos)
      << text;
}

// Every encoding of every float type of at most 16 bits prints, parses and
// gives back its bits (NaNs: a NaN); f32/f64 at their edges.
TEST(Parser, FloatLiteralsRoundTripBitExactly) {
  for (int t = 0; t < kNumElementTypes; ++t) {
    const auto type = static_cast<ElementType>(t);
    if (!isFloat(type)) continue;
    std::vector<uint64_t> patterns;
    if (bitWidth(type) <= 16) {
      for (uint64_t bits = 0; bits < (uint64_t{1} << bitWidth(type)); ++bits)
        patterns.push_back(bits);
    } else if (type == ElementType::F32) {
      patterns = {0,          0x80000000, 1,          0x007FFFFF, 0x00800000, 0x3DCCCCCD,
                  0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000};
    } else {
      patterns = {0,
                  0x8000000000000000,
                  1,
                  0x3FB999999999999A,
                  0x7FEFFFFFFFFFFFFF,
                  0x7FF0000000000000,
                  0xFFF0000000000000,
                  0x7FF8000000000000};
    }
    for (uint64_t bits : patterns) {
      const Type scalar = Type::scalar(type);
      const std::string text = "func.func @f() -> " + scalar.str() +
                               " {\n  %0 = stablehlo.constant " +
                               printDenseLiteral(denseFromBits(scalar, {bits})) + " : " +
                               scalar.str() + "\n  return %0 : " + scalar.str() + "\n}\n";
      auto parsed = parseModule(text);
      ASSERT_TRUE(parsed.isOk()) << parsed.status().toString() << "\n" << text;
      const auto& dense =
          parsed->functions[0].body.ops[0].attrs[0].second.as<DenseElements>();
      uint64_t back = 0;
      std::memcpy(&back, dense.bytes.data(), dense.bytes.size());
      const double value = decodeFloat(type, bits);
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(decodeFloat(type, back))) << text;
      } else {
        EXPECT_EQ(back, bits) << elementTypeName(type) << " " << text;
      }
    }
  }
}

TEST(Parser, LiteralSpellingsPrintersOtherThanOursUse) {
  // MLIR's hex bit patterns, -nan, complex pairs, pred as true/false, and
  // a splat written once for many elements.
  Module m = parseOk(
      "func.func @f() -> tensor<2xf32> {\n"
      "  %0 = stablehlo.constant dense<[0x7F800000, -0.0]> : tensor<2xf32>\n"
      "  %1 = stablehlo.constant dense<(1.5,-2.0)> : tensor<3xcomplex<f32>>\n"
      "  %2 = stablehlo.constant dense<[[true, false]]> : tensor<1x2xi1>\n"
      "  %3 = stablehlo.constant dense<-128> : tensor<2x2xi8>\n"
      "  %4 = stablehlo.constant dense<255> : tensor<ui8>\n"
      "  %5 = stablehlo.constant dense<> : tensor<0x3xf32>\n"
      "  return %0 : tensor<2xf32>\n"
      "}\n");
  const auto& ops = m.functions[0].body.ops;
  auto literal = [&](size_t i) { return ops[i].attrs[0].second.as<DenseElements>(); };
  EXPECT_EQ(literal(0).bytes, (std::vector<uint8_t>{0, 0, 0x80, 0x7F, 0, 0, 0, 0x80}));
  EXPECT_TRUE(literal(1).splat);
  EXPECT_EQ(literal(1).bytes, (std::vector<uint8_t>{0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0}));
  EXPECT_EQ(literal(2).bytes, (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(literal(3).bytes, (std::vector<uint8_t>{0x80}));
  EXPECT_EQ(literal(4).bytes, (std::vector<uint8_t>{0xFF}));
  EXPECT_EQ(literal(5).bytes.size(), 0u);
}

TEST(Parser, HandWrittenNamesAndBareFunctions) {
  Module m = parseOk(
      "// a comment\n"
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %sum = stablehlo.add %x, %x : tensor<4xf32>  // trailing comment\n"
      "  %a, %b = stablehlo.sort %sum, %x ({\n"
      "  ^bb0(%p: tensor<f32>, %q: tensor<f32>, %r: tensor<f32>, %s: tensor<f32>):\n"
      "    %lt = stablehlo.compare %p, %q {comparison_direction = "
      "#stablehlo<comparison_direction LT>}"
      "  : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    stablehlo.return %lt : tensor<i1>\n"
      "  }) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n"
      "  return %b : tensor<4xf32>\n"
      "}\n");
  const Function& f = m.functions[0];
  ASSERT_EQ(f.body.ops.size(), 3u);
  EXPECT_EQ(f.body.ops[1].results.size(), 2u);
  EXPECT_EQ(f.body.ops[2].operands[0], f.body.ops[1].results[1]);
  EXPECT_EQ(f.body.ops[1].regions[0].args.size(), 4u);
  // Printed back in the printer's own names.
  EXPECT_NE(printModule(m).find("%1:2 = stablehlo.sort %0, %arg0 ({\n"),
            std::string::npos)
      << printModule(m);
}

TEST(Parser, ErrorsNameLineColumnAndWhatWasExpected) {
  const std::string head = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n";
  EXPECT_EQ(errorOf(head + "  %y = stablehlo.add %x, %z : tensor<4xf32>\n"),
            "IR text 2:26: use of undefined value %z");
  EXPECT_EQ(errorOf(head + "  %y = stablehlo.add %x, %x : tensor<4xi32>\n"),
            "IR text 2:31: operand #0 has type tensor<4xf32>, not tensor<4xi32>");
  EXPECT_EQ(errorOf(head + "  %y = stablehlo.frobnicate %x : tensor<4xf32>\n"),
            "IR text 2:8: unknown op 'stablehlo.frobnicate'");
  EXPECT_EQ(errorOf(head + "  %y = stablehlo.abs %x : tensor<4xf33>\n"),
            "IR text 2:34: unknown element type 'f33'");
  EXPECT_EQ(errorOf(head + "  return %x : tensor<4xf32>\n"),
            "IR text 3:1: expected '}' closing a region, found end of text");
  EXPECT_EQ(errorOf(head + "  %y = stablehlo.abs %x : tensor<4xf32>\n  %y = "
                           "stablehlo.abs %x : tensor<4xf32>\n}"),
            "IR text 3:3: value %y is defined twice");
  EXPECT_EQ(
      errorOf(head + "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>\n}"),
      "IR text 2:27: literal shape does not match tensor<3xf32>");
  EXPECT_EQ(errorOf(head + "  %c = stablehlo.constant dense<300> : tensor<i8>\n}"),
            "IR text 2:33: '300' is not a value of i8");
  EXPECT_NE(
      errorOf(head +
              "  %c = stablehlo.constant dense<...> (9 elements) : tensor<9xf32>\n}")
          .find("elided"),
      std::string::npos);
}

// Malformed text never crashes: every prefix of a printed module, and
// single-byte changes all through it, give a module or an error.
TEST(Parser, DamagedTextGivesErrorsNotCrashes) {
  PrintOptions full;
  full.print_locations = full.full_locations = true;
  const std::string text = printModule(everyAttributeKind(), full);
  // The full text less its final newline is whole, so stop before it.
  for (size_t cut = 1; cut + 1 < text.size(); ++cut) {
    auto parsed = parseModule(text.substr(0, cut));
    EXPECT_FALSE(parsed.isOk()) << cut;
  }
  const std::string replacements = "%<>[](){}\",:#@0-x\n";
  for (size_t at = 0; at < text.size(); at += 3) {
    for (char r : replacements) {
      std::string damaged = text;
      damaged[at] = r;
      auto parsed = parseModule(damaged);
      if (!parsed.isOk()) {
        EXPECT_FALSE(parsed.status().message().empty());
      }
    }
  }
  // Deep nesting is refused, not a stack overflow.
  EXPECT_FALSE(
      parseModule("module attributes {a = " + std::string(100000, '[') + "} {}").isOk());
  EXPECT_FALSE(
      parseModule("func.func @f() -> " + std::string(100000, 't') + "uple<").isOk());
}

}  // namespace
}  // namespace jft::ir
