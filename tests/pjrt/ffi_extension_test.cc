// The PJRT extension chain as jaxlib walks it (pjrt::FindExtension by type):
// the GPU custom-call extension registers FFI handlers for CUDA, the FFI
// extension registers types and adds user data to an execute context.
#include "pjrt/ffi_extension.h"

#include <gtest/gtest.h>

#include "ffi/registry.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"

namespace jft::pjrt {
namespace {

const PJRT_Extension_Base* find(PJRT_Extension_Type type) {
  for (const PJRT_Extension_Base* e = extensionChain(); e != nullptr; e = e->next)
    if (e->type == type) return e;
  return nullptr;
}

XLA_FFI_Error* noop(XLA_FFI_CallFrame*) {
  return nullptr;
}

TEST(PjrtFfiExtension, GpuCustomCallRegistersATypedHandlerBundle) {
  const auto* gpu = reinterpret_cast<const PJRT_Gpu_Custom_Call*>(
      find(PJRT_Extension_Type_Gpu_Custom_Call));
  ASSERT_NE(gpu, nullptr);
  EXPECT_GE(gpu->base.struct_size, sizeof(PJRT_Gpu_Custom_Call));
  PJRT_Gpu_Register_Custom_Call_Args args{};
  args.struct_size =
      JFT_ABI_SIZE_UP_TO(PJRT_Gpu_Register_Custom_Call_Args, handler_execute);
  args.function_name = "pjrt_test_target_with_tail";
  args.function_name_size = 16;  // not NUL-terminated at 16: "pjrt_test_target"
  args.api_version = 1;
  args.handler_instantiate = reinterpret_cast<void*>(&noop);
  args.handler_execute = reinterpret_cast<void*>(&noop);
  ASSERT_EQ(gpu->custom_call(&args), nullptr);
  auto found = ffi::findHandler("pjrt_test_target");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->bundle.execute, &noop);
  EXPECT_EQ(found->bundle.instantiate, &noop);
  EXPECT_EQ(found->bundle.prepare, nullptr);

  args.handler_execute = nullptr;  // an execute handler is required
  args.function_name = "pjrt_test_none";
  args.function_name_size = 14;
  PJRT_Error* error = gpu->custom_call(&args);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(toStatus(error).code(), StatusCode::kInvalidArgument);
  PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
  errorDestroy(&destroy);
}

TEST(PjrtFfiExtension, TypeIdsAndUserDataOfAnExecuteContext) {
  const auto* ext =
      reinterpret_cast<const PJRT_FFI_Extension*>(find(PJRT_Extension_Type_FFI));
  ASSERT_NE(ext, nullptr);
  PJRT_FFI_Type_Register_Args type{};
  type.struct_size = sizeof(type);
  type.type_name = "PjrtTestType";
  type.type_name_size = 12;
  type.type_id = 0;
  ASSERT_EQ(ext->type_register(&type), nullptr);
  EXPECT_NE(type.type_id, 0);

  // jax.ffi.register_ffi_type's type_info: its deleter frees the states
  // handlers of the type set through the staged XLA_FFI_State_Set.
  PJRT_FFI_Type_Info info{};
  info.deleter = [](void*) {};
  PJRT_FFI_Type_Register_Args with_info{};
  with_info.struct_size = sizeof(with_info);
  with_info.type_name = "PjrtTestTypeWithInfo";
  with_info.type_name_size = 20;
  with_info.type_info = &info;
  ASSERT_EQ(ext->type_register(&with_info), nullptr);
  EXPECT_EQ(ffi::typeDeleter(with_info.type_id), info.deleter);
  EXPECT_EQ(ffi::typeDeleter(type.type_id), nullptr);

  PJRT_ExecuteContext_Create_Args create{};
  create.struct_size = sizeof(create);
  ASSERT_EQ(executeContextCreate(&create), nullptr);
  ASSERT_NE(create.context, nullptr);
  static int deleted = 0;
  int payload = 7;
  // The newer header's user data carries a deleter after `data`.
  struct WithDeleter {
    PJRT_FFI_UserData_Add_Args args;
    void (*deleter)(void*);
  } add{};
  add.args.struct_size = sizeof(add);
  add.args.context = create.context;
  add.args.user_data.type_id = type.type_id;
  add.args.user_data.data = &payload;
  add.deleter = [](void*) { ++deleted; };
  ASSERT_EQ(ext->user_data_add(&add.args), nullptr);
  EXPECT_EQ(create.context->user_data.find(type.type_id), &payload);
  PJRT_Error* twice = ext->user_data_add(&add.args);
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(toStatus(twice).code(), StatusCode::kAlreadyExists);
  PJRT_Error_Destroy_Args destroyError{sizeof(destroyError), nullptr, twice};
  errorDestroy(&destroyError);

  PJRT_ExecuteContext_Destroy_Args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.context = create.context;
  EXPECT_EQ(executeContextDestroy(&destroy), nullptr);
  EXPECT_EQ(deleted, 1);
}

}  // namespace
}  // namespace jft::pjrt
