// The FFI layer without a GPU: a handler written here with the FFI signature
// is called through a call frame we build, and reads its buffers, attributes,
// stream, user data and state through our XLA_FFI_Api, as handlers compiled
// against XLA's headers do.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

#include "ffi/api.h"
#include "ffi/call_frame.h"
#include "ffi/execution_context.h"
#include "ffi/registry.h"

namespace jft::ffi {
namespace {

// Finds attribute `name` by bisection, as XLA's binding does (the frame must
// be sorted for this to find anything).
int findAttr(const XLA_FFI_Attrs& attrs, std::string_view name) {
  int64_t lo = 0, hi = attrs.size;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    std::string_view key(attrs.names[mid]->ptr, attrs.names[mid]->len);
    if (key == name) return static_cast<int>(mid);
    if (key < name)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

XLA_FFI_Error* fail(const XLA_FFI_Api* api, const char* message) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = sizeof(args);
  args.message = message;
  args.errc = XLA_FFI_Error_Code_INVALID_ARGUMENT;
  return api->XLA_FFI_Error_Create(&args);
}

constexpr int64_t kCallbackTypeId = 4242;

// out0[i] = scale * in[i] + offset; out1[0] = user data's value; reads
// stream and a state set at instantiation.
XLA_FFI_Error* scaleHandler(XLA_FFI_CallFrame* frame) {
  const XLA_FFI_Api* api = frame->api;
  if (frame->stage == XLA_FFI_ExecutionStage_INSTANTIATE) {
    XLA_FFI_TypeId id{77};
    XLA_FFI_State_Set_Args set{};
    set.struct_size = sizeof(set);
    set.ctx = frame->ctx;
    set.type_id = &id;
    set.state = new int(5);
    set.deleter = [](void* p) { delete static_cast<int*>(p); };
    return api->XLA_FFI_State_Set(&set);
  }
  if (frame->args.size != 1 || frame->rets.size != 2) return fail(api, "arity");
  const int scale = findAttr(frame->attrs, "scale");
  const int offset = findAttr(frame->attrs, "offset");
  const int name = findAttr(frame->attrs, "name");
  const int nested = findAttr(frame->attrs, "nested");
  if (scale < 0 || offset < 0 || name < 0 || nested < 0)
    return fail(api, "missing attribute");
  if (frame->attrs.types[scale] != XLA_FFI_AttrType_SCALAR)
    return fail(api, "scale type");
  auto* s = static_cast<XLA_FFI_Scalar*>(frame->attrs.attrs[scale]);
  auto* o = static_cast<XLA_FFI_Array*>(frame->attrs.attrs[offset]);
  auto* n = static_cast<XLA_FFI_ByteSpan*>(frame->attrs.attrs[name]);
  auto* d = static_cast<XLA_FFI_Attrs*>(frame->attrs.attrs[nested]);
  if (s->dtype != XLA_FFI_DataType_F32 || o->dtype != XLA_FFI_DataType_S64 ||
      o->size != 2)
    return fail(api, "attribute dtypes");
  if (std::string_view(n->ptr, n->len) != "affine") return fail(api, "string attribute");
  if (d->size != 1 || frame->attrs.types[nested] != XLA_FFI_AttrType_DICTIONARY)
    return fail(api, "dictionary attribute");
  auto* in = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* out = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  auto* extra = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[1]);
  if (in->dtype != XLA_FFI_DataType_F32 || in->rank != 2 || in->dims[0] != 2 ||
      in->dims[1] != 3)
    return fail(api, "argument shape");

  XLA_FFI_Stream_Get_Args stream{};
  stream.struct_size = sizeof(stream);
  stream.ctx = frame->ctx;
  if (XLA_FFI_Error* e = api->XLA_FFI_Stream_Get(&stream)) return e;
  XLA_FFI_TypeId callbacks{kCallbackTypeId};
  XLA_FFI_ExecutionContext_Get_Args get{};
  get.struct_size = sizeof(get);
  get.ctx = frame->ctx;
  get.type_id = &callbacks;
  if (XLA_FFI_Error* e = api->XLA_FFI_ExecutionContext_Get(&get)) return e;
  XLA_FFI_TypeId stateId{77};
  XLA_FFI_State_Get_Args state{};
  state.struct_size = sizeof(state);
  state.ctx = frame->ctx;
  state.type_id = &stateId;
  if (XLA_FFI_Error* e = api->XLA_FFI_State_Get(&state)) return e;

  float sv = 0;
  std::memcpy(&sv, s->value, 4);
  const auto* ov = static_cast<const int64_t*>(o->data);
  const auto* x = static_cast<const float*>(in->data);
  auto* y = static_cast<float*>(out->data);
  for (int i = 0; i < 6; ++i) y[i] = sv * x[i] + static_cast<float>(ov[i % 2]);
  auto* z = static_cast<int64_t*>(extra->data);
  z[0] = *static_cast<int*>(get.data) + *static_cast<int*>(state.state) +
         reinterpret_cast<intptr_t>(stream.stream);
  return nullptr;
}

Attribute scaleAttributes() {
  float scale = 2.5f;
  int64_t offsets[2] = {10, -10};
  int32_t depth = 3;
  // Given unsorted: the frame must sort them.
  return Attribute::dictionary(
      {"scale", "offset", "nested", "name"},
      {Attribute::scalar(XLA_FFI_DataType_F32, &scale, 4),
       Attribute::array(XLA_FFI_DataType_S64, offsets, 2, 8),
       Attribute::dictionary({"depth"},
                             {Attribute::scalar(XLA_FFI_DataType_S32, &depth, 4)}),
       Attribute::string("affine")});
}

TEST(FfiCallFrame, HandlerReadsBuffersAttributesContextAndState) {
  auto frame = CallFrame::build(
      {{XLA_FFI_DataType_F32, {2, 3}}},
      {{XLA_FFI_DataType_F32, {2, 3}}, {XLA_FFI_DataType_S64, {}}}, scaleAttributes());
  ASSERT_TRUE(frame.isOk()) << frame.status().message();
  float x[6] = {0, 1, 2, 3, 4, 5};
  float y[6] = {};
  int64_t z = 0;
  (*frame)->setArgument(0, x);
  (*frame)->setResult(0, y);
  (*frame)->setResult(1, &z);

  UserData user_data;
  int callbacks = 100;
  ASSERT_TRUE(user_data.add(kCallbackTypeId, &callbacks, nullptr).isOk());
  InstanceState state;
  XLA_FFI_ExecutionContext ctx;
  ctx.stream = reinterpret_cast<void*>(intptr_t{1000});
  ctx.user_data = &user_data;
  ctx.state = &state;

  ASSERT_TRUE(invokeHandler(&scaleHandler,
                            (*frame)->frame(&ctx, XLA_FFI_ExecutionStage_INSTANTIATE),
                            "scale")
                  .isOk());
  Status s = invokeHandler(
      &scaleHandler, (*frame)->frame(&ctx, XLA_FFI_ExecutionStage_EXECUTE), "scale");
  ASSERT_TRUE(s.isOk()) << s.message();
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(y[i], 2.5f * x[i] + (i % 2 == 0 ? 10.f : -10.f));
  EXPECT_EQ(z, 100 + 5 + 1000);
}

TEST(FfiCallFrame, HandlerErrorNamesTargetAndKeepsCode) {
  auto frame = CallFrame::build({}, {}, Attribute::dictionary({}, {}));
  ASSERT_TRUE(frame.isOk());
  XLA_FFI_ExecutionContext ctx;
  Status s = invokeHandler(
      &scaleHandler, (*frame)->frame(&ctx, XLA_FFI_ExecutionStage_EXECUTE), "my_target");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "custom call 'my_target': arity");
}

// jaxlib 0.11's handlers refuse a frame of any other size ("Unexpected
// XLA_FFI_CallFrame size: expected 168").
TEST(FfiCallFrame, SizeIsTheOneJaxlibsHandlersCheck) {
  auto frame = CallFrame::build({}, {}, Attribute::dictionary({}, {}));
  ASSERT_TRUE(frame.isOk());
  XLA_FFI_ExecutionContext ctx;
  EXPECT_EQ((*frame)->frame(&ctx, XLA_FFI_ExecutionStage_EXECUTE)->struct_size, 168u);
}

TEST(FfiCallFrame, MissingUserDataIsNotFound) {
  auto frame = CallFrame::build(
      {{XLA_FFI_DataType_F32, {2, 3}}},
      {{XLA_FFI_DataType_F32, {2, 3}}, {XLA_FFI_DataType_S64, {}}}, scaleAttributes());
  ASSERT_TRUE(frame.isOk());
  InstanceState state;
  XLA_FFI_ExecutionContext ctx;
  ctx.state = &state;
  ASSERT_TRUE(invokeHandler(&scaleHandler,
                            (*frame)->frame(&ctx, XLA_FFI_ExecutionStage_INSTANTIATE),
                            "t")
                  .isOk());
  Status s = invokeHandler(&scaleHandler,
                           (*frame)->frame(&ctx, XLA_FFI_ExecutionStage_EXECUTE), "t");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("4242"), std::string::npos) << s.message();
}

// The XLA that jaxlib 0.11 pins passes the stage after the context and takes
// the state's deleter from its type's registration; the older layout passes
// the deleter. Both set and get the call site's state.
int g_deleted = 0;

// Registers `name` whose objects' deleter counts into g_deleted.
void registerCountedType(const XLA_FFI_Api* api, std::string_view name,
                         XLA_FFI_TypeId* type_id) {
  XLA_FFI_TypeInfo info{+[](void*) { ++g_deleted; }};
  XLA_FFI_TypeId_Register_Args reg{};
  reg.struct_size = sizeof(reg);
  reg.name = {name.data(), name.size()};
  reg.type_id = type_id;
  reg.type_info = &info;
  ASSERT_EQ(api->XLA_FFI_TypeId_Register(&reg), nullptr);
}

TEST(FfiState, StagedAndOlderLayoutsBothSetAndGet) {
  const XLA_FFI_Api* api = ffiApi();
  static XLA_FFI_TypeId staged_type{0};
  registerCountedType(api, "jft_test_staged_state", &staged_type);
  g_deleted = 0;
  int staged_object = 7;
  {
    InstanceState state;
    XLA_FFI_ExecutionContext ctx;
    ctx.state = &state;
    XLA_FFI_State_Set_Staged_Args set{};
    set.struct_size = sizeof(set);
    set.ctx = &ctx;
    set.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
    set.type_id = &staged_type;
    set.state = &staged_object;
    ASSERT_EQ(api->XLA_FFI_State_Set(reinterpret_cast<XLA_FFI_State_Set_Args*>(&set)),
              nullptr);
    XLA_FFI_State_Get_Staged_Args get{};
    get.struct_size = sizeof(get);
    get.ctx = &ctx;
    get.stage = XLA_FFI_ExecutionStage_EXECUTE;
    get.type_id = &staged_type;
    ASSERT_EQ(api->XLA_FFI_State_Get(reinterpret_cast<XLA_FFI_State_Get_Args*>(&get)),
              nullptr);
    EXPECT_EQ(get.state, &staged_object);
    // The older getter layout finds the same state.
    XLA_FFI_State_Get_Args old_get{};
    old_get.struct_size = sizeof(old_get);
    old_get.ctx = &ctx;
    old_get.type_id = &staged_type;
    ASSERT_EQ(api->XLA_FFI_State_Get(&old_get), nullptr);
    EXPECT_EQ(old_get.state, &staged_object);
  }
  EXPECT_EQ(g_deleted, 1);  // the registered type's deleter, once

  static XLA_FFI_TypeId old_type{0};
  XLA_FFI_TypeId_Register_Args reg{};  // no type_info: the setter names the deleter
  reg.struct_size = sizeof(reg);
  const char old_name[] = "jft_test_older_state";
  reg.name = {old_name, sizeof(old_name) - 1};
  reg.type_id = &old_type;
  ASSERT_EQ(api->XLA_FFI_TypeId_Register(&reg), nullptr);
  int old_object = 9;
  g_deleted = 0;
  {
    InstanceState state;
    XLA_FFI_ExecutionContext ctx;
    ctx.state = &state;
    XLA_FFI_State_Set_Args set{};
    set.struct_size = sizeof(set);
    set.ctx = &ctx;
    set.type_id = &old_type;
    set.state = &old_object;
    set.deleter = +[](void*) { g_deleted += 10; };
    ASSERT_EQ(api->XLA_FFI_State_Set(&set), nullptr);
    XLA_FFI_State_Get_Args get{};
    get.struct_size = sizeof(get);
    get.ctx = &ctx;
    get.type_id = &old_type;
    ASSERT_EQ(api->XLA_FFI_State_Get(&get), nullptr);
    EXPECT_EQ(get.state, &old_object);
  }
  EXPECT_EQ(g_deleted, 10);
}

// jaxlib's handlers fill the staged setter's fields one by one, so the 4
// bytes after `stage` hold whatever their stack held. Read as part of a
// pointer they once sent the call down the older layout, where `deleter` is
// the staged layout's `state`: unloading the executable then called the
// state object as a function (a diffrax solve crashed so).
TEST(FfiState, StagedSetterWithGarbagePaddingIsStaged) {
  const XLA_FFI_Api* api = ffiApi();
  static XLA_FFI_TypeId padded_type{0};
  registerCountedType(api, "jft_test_padded_state", &padded_type);
  g_deleted = 0;
  int object = 5;
  {
    InstanceState state;
    XLA_FFI_ExecutionContext ctx;
    ctx.state = &state;
    XLA_FFI_State_Set_Staged_Args set;
    std::memset(&set, 0xAB, sizeof(set));  // stack garbage, padding included
    set.struct_size = sizeof(set);
    set.extension_start = nullptr;
    set.ctx = &ctx;
    set.stage = XLA_FFI_ExecutionStage_INSTANTIATE;
    set.type_id = &padded_type;
    set.state = &object;
    ASSERT_EQ(api->XLA_FFI_State_Set(reinterpret_cast<XLA_FFI_State_Set_Args*>(&set)),
              nullptr);
    EXPECT_EQ(state.find(padded_type.type_id), &object);
  }
  EXPECT_EQ(g_deleted, 1);  // the registered deleter, not the state as a function
}

TEST(FfiAttributes, DuplicateNamesAndBadScalarsAreRefused) {
  int32_t one = 1;
  EXPECT_FALSE(EncodedAttributes::encode(
                   Attribute::dictionary(
                       {"a", "a"}, {Attribute::scalar(XLA_FFI_DataType_S32, &one, 4),
                                    Attribute::scalar(XLA_FFI_DataType_S32, &one, 4)}))
                   .isOk());
  EXPECT_FALSE(EncodedAttributes::encode(
                   Attribute::dictionary(
                       {"a"}, {Attribute::scalar(XLA_FFI_DataType_S64, &one, 4)}))
                   .isOk());
}

TEST(FfiApi, UnsupportedEntriesAnswerUnimplemented) {
  const XLA_FFI_Api* api = ffiApi();
  EXPECT_EQ(api->struct_size, sizeof(XLA_FFI_Api));
  XLA_FFI_Future_Create_Args args{};
  args.struct_size = sizeof(args);
  Status s = takeFfiError(api->XLA_FFI_Future_Create(&args));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  XLA_FFI_Stream_Get_Args small{};
  small.struct_size = 8;  // older than the field we write
  EXPECT_EQ(takeFfiError(api->XLA_FFI_Stream_Get(&small)).code(),
            StatusCode::kInvalidArgument);
}

TEST(FfiRegistry, HandlersByTargetAndPlatform) {
  RegisteredHandler h;
  h.bundle.execute = &scaleHandler;
  EXPECT_TRUE(registerHandler("registry_test_target", "CUDA", h).isOk());
  EXPECT_TRUE(registerHandler("registry_test_target", "cuda", h).isOk());  // same: OK
  EXPECT_FALSE(registerHandler("registry_test_rocm", "ROCM", h).isOk());
  RegisteredHandler other;
  other.bundle.execute = +[](XLA_FFI_CallFrame*) -> XLA_FFI_Error* { return nullptr; };
  EXPECT_EQ(registerHandler("registry_test_target", "CUDA", other).code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(findHandler("registry_test_target").has_value());
  EXPECT_EQ(findHandler("registry_test_target")->bundle.execute, &scaleHandler);
  EXPECT_FALSE(findHandler("registry_test_none").has_value());

  // Through the table too, as XLA_FFI_REGISTER_HANDLER does.
  XLA_FFI_Handler_Register_Args args{};
  args.struct_size = sizeof(args);
  args.name = {"registry_test_api", 17};
  args.platform = {"CUDA", 4};
  args.bundle.execute = &scaleHandler;
  EXPECT_EQ(takeFfiError(ffiApi()->XLA_FFI_Handler_Register(&args)).code(),
            StatusCode::kOk);
  EXPECT_TRUE(findHandler("registry_test_api").has_value());
}

TEST(FfiRegistry, TypeIds) {
  auto fresh = registerType("registry_test_type", 0);
  ASSERT_TRUE(fresh.isOk());
  EXPECT_NE(*fresh, 0);
  EXPECT_EQ(*registerType("registry_test_type", 0), *fresh);
  EXPECT_EQ(registerType("registry_test_type", 12).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(*registerType("registry_test_given", 12345), 12345);
}

}  // namespace
}  // namespace jft::ffi
