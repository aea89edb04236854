// Custom calls for XLA FFI handlers through compile(): one FfiThunk per call
// with its operands' and results' element types and dims, backend_config as
// the handler's attributes (typed scalars as jax writes them: index is ui64),
// legal in fl_only and reported on the custom_call route; inside a while body
// it lands in the loop's list. Other custom calls are refused naming the target,
// the source line and what to do.
#include <gtest/gtest.h>

#include <variant>

#include "codegen/library/ffi_call.h"
#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using testing::f32;

ir::Attribute u64Scalar(uint64_t v) {
  ir::DenseElements d;
  d.type = Type::tensor(ElementType::U64, {});
  for (int i = 0; i < 8; ++i) d.bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return ir::Attribute(d);
}

ir::NamedAttrs callbackAttrs(const std::string& target,
                             ir::CustomCallApiVersion version) {
  ir::NamedAttrs config = {{"index", u64Scalar(3)},
                           {"name", ir::Attribute(std::string("cb"))},
                           {"flag", ir::Attribute(true)}};
  return {{"api_version", ir::Attribute(version)},
          {"backend_config", ir::Attribute(config)},
          {"call_target_name", ir::Attribute(target)},
          {"has_side_effect", ir::Attribute(true)}};
}

// main(x: f32[4]) -> (f32[4], f32[2]) = custom_call @target(x)
ir::Module callModule(
    const std::string& target,
    ir::CustomCallApiVersion version = ir::CustomCallApiVersion::TYPED_FFI) {
  ir::Module m;
  m.name = "ffi";
  ir::Builder b(m);
  auto args = b.beginFunction("main", {f32({4})}, {f32({4}), f32({2})});
  b.setLoc(b.fileLoc("model.py", 12, 4));
  auto out = b.op(OpKind::CustomCall, args, {f32({4}), f32({2})},
                  callbackAttrs(target, version));
  b.setLoc(ir::kUnknownLoc);
  b.ret(out);
  b.endFunction();
  return m;
}

StatusOr<Executable> compileIt(ir::Module m) {
  Options options;
  options.mode = Mode::kFlOnly;
  return compileModule(std::move(m), options, nullptr, nullptr);
}

TEST(FfiRoute, AnFfiCustomCallIsOneThunkWithTypedAttributes) {
  auto compiled = compileIt(callModule("xla_ffi_python_gpu_callback"));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  const runtime::FfiThunk* call = nullptr;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* f = std::get_if<runtime::FfiThunk>(&t)) call = f;
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->target, "xla_ffi_python_gpu_callback");
  ASSERT_EQ(call->argument_shapes.size(), 1u);
  EXPECT_EQ(call->argument_shapes[0].dtype, XLA_FFI_DataType_F32);
  EXPECT_EQ(call->argument_shapes[0].dims, std::vector<int64_t>{4});
  ASSERT_EQ(call->result_shapes.size(), 2u);
  EXPECT_EQ(call->result_shapes[1].dims, std::vector<int64_t>{2});
  // The results are the program's outputs, written in place.
  EXPECT_EQ(call->results[0], p.output_slots[0]);
  EXPECT_EQ(call->results[1], p.output_slots[1]);
  EXPECT_EQ(call->arguments[0], 0);  // the parameter's slot
  EXPECT_NE(call->location.find("model.py:12"), std::string::npos) << call->location;

  const ffi::Attribute& a = call->attributes;
  ASSERT_EQ(a.kind, ffi::Attribute::Kind::kDictionary);
  ASSERT_EQ(a.names.size(), 3u);
  for (size_t i = 0; i < a.names.size(); ++i) {
    if (a.names[i] == "index") {
      EXPECT_EQ(a.values[i].kind, ffi::Attribute::Kind::kScalar);
      EXPECT_EQ(a.values[i].dtype, XLA_FFI_DataType_U64);
      EXPECT_EQ(a.values[i].bytes, (std::vector<uint8_t>{3, 0, 0, 0, 0, 0, 0, 0}));
    } else if (a.names[i] == "flag") {
      EXPECT_EQ(a.values[i].dtype, XLA_FFI_DataType_PRED);
      EXPECT_EQ(a.values[i].bytes, std::vector<uint8_t>{1});
    } else {
      EXPECT_EQ(a.names[i], "name");
      EXPECT_EQ(a.values[i].text, "cb");
    }
  }
  bool reported = false;
  for (const RouteEntry& e : compiled->report.entries)
    if (e.route == "custom_call") {
      reported = true;
      EXPECT_NE(e.tile.find("ffi @xla_ffi_python_gpu_callback"), std::string::npos)
          << e.tile;
    }
  EXPECT_TRUE(reported);
}

TEST(FfiRoute, ACallInsideAWhileBodyLandsInTheLoopList) {
  // main(x) = while (i < 3) { i + 1, custom_call(x) }: the call in the body.
  ir::Module m;
  m.name = "ffi_loop";
  ir::Builder b(m);
  const Type i32 = Type::scalar(ElementType::I32);
  auto args = b.beginFunction("main", {f32({4})}, {f32({4})});
  auto zero = b.constant(ir::DenseElements::makeSplat(i32, {0, 0, 0, 0}));
  auto three = b.constant(ir::DenseElements::makeSplat(i32, {3, 0, 0, 0}));
  auto one = b.constant(ir::DenseElements::makeSplat(i32, {1, 0, 0, 0}));
  auto cond = b.beginRegion({i32, f32({4})});
  b.ret({b.op1(OpKind::Compare, {cond[0], three}, Type::scalar(ElementType::PRED),
               {{"comparison_direction", ir::Attribute(ir::ComparisonDirection::LT)}})});
  ir::Region condRegion = b.endRegion();
  auto body = b.beginRegion({i32, f32({4})});
  auto next = b.op1(OpKind::Add, {body[0], one}, i32);
  ir::NamedAttrs attrs =
      callbackAttrs("loop_target", ir::CustomCallApiVersion::TYPED_FFI);
  auto called = b.op(OpKind::CustomCall, {body[1]}, {f32({4})}, attrs);
  b.ret({next, called[0]});
  ir::Region bodyRegion = b.endRegion();
  std::vector<ir::Region> regions;
  regions.push_back(std::move(condRegion));
  regions.push_back(std::move(bodyRegion));
  auto loop =
      b.op(OpKind::While, {zero, args[0]}, {i32, f32({4})}, {}, std::move(regions));
  b.ret({loop[1]});
  b.endFunction();
  auto compiled = compileIt(std::move(m));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  int inLists = 0, onTop = 0;
  for (const auto& list : compiled->program.lists)
    for (const runtime::Thunk& t : list)
      inLists += std::holds_alternative<runtime::FfiThunk>(t);
  for (const runtime::Thunk& t : compiled->program.thunks)
    onTop += std::holds_alternative<runtime::FfiThunk>(t);
  // Once in each parity's body (the call's result is a carried value the
  // body computes: two sets of carried slots).
  EXPECT_EQ(inLists, 2);
  EXPECT_EQ(onTop, 0);
}

// cudnn_rnn_bwd_ffi's form: main(x: f32[4], w: f32[4]) -> (f32[4], f32[4]) =
// custom_call(x, w) with result 1 aliasing operand 1 (the handler adds into
// it). The result's slot starts as a copy of w and the handler is given that
// slot as argument 1 too.
TEST(FfiRoute, AnAliasedResultStartsAsItsOperandAndIsPassedInItsPlace) {
  ir::Module m;
  m.name = "ffi_alias";
  ir::Builder b(m);
  auto args = b.beginFunction("main", {f32({4}), f32({4})}, {f32({4}), f32({4})});
  b.setLoc(b.fileLoc("model.py", 20, 2));
  ir::NamedAttrs attrs = callbackAttrs("rnn_bwd", ir::CustomCallApiVersion::TYPED_FFI);
  attrs.push_back({"output_operand_aliases",
                   ir::Attribute(std::vector<ir::OutputOperandAlias>{{{1}, 1, {}}})});
  auto out = b.op(OpKind::CustomCall, args, {f32({4}), f32({4})}, std::move(attrs));
  b.ret(out);
  b.endFunction();
  auto compiled = compileIt(std::move(m));
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  const runtime::Program& p = compiled->program;
  const runtime::CopyThunk* copy = nullptr;
  const runtime::FfiThunk* call = nullptr;
  for (const runtime::Thunk& t : p.thunks) {
    if (const auto* c = std::get_if<runtime::CopyThunk>(&t)) {
      EXPECT_EQ(call, nullptr) << "the copy comes before the call";
      copy = c;
    }
    if (const auto* f = std::get_if<runtime::FfiThunk>(&t)) call = f;
  }
  ASSERT_NE(call, nullptr);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->source, 1);  // w's parameter slot
  EXPECT_EQ(copy->destination, call->results[1]);
  EXPECT_EQ(copy->bytes, 16u);
  EXPECT_EQ(call->arguments[0], 0);
  EXPECT_EQ(call->arguments[1], call->results[1]);
  EXPECT_NE(call->results[0], call->results[1]);
  for (const RouteEntry& e : compiled->report.entries) {
    if (e.route == "custom_call") {
      EXPECT_NE(e.tile.find("in_place=1->1"), std::string::npos) << e.tile;
    }
  }
}

// JAX's linalg FFI calls ask for column-major matrices (operand_layouts
// {1, 2, 0} for a batch of matrices), as hybrid_geqp3 does: main(a: f32[2,3,4],
// jpvt: i32[2,4]) -> (f32[2,3,4], i32[2,4], f32[2,3]), result 0 in place of a.
ir::Attribute layout(std::vector<int64_t> minor_to_major) {
  return ir::Attribute(std::move(minor_to_major));
}

ir::Module columnMajorCall() {
  ir::Module m;
  m.name = "ffi_layouts";
  ir::Builder b(m);
  const Type pivots = Type::tensor(ElementType::I32, {2, 4});
  auto args = b.beginFunction("main", {f32({2, 3, 4}), pivots},
                              {f32({2, 3, 4}), pivots, f32({2, 3})});
  ir::NamedAttrs attrs = callbackAttrs("geqp3_like", ir::CustomCallApiVersion::TYPED_FFI);
  attrs.push_back({"operand_layouts",
                   ir::Attribute(ir::AttrList{layout({1, 2, 0}), layout({1, 0})})});
  attrs.push_back(
      {"result_layouts",
       ir::Attribute(ir::AttrList{layout({1, 2, 0}), layout({1, 0}), layout({1, 0})})});
  attrs.push_back({"output_operand_aliases",
                   ir::Attribute(std::vector<ir::OutputOperandAlias>{{{0}, 0, {}}})});
  auto out = b.op(OpKind::CustomCall, args, {f32({2, 3, 4}), pivots, f32({2, 3})},
                  std::move(attrs));
  b.ret(out);
  b.endFunction();
  return m;
}

TEST(FfiRoute, ColumnMajorBuffersAreCopiedIntoAndOutOfTheirLayout) {
  ir::Module m = columnMajorCall();
  const ir::Function& main = m.functions[0];
  const ir::Op call_op = main.body.ops[0];
  fusion::Plan plan;
  fusion::Fusion group;
  group.name = "fusion_0_custom_call";
  group.route = fusion::Route::kCustomCall;
  group.ops = {0};
  plan.fusions = {group};
  StatusOr<FfiCall> lowered = lowerFfiGroup(m, main, plan, 0);
  ASSERT_TRUE(lowered.isOk()) << lowered.status().toString();
  const FfiCall& call = *lowered;
  // The handler sees the logical dims.
  EXPECT_EQ(call.thunk.argument_shapes[0].dims, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(call.thunk.result_shapes[0].dims, (std::vector<int64_t>{2, 3, 4}));
  // Operand 0 through a copy with each matrix's dims swapped; the row-major
  // pivots and taus are read and written in place.
  ASSERT_EQ(call.before.size(), 1u);
  const ir::Op& in = call.before[0].scratch.body.ops[0];
  EXPECT_EQ(in.kind, OpKind::Transpose);
  EXPECT_EQ(in.operands[0], call_op.operands[0]);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(in.attrs, "permutation"),
            (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(call.inputs[0], in.results[0]);
  EXPECT_EQ(m.typeOf(call.inputs[0]), f32({2, 4, 3}));
  EXPECT_EQ(call.inputs[1], call_op.operands[1]);
  // Result 0 written in the call's layout, then copied into the op's result.
  ASSERT_EQ(call.after.size(), 1u);
  const ir::Op& out = call.after[0].scratch.body.ops[0];
  EXPECT_EQ(out.kind, OpKind::Transpose);
  EXPECT_EQ(out.operands[0], call.outputs[0]);
  EXPECT_EQ(out.results[0], call_op.results[0]);
  EXPECT_EQ(*ir::findAttrAs<std::vector<int64_t>>(out.attrs, "permutation"),
            (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(m.typeOf(call.outputs[0]), f32({2, 4, 3}));
  EXPECT_EQ(call.outputs[1], call_op.results[1]);
  EXPECT_EQ(call.outputs[2], call_op.results[2]);
  EXPECT_NE(ffiCallText(call).find("layout_copies=2"), std::string::npos)
      << ffiCallText(call);
}

TEST(FfiRoute, ColumnMajorCallCompilesWithItsCopyKernelsAroundIt) {
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  auto compiled = compileModule(columnMajorCall(), options, nullptr, &stages);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  ASSERT_EQ(stages.kernel_names.size(), 2u);
  EXPECT_NE(stages.kernel_names[0].find("operand0_layout"), std::string::npos);
  EXPECT_NE(stages.kernel_names[1].find("result0_layout"), std::string::npos);
  // In place: the call's argument 0 is its result 0's slot.
  for (const runtime::Thunk& t : compiled->program.thunks) {
    if (const auto* f = std::get_if<runtime::FfiThunk>(&t)) {
      EXPECT_EQ(f->arguments[0], f->results[0]);
    }
  }
}

TEST(FfiRoute, ALayoutThatIsNoPermutationIsRefused) {
  ir::Module m = columnMajorCall();
  for (auto& [name, value] : m.functions[0].body.ops[0].attrs)
    if (name == "operand_layouts")
      value = ir::Attribute(ir::AttrList{layout({1, 1, 0}), layout({1, 0})});
  auto compiled = compileIt(std::move(m));
  ASSERT_FALSE(compiled.isOk());
  EXPECT_NE(compiled.status().message().find("not a permutation"), std::string::npos)
      << compiled.status().message();
}

TEST(FfiRoute, OtherCustomCallsAreRefusedWithWhatToDo) {
  auto compiled = compileIt(
      callModule("my_legacy_kernel", ir::CustomCallApiVersion::STATUS_RETURNING));
  ASSERT_FALSE(compiled.isOk());
  const std::string& m = compiled.status().message();
  EXPECT_NE(m.find("custom_call @my_legacy_kernel"), std::string::npos) << m;
  EXPECT_NE(m.find("model.py:12"), std::string::npos) << m;
  EXPECT_NE(m.find("jax.ffi.register_ffi_target"), std::string::npos) << m;
}

TEST(FfiRoute, AttributesTheHandlerCannotReceiveAreRefused) {
  ir::NamedAttrs config = {{"weird", ir::Attribute(ir::UnitAttr{})}};
  EXPECT_FALSE(ffiAttributesOf(ir::Attribute(config)).isOk());
  EXPECT_TRUE(ffiAttributesOf(ir::Attribute(std::string())).isOk());  // no attributes
  EXPECT_FALSE(ffiAttributesOf(ir::Attribute(std::string("opaque"))).isOk());
}

}  // namespace
}  // namespace jft::compiler
