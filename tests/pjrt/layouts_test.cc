// Layouts other than row-major at the PJRT boundary, over host stand-ins: a
// host array uploaded into a device layout and read back in the host's, a
// transposed DLPack view, executables that take and return such layouts
// (what JAX checks through the layouts extension) and refuse arguments in
// another, and the extension's own entry points.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"
#include "pjrt/ffi_extension.h"
#include "pjrt/layouts_extension.h"
#include "pjrt/shape.h"

namespace jft::pjrt::testing {
namespace {

const std::vector<int64_t> kDims{2, 3};
// 0..5 row-major in a 2x3 array, and the same array column-major.
const std::vector<float> kRowMajor{0, 1, 2, 3, 4, 5};
const std::vector<float> kColumnMajor{0, 3, 1, 4, 2, 5};

struct TiledLayout {
  std::vector<int64_t> minor_to_major;
  PJRT_Buffer_MemoryLayout layout{};
  explicit TiledLayout(std::vector<int64_t> order) : minor_to_major(std::move(order)) {
    layout.struct_size = sizeof(layout);
    layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    layout.tiled.struct_size = sizeof(layout.tiled);
    layout.tiled.minor_to_major = minor_to_major.data();
    layout.tiled.minor_to_major_size = minor_to_major.size();
  }
};

const PJRT_Layouts_Extension& layoutsOfApi() {
  for (PJRT_Extension_Base* e = extensionChain(); e != nullptr; e = e->next)
    if (e->type == PJRT_Extension_Type_Layouts)
      return *reinterpret_cast<const PJRT_Layouts_Extension*>(e);
  ADD_FAILURE() << "no layouts extension in the chain";
  static PJRT_Layouts_Extension none{};
  return none;
}

// A layout object's text, destroying it when `owned`.
std::string serialized(PJRT_Layouts_MemoryLayout* layout, bool owned) {
  const PJRT_Layouts_Extension& ext = layoutsOfApi();
  PJRT_Layouts_MemoryLayout_Serialize_Args args{};
  args.struct_size = sizeof(args);
  args.layout = layout;
  EXPECT_EQ(ext.PJRT_Layouts_MemoryLayout_Serialize(&args), nullptr);
  std::string text(args.serialized_bytes, args.serialized_bytes_size);
  args.serialized_layout_deleter(args.serialized_layout);
  if (owned) {
    PJRT_Layouts_MemoryLayout_Destroy_Args destroy{sizeof(destroy), nullptr, layout};
    EXPECT_EQ(ext.PJRT_Layouts_MemoryLayout_Destroy(&destroy), nullptr);
  }
  return text;
}

std::string bufferLayoutText(PJRT_Buffer* buffer) {
  PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args args{};
  args.struct_size = sizeof(args);
  args.buffer = buffer;
  EXPECT_EQ(layoutsOfApi().PJRT_Layouts_PJRT_Buffer_MemoryLayout(&args), nullptr);
  return serialized(args.layout, true);
}

class LayoutsTest : public ExecutableTest {
 protected:
  // kRowMajor uploaded with `device_layout` (null: the default).
  PJRT_Buffer* upload(const PJRT_Buffer_MemoryLayout* device_layout) {
    PJRT_Client_BufferFromHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.data = kRowMajor.data();
    args.type = PJRT_Buffer_Type_F32;
    args.dims = kDims.data();
    args.num_dims = kDims.size();
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = client_->devices[0];
    args.device_layout = const_cast<PJRT_Buffer_MemoryLayout*>(device_layout);
    EXPECT_EQ(clientBufferFromHostBuffer(&args), nullptr);
    EXPECT_TRUE(awaitAndDestroy(args.done_with_host_buffer).isOk());
    buffers_.push_back(args.buffer);
    return args.buffer;
  }

  // The buffer's f32 values read into `host_layout`'s order (null: as stored).
  static std::vector<float> read(PJRT_Buffer* buffer,
                                 const PJRT_Buffer_MemoryLayout* host_layout) {
    std::vector<float> out(buffer->byte_size / sizeof(float));
    PJRT_Buffer_ToHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.src = buffer;
    args.host_layout = const_cast<PJRT_Buffer_MemoryLayout*>(host_layout);
    args.dst = out.data();
    args.dst_size = buffer->byte_size;
    EXPECT_EQ(bufferToHostBuffer(&args), nullptr);
    EXPECT_TRUE(awaitAndDestroy(args.event).isOk());
    return out;
  }

  // Executes `loaded` on `x`: the error; the output (kept for TearDown) in `out`.
  PJRT_Error* executeOn(PJRT_LoadedExecutable* loaded, PJRT_Buffer* x,
                        PJRT_Buffer** out = nullptr) {
    PJRT_ExecuteOptions options{};
    options.struct_size = sizeof(options);
    PJRT_Buffer* const arguments[1] = {x};
    PJRT_Buffer* const* argument_list = arguments;
    PJRT_Buffer* outputs[1] = {nullptr};
    PJRT_Buffer** output_list = outputs;
    PJRT_Event* complete = nullptr;
    PJRT_LoadedExecutable_Execute_Args args{};
    args.struct_size = sizeof(args);
    args.executable = loaded;
    args.options = &options;
    args.argument_lists = &argument_list;
    args.num_devices = 1;
    args.num_args = 1;
    args.output_lists = &output_list;
    args.device_complete_events = &complete;
    PJRT_Error* error = loadedExecutableExecute(&args);
    if (complete != nullptr) {
      PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr, complete};
      eventDestroy(&destroy);
    }
    if (outputs[0] != nullptr) buffers_.push_back(outputs[0]);
    if (out != nullptr) *out = outputs[0];
    return error;
  }

  // f32[2,3] -> f32[2,3] whose parameter and output are laid out as given.
  compiler::Executable program(std::vector<int64_t> in, std::vector<int64_t> out) {
    compiler::Executable compiled = doublingExecutable(1, {-1}, 6);
    compiled.parameter_types[0] = ir::Type::tensor(ir::ElementType::F32, kDims);
    compiled.output_types[0] = ir::Type::tensor(ir::ElementType::F32, kDims);
    compiled.parameter_layouts = {std::move(in)};
    compiled.output_layouts = {std::move(out)};
    return compiled;
  }
};

TEST_F(LayoutsTest, UploadIntoADeviceLayoutAndReadBackInAnyOrder) {
  const TiledLayout column({0, 1}), row({1, 0});
  PJRT_Buffer* buffer = upload(&column.layout);
  EXPECT_EQ(contents(buffer), kColumnMajor);  // the device holds column-major bytes
  EXPECT_EQ(bufferLayoutText(buffer), "{0,1}");
  EXPECT_EQ(read(buffer, &row.layout), kRowMajor);
  EXPECT_EQ(read(buffer, &column.layout), kColumnMajor);
  EXPECT_EQ(read(buffer, nullptr), kColumnMajor);  // null: the buffer's own layout

  PJRT_Buffer* plain = upload(nullptr);
  EXPECT_EQ(contents(plain), kRowMajor);
  EXPECT_EQ(bufferLayoutText(plain), "{1,0}");
  EXPECT_EQ(read(plain, &column.layout), kColumnMajor);
}

TEST_F(LayoutsTest, StridesNameAnOrderAndTilesAreRefused) {
  // Column-major f32[2,3] as byte strides; extent-1 dims stride anyhow.
  PJRT_Buffer_MemoryLayout strided{};
  strided.struct_size = sizeof(strided);
  strided.type = PJRT_Buffer_MemoryLayout_Type_Strides;
  std::vector<int64_t> strides{4, 8};
  strided.strides.byte_strides = strides.data();
  strided.strides.num_byte_strides = strides.size();
  EXPECT_EQ(*layoutOrder(&strided, kDims, 4, "here"), (std::vector<int64_t>{0, 1}));
  std::vector<int64_t> row{12, 4};
  strided.strides.byte_strides = row.data();
  EXPECT_TRUE(layoutOrder(&strided, kDims, 4, "here")->empty());
  std::vector<int64_t> gapped{4, 16};
  strided.strides.byte_strides = gapped.data();
  EXPECT_EQ(layoutOrder(&strided, kDims, 4, "here").status().code(),
            StatusCode::kUnimplemented);
  const std::vector<int64_t> unit{1, 3};
  std::vector<int64_t> odd{999, 4};
  strided.strides.byte_strides = odd.data();
  EXPECT_TRUE(layoutOrder(&strided, unit, 4, "here")->empty());

  TiledLayout tiled({0, 1});
  std::vector<int64_t> tile{8, 128};
  std::vector<size_t> tile_sizes{2};
  tiled.layout.tiled.tile_dims = tile.data();
  tiled.layout.tiled.tile_dim_sizes = tile_sizes.data();
  tiled.layout.tiled.num_tiles = 1;
  EXPECT_EQ(layoutOrder(&tiled.layout, kDims, 4, "here").status().code(),
            StatusCode::kUnimplemented);
  TiledLayout repeated({0, 0});
  EXPECT_EQ(layoutOrder(&repeated.layout, kDims, 4, "here").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(LayoutsTest, RepackingBetweenOrdersOfThreeDims) {
  const std::vector<int64_t> dims{2, 3, 4};
  std::vector<float> row(24);
  std::iota(row.begin(), row.end(), 0.0f);
  const std::vector<int64_t> order{1, 2, 0};
  std::vector<float> ordered(24), back(24);
  repackOrder(row.data(), dims, {}, order, 4, ordered.data());
  // Element (i, j, k) sits at j + 3 * (k + 4 * i) in {1,2,0} order.
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(ordered[static_cast<size_t>(j + 3 * (k + 4 * i))],
                  row[static_cast<size_t>((i * 3 + j) * 4 + k)]);
  repackOrder(ordered.data(), dims, order, {}, 4, back.data());
  EXPECT_EQ(back, row);
}

TEST_F(LayoutsTest, ATransposedDlpackViewKeepsItsLayout) {
  std::vector<float> foreign = kColumnMajor;  // a torch tensor's .T, say
  std::vector<int64_t> strides{4, 8};
  PJRT_Buffer_MemoryLayout strided{};
  strided.struct_size = sizeof(strided);
  strided.type = PJRT_Buffer_MemoryLayout_Type_Strides;
  strided.strides.byte_strides = strides.data();
  strided.strides.num_byte_strides = strides.size();
  PJRT_Client_CreateViewOfDeviceBuffer_Args args{};
  args.struct_size = sizeof(args);
  args.client = client_.get();
  args.device_buffer_ptr = foreign.data();
  args.dims = kDims.data();
  args.num_dims = kDims.size();
  args.element_type = PJRT_Buffer_Type_F32;
  args.layout = &strided;
  args.device = client_->devices[0];
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&args), nullptr);
  buffers_.push_back(args.buffer);
  EXPECT_EQ(bufferLayoutText(args.buffer), "{0,1}");
  const TiledLayout row({1, 0});
  EXPECT_EQ(read(args.buffer, &row.layout), kRowMajor);
}

TEST_F(LayoutsTest, ExecutablesNameTheirLayoutsAndRefuseOtherOnes) {
  PJRT_LoadedExecutable* loaded = load(program({0, 1}, {0, 1}));
  ASSERT_NE(loaded, nullptr);
  PJRT_Executable executable{loaded->info};
  const PJRT_Layouts_Extension& ext = layoutsOfApi();
  PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args params{};
  params.struct_size = sizeof(params);
  params.executable = &executable;
  ASSERT_EQ(ext.PJRT_Layouts_PJRT_Executable_GetParameterLayouts(&params), nullptr);
  ASSERT_EQ(params.num_parameters, 1u);
  EXPECT_EQ(serialized(params.layouts[0], false), "{0,1}");
  PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args outs{};
  outs.struct_size = sizeof(outs);
  outs.executable = &executable;
  ASSERT_EQ(ext.PJRT_Layouts_PJRT_Executable_GetOutputLayouts(&outs), nullptr);
  ASSERT_EQ(outs.num_outputs, 1u);
  EXPECT_EQ(serialized(outs.layouts[0], false), "{0,1}");

  const TiledLayout column({0, 1});
  PJRT_Buffer* wrong = upload(nullptr);
  PJRT_Buffer* right = upload(&column.layout);
  std::string message;
  EXPECT_EQ(errorCode(executeOn(loaded, wrong), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("has the layout {1,0} but the program expects {0,1}"),
            std::string::npos)
      << message;
  PJRT_Buffer* out = nullptr;
  EXPECT_EQ(executeOn(loaded, right, &out), nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(bufferLayoutText(out), "{0,1}");  // as the executable said

  PJRT_LoadedExecutable* plain = load(program({}, {}));
  PJRT_Executable plain_executable{plain->info};
  params.executable = &plain_executable;
  ASSERT_EQ(ext.PJRT_Layouts_PJRT_Executable_GetParameterLayouts(&params), nullptr);
  EXPECT_EQ(serialized(params.layouts[0], false), "{1,0}");
}

TEST_F(LayoutsTest, DefaultLayoutsAndBadArguments) {
  const PJRT_Layouts_Extension& ext = layoutsOfApi();
  const int64_t dims[3] = {4, 5, 6};
  PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args args{};
  args.struct_size = sizeof(args);
  args.client = client_.get();
  args.type = PJRT_Buffer_Type_BF16;
  args.dims = dims;
  args.num_dims = 3;
  ASSERT_EQ(ext.PJRT_Layouts_PJRT_Client_GetDefaultLayout(&args), nullptr);
  EXPECT_EQ(serialized(args.layout, true), "{2,1,0}");
  args.num_dims = 0;
  ASSERT_EQ(ext.PJRT_Layouts_PJRT_Client_GetDefaultLayout(&args), nullptr);
  EXPECT_EQ(serialized(args.layout, true), "{}");
  args.type = PJRT_Buffer_Type_INVALID;
  EXPECT_EQ(errorCode(ext.PJRT_Layouts_PJRT_Client_GetDefaultLayout(&args)),
            StatusCode::kInvalidArgument);
  PJRT_Layouts_MemoryLayout_Serialize_Args none{};
  none.struct_size = sizeof(none);
  EXPECT_EQ(errorCode(ext.PJRT_Layouts_MemoryLayout_Serialize(&none)),
            StatusCode::kInvalidArgument);
  PJRT_Layouts_MemoryLayout_Destroy_Args destroy{sizeof(destroy), nullptr, nullptr};
  EXPECT_EQ(ext.PJRT_Layouts_MemoryLayout_Destroy(&destroy), nullptr);
}

}  // namespace
}  // namespace jft::pjrt::testing
