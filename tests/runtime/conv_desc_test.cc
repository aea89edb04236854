// ConvDesc's checks against hand-worked shapes: the output-size formula of
// runtime/conv.h, groups, the bytes each buffer spans, which tensor each
// thunk buffer is, the text; and the status categories cuDNN results map to.
#include <gtest/gtest.h>

#include "runtime/conv.h"
#include "runtime/gpu/cudnn.h"
#include "runtime/library_op.h"

namespace jft::runtime {
namespace {

// NCHW x [2,3,9,9] * KCRS w [4,3,3,3], stride 2, pad 1/1: y [2,4,5,5]
// ((9 + 2 - 3) / 2 + 1 = 5).
ConvDesc forward() {
  ConvDesc d;
  d.x = {{2, 3, 9, 9}, {243, 81, 9, 1}};
  d.w = {{4, 3, 3, 3}, {27, 9, 3, 1}};
  d.y = {{2, 4, 5, 5}, {100, 25, 5, 1}};
  d.strides = {2, 2};
  d.pre_padding = {1, 1};
  d.post_padding = {1, 1};
  d.dilations = {1, 1};
  return d;
}

TEST(ConvDesc, AcceptsAConsistentForward) {
  const ConvDesc d = forward();
  EXPECT_TRUE(validateConv(d).isOk()) << validateConv(d).toString();
  EXPECT_EQ(convOutputExtent(d, 0), 5);
  EXPECT_EQ(convGroups(d), 1);
  EXPECT_EQ(convText(d),
            "cudnn conv fwd x[2,3,9,9] w[4,3,3,3] y[2,4,5,5] f32 stride [2,2] pad "
            "[1,1]/[1,1] dilation [1,1]");
}

TEST(ConvDesc, OutputExtentFollowsTheFormula) {
  ConvDesc d = forward();
  d.dilations = {2, 3};  // windows of 5 and 7: (11 - 5) / 2 + 1 = 4, (11 - 7) / 2 + 1 = 3
  EXPECT_EQ(convOutputExtent(d, 0), 4);
  EXPECT_EQ(convOutputExtent(d, 1), 3);
  d.y.dims = {2, 4, 4, 3};
  EXPECT_TRUE(validateConv(d).isOk()) << validateConv(d).toString();
  d.y.dims = {2, 4, 4, 4};
  Status bad = validateConv(d);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("spatial dim 1 of y should be 3"), std::string::npos)
      << bad.message();
}

TEST(ConvDesc, GroupsAreXChannelsOverWChannels) {
  ConvDesc d = forward();
  d.x.dims[1] = 6;  // 6 / 3 = 2 groups, K = 4 divides
  EXPECT_EQ(convGroups(d), 2);
  EXPECT_TRUE(validateConv(d).isOk());
  d.x.dims[1] = 12;  // 4 groups of one K each
  EXPECT_TRUE(validateConv(d).isOk());
  d.x.dims[1] = 24;  // 8 groups do not divide K = 4
  EXPECT_NE(validateConv(d).message().find("groups do not divide K"), std::string::npos);
  d.x.dims[1] = 7;
  EXPECT_NE(validateConv(d).message().find("not a multiple"), std::string::npos);
}

TEST(ConvDesc, RefusesBadDescriptions) {
  auto refused = [](ConvDesc d, const char* why) {
    Status s = validateConv(d);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << why;
    EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
  };
  ConvDesc d = forward();
  d.strides = {2};
  refused(d, "2 or 3 spatial dims");
  d = forward();
  d.pre_padding = {-1, 1};
  refused(d, "paddings >= 0");
  d = forward();
  d.dilations = {0, 1};
  refused(d, "dilations must be >= 1");
  d = forward();
  d.w.dims = {4, 3, 3};
  refused(d, "w has 3 dims");
  d = forward();
  d.y.strides[2] = 0;
  refused(d, "dims and strides >= 1");
  d = forward();
  d.y.dims[0] = 3;
  refused(d, "differ in N");
  d = forward();
  d.w.dims[0] = 5;
  refused(d, "w's K is not y's");
  d = forward();
  d.element = ConvElement::kBF16;
  d.allow_tf32 = true;
  refused(d, "tf32 is for f32");
}

TEST(ConvDesc, BuffersAreLhsRhsResultInEachKind) {
  ConvDesc d = forward();
  EXPECT_EQ(&convBufferTensor(d, 0), &d.x);
  EXPECT_EQ(&convBufferTensor(d, 1), &d.w);
  EXPECT_EQ(&convBufferTensor(d, 2), &d.y);
  d.kind = ConvKind::kBackwardData;
  EXPECT_EQ(&convBufferTensor(d, 0), &d.y);
  EXPECT_EQ(&convBufferTensor(d, 1), &d.w);
  EXPECT_EQ(&convBufferTensor(d, 2), &d.x);
  d.kind = ConvKind::kBackwardFilter;
  EXPECT_EQ(&convBufferTensor(d, 0), &d.x);
  EXPECT_EQ(&convBufferTensor(d, 1), &d.y);
  EXPECT_EQ(&convBufferTensor(d, 2), &d.w);
  EXPECT_NE(libraryOpText(LibraryOp{d}).find("cudnn conv bwd_filter"), std::string::npos);
}

TEST(ConvDesc, TensorBytesSpanTheLastElement) {
  ConvDesc d = forward();
  EXPECT_EQ(convTensorBytes(d, d.x), 2u * 3 * 9 * 9 * 4);
  d.element = ConvElement::kBF16;
  EXPECT_EQ(convTensorBytes(d, d.w), 4u * 3 * 3 * 3 * 2);
  // NHWC strides of the same x span the same bytes.
  d.x.strides = {243, 1, 27, 3};
  EXPECT_EQ(convTensorBytes(d, d.x), 2u * 243 * 2);
  d.element = ConvElement::kF64;
  EXPECT_EQ(convElementBytes(d.element), 8);
}

TEST(CudnnStatus, CategoriesMapToStatusCodes) {
  using gpu::cudnnStatusCode;
  EXPECT_EQ(cudnnStatusCode(0), StatusCode::kOk);
  EXPECT_EQ(cudnnStatusCode(2000), StatusCode::kInvalidArgument);  // BAD_PARAM
  EXPECT_EQ(cudnnStatusCode(2008), StatusCode::kInvalidArgument);  // ..._SHAPE_MISMATCH
  EXPECT_EQ(cudnnStatusCode(3000), StatusCode::kUnimplemented);    // NOT_SUPPORTED
  EXPECT_EQ(cudnnStatusCode(3002), StatusCode::kUnimplemented);    // ..._SHAPE
  EXPECT_EQ(cudnnStatusCode(4003), StatusCode::kResourceExhausted);
  EXPECT_EQ(cudnnStatusCode(4004), StatusCode::kResourceExhausted);
  EXPECT_EQ(cudnnStatusCode(4000), StatusCode::kInternal);
  EXPECT_EQ(cudnnStatusCode(5000), StatusCode::kInternal);  // EXECUTION_FAILED
  EXPECT_EQ(cudnnStatusCode(1001), StatusCode::kInternal);  // NOT_INITIALIZED
}

TEST(CudnnStatus, AMissingLibraryIsUnavailableAndSaysHowToPointAtIt) {
  StatusOr<const gpu::Cudnn*> loaded = gpu::Cudnn::load();
  if (loaded.isOk())
    GTEST_SKIP() << "cuDNN is installed here: " << (*loaded)->library_name;
  EXPECT_EQ(loaded.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(loaded.status().message().find("JFT_CUDNN_LIBRARY"), std::string::npos);
  EXPECT_NE(loaded.status().message().find("libcudnn.so.9"), std::string::npos);
}

}  // namespace
}  // namespace jft::runtime
