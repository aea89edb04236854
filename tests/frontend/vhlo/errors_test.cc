// Every user-facing import error: provoked by a hand-built tree, checked for
// its code and for a message that names the op and the source position.
#include <gtest/gtest.h>

#include "frontend/vhlo/import.h"
#include "import_test_util.h"
#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

// zoo.py:17:20 reached through the name/call-site chain JAX writes.
MAttrPtr jaxLoc() {
  return nameLoc("jit(smoke)/mul",
                 callSiteLoc(nameLoc("smoke", fileLoc("zoo.py", 17, 20)),
                             nameLoc("<module>", fileLoc("dump_fixtures.py", 31, 14))));
}

// main(f32[4]) whose body is `ops` (given the argument) then a return of
// the last op's results.
template <typename Body>
Status importBody(Body body, std::vector<MTypePtr> results = {}) {
  TreeBuilder b;
  if (results.empty()) results = {f32s({4})};
  MTree tree =
      singleFunction(b, {f32s({4})}, results,
                     [&](const std::vector<uint32_t>& args) { return body(b, args); });
  auto m = importTree(tree);
  return m.isOk() ? Status::ok() : m.status();
}

void expectError(const Status& s, StatusCode code, const std::string& fragment) {
  EXPECT_EQ(s.code(), code) << s.toString();
  EXPECT_NE(s.message().find(fragment), std::string::npos)
      << "'" << s.message() << "' lacks '" << fragment << "'";
}

TEST(ImportErrors, UnknownOpVersionNamesOpAndLine) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.foo_v3", args, {f32s({4})}, {}, jaxLoc()));
    return ops;
  });
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "vhlo.foo_v3 is not supported (at zoo.py:17:20)");
}

TEST(ImportErrors, NewerVersionOfAKnownOp) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.tanh_v3", args, {f32s({4})}, {}, fileLoc("m.py", 2, 3)));
    return ops;
  });
  EXPECT_EQ(s.message(), "vhlo.tanh_v3 is not supported (at m.py:2:3)");
}

TEST(ImportErrors, OpsWithoutIrFormAreUnsupported) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.async_done_v1", args, {f32s({4})}));
    return ops;
  });
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "vhlo.async_done_v1 is not supported (at unknown location)");
}

TEST(ImportErrors, ForeignOpInABody) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("sdy.all_gather", args, {f32s({4})}, {}, jaxLoc()));
    return ops;
  });
  EXPECT_EQ(s.message(), "sdy.all_gather is not supported (at zoo.py:17:20)");
}

TEST(ImportErrors, MissingAttribute) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.broadcast_in_dim_v1", args, {f32s({4})}, {}, jaxLoc()));
    return ops;
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "vhlo.broadcast_in_dim_v1: missing attribute 'broadcast_dimensions' (at "
            "zoo.py:17:20)");
}

TEST(ImportErrors, WrongAttributeKind) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.broadcast_in_dim_v1", args, {f32s({4})},
                       {{"broadcast_dimensions", stringAttr("0")}}, jaxLoc()));
    return ops;
  });
  expectError(s, StatusCode::kInvalidArgument,
              "attribute 'broadcast_dimensions' must be a list of integers, got string");
  expectError(s, StatusCode::kInvalidArgument, "(at zoo.py:17:20)");
}

TEST(ImportErrors, EnumOutOfRangeOrOfAnotherKind) {
  auto compare = [](MAttrPtr direction) {
    return importBody(
        [&](TreeBuilder& b, const std::vector<uint32_t>& args) {
          std::vector<MOp> ops;
          ops.push_back(b.op("vhlo.compare_v1", {args[0], args[0]},
                             {tensor({4}, intType(1))},
                             {{"comparison_direction", direction},
                              {"compare_type", enumAttr("vhlo.comparison_type_v1", 1)}}));
          return ops;
        },
        {tensor({4}, intType(1))});
  };
  expectError(compare(enumAttr("vhlo.comparison_direction_v1", 9)),
              StatusCode::kInvalidArgument, "invalid comparison_direction_v1 value 9");
  expectError(compare(enumAttr("vhlo.fft_type_v1", 0)), StatusCode::kInvalidArgument,
              "must be a comparison_direction_v1 enum");
}

TEST(ImportErrors, OperandCountAndRegionCount) {
  Status operands = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.add_v1", args, {f32s({4})}, {}, jaxLoc()));
    return ops;
  });
  EXPECT_EQ(operands.message(),
            "vhlo.add_v1: expects 2 operands, got 1 (at zoo.py:17:20)");

  Status regions = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.while_v1", args, {f32s({4})}));
    return ops;
  });
  expectError(regions, StatusCode::kInvalidArgument, "expects 2 regions, got 0");

  Status reduce = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    MOp r = b.op("vhlo.reduce_v1", {args[0], args[0], args[0]}, {f32s({4})},
                 {{"dimensions", i64s({})}});
    r.regions.push_back(b.region({}, [&](const std::vector<uint32_t>&) {
      std::vector<MOp> body;
      body.push_back(b.ret({}));
      return body;
    }));
    ops.push_back(std::move(r));
    return ops;
  });
  expectError(reduce, StatusCode::kInvalidArgument, "as many init values as inputs");
}

TEST(ImportErrors, OperandsOutOfRangeOrUndefined) {
  Status beyond = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.add_v1", {args[0], 1000}, {f32s({4})}));
    return ops;
  });
  expectError(beyond, StatusCode::kInvalidArgument, "operand %1000 is beyond the");

  Status before = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    uint32_t later = b.newValue();
    b.newValue();
    ops.push_back(b.op("vhlo.add_v1", {args[0], later}, {f32s({4})}));
    return ops;
  });
  expectError(before, StatusCode::kInvalidArgument, "is used before it is defined");
}

TEST(ImportErrors, ValueUsedOutsideItsRegion) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    uint32_t inner = 0;
    MOp w = b.op("vhlo.while_v1", args, {f32s({4})});
    w.regions.push_back(b.region({f32s({4})}, [&](const std::vector<uint32_t>& a) {
      std::vector<MOp> body;
      body.push_back(b.op("vhlo.constant_v1", {}, {tensor({}, intType(1))},
                          {{"value", denseRaw(tensor({}, intType(1)), {1})}}));
      inner = body.back().results[0];
      body.push_back(b.ret({inner}));
      (void)a;
      return body;
    }));
    w.regions.push_back(b.region({f32s({4})}, [&](const std::vector<uint32_t>& a) {
      std::vector<MOp> body;
      body.push_back(b.ret(a));
      return body;
    }));
    ops.push_back(std::move(w));
    ops.push_back(b.op("vhlo.select_v1", {inner, args[0], args[0]}, {f32s({4})}));
    return ops;
  });
  expectError(s, StatusCode::kInvalidArgument, "used outside the region that defines it");
}

TEST(ImportErrors, ValueDefinedTwice) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    MOp neg = b.op("vhlo.negate_v1", args, {f32s({4})});
    neg.results = {args[0]};
    ops.push_back(std::move(neg));
    return ops;
  });
  expectError(s, StatusCode::kInvalidArgument, "is defined twice");
}

TEST(ImportErrors, RegionWithoutReturnOrWithTwoBlocks) {
  Status no_return = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    MOp r = b.op("vhlo.reduce_v1", {args[0], args[0]}, {f32s({4})},
                 {{"dimensions", i64s({})}}, jaxLoc());
    r.regions.push_back(
        b.region({f32s({}), f32s({})}, [&](const std::vector<uint32_t>& a) {
          std::vector<MOp> body;
          body.push_back(b.op("vhlo.add_v1", a, {f32s({})}));
          return body;
        }));
    ops.push_back(std::move(r));
    return ops;
  });
  EXPECT_EQ(no_return.message(),
            "vhlo.reduce_v1: a region must end in vhlo.return_v1 (at zoo.py:17:20)");

  Status two_blocks = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    MOp r = b.op("vhlo.reduce_v1", {args[0], args[0]}, {f32s({4})},
                 {{"dimensions", i64s({})}});
    r.regions.push_back(MRegion{{MBlock{}, MBlock{}}});
    ops.push_back(std::move(r));
    return ops;
  });
  expectError(two_blocks, StatusCode::kInvalidArgument, "exactly one block, got 2");
}

TEST(ImportErrors, DynamicShapeNamesOpAndLine) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.negate_v1", args, {f32s({kDynamicDim})}, {}, jaxLoc()));
    return ops;
  });
  EXPECT_EQ(s.message(),
            "vhlo.negate_v1: dynamic dimension in tensor<?xf32>: shapes must be static "
            "(at zoo.py:17:20)");
}

TEST(ImportErrors, QuantizedResultIsUnimplemented) {
  Status s = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.uniform_quantize_v1", args,
                       {tensor({4}, quantized("!quant.uniform<i8:f32, 0.5>"))}, {},
                       jaxLoc()));
    return ops;
  });
  expectError(s, StatusCode::kUnimplemented, "vhlo.uniform_quantize_v1: quantized");
  expectError(s, StatusCode::kUnimplemented, "(at zoo.py:17:20)");
}

TEST(ImportErrors, FunctionSignatureMismatches) {
  TreeBuilder b;
  MOp f =
      b.func("main", {f32s({4})}, {f32s({8})}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(b.ret(args));
        return ops;
      });
  std::vector<MOp> fns;
  fns.push_back(std::move(f));
  auto m = importTree(b.module(std::move(fns)));
  expectError(m.status(), StatusCode::kInvalidArgument,
              "vhlo.func_v1 @main: result 0 has type tensor<4xf32> but the function type "
              "says tensor<8xf32>");
}

TEST(ImportErrors, FunctionAttributesMalformed) {
  TreeBuilder b;
  MOp f =
      b.func("main", {f32s({4})}, {f32s({4})}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(b.ret(args));
        return ops;
      });
  for (auto& [name, value] : f.attrs)
    if (name == "res_attrs") value = arrayAttr({dictAttr({}), dictAttr({})});
  std::vector<MOp> fns;
  fns.push_back(std::move(f));
  auto m = importTree(b.module(std::move(fns)));
  expectError(m.status(), StatusCode::kInvalidArgument,
              "attribute 'res_attrs' has 2 entries for 1 values");
}

TEST(ImportErrors, DuplicateFunctionsAndMissingModule) {
  TreeBuilder b;
  auto body = [&](const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.ret(args));
    return ops;
  };
  std::vector<MOp> fns;
  fns.push_back(b.func("f", {f32s({4})}, {f32s({4})}, body));
  fns.push_back(b.func("f", {f32s({4})}, {f32s({4})}, body));
  auto m = importTree(b.module(std::move(fns)));
  expectError(m.status(), StatusCode::kInvalidArgument, "function @f is defined twice");

  MTree empty;
  expectError(importTree(empty).status(), StatusCode::kInvalidArgument,
              "no builtin.module");
  MTree two;
  two.top.resize(2);
  two.top[0].name = two.top[1].name = "builtin.module";
  expectError(importTree(two).status(), StatusCode::kInvalidArgument,
              "expected one builtin.module");
}

TEST(ImportErrors, NullAttributeAndNullTypeDoNotCrash) {
  Status null_attr = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.broadcast_in_dim_v1", args, {f32s({4})},
                       {{"broadcast_dimensions", nullptr}}));
    return ops;
  });
  EXPECT_EQ(null_attr.code(), StatusCode::kInvalidArgument);
  Status null_type = importBody([](TreeBuilder& b, const std::vector<uint32_t>& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("vhlo.negate_v1", args, {nullptr}));
    return ops;
  });
  EXPECT_EQ(null_type.code(), StatusCode::kInvalidArgument);
}

TEST(ImportErrors, BytesThatAreNotBytecode) {
  const uint8_t junk[] = {'n', 'o', 't', ' ', 'M', 'L', 'I', 'R'};
  auto m = importStableHlo(junk, sizeof junk);
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(importStableHlo(nullptr, 0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
