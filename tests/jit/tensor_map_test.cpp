// TMA tensor maps on the host: the rules of cuTensorMapEncodeTiled, the
// conversion to its innermost-first arguments, and the .swiz<N> spelling.
// No driver is needed; the base address is a made-up aligned value.
#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>
#include <string>

#include "croq/error.hpp"
#include "jit/driver.hpp"
#include "jit/tensor_map.hpp"

namespace croq::jit {
namespace {

const void* const kBase = reinterpret_cast<const void*>(std::uintptr_t{0x7f0000100000});

// A valid f16 [M, K] = [1024, 512] tensor with a 64 x 64 box.
TensorMapSpec spec_2d() {
  TensorMapSpec s;
  s.dtype = DType::f16;
  s.base = kBase;
  s.dims = {1024, 512};
  s.box = {64, 64};
  s.what = "tma.copy of 'lhs' at 3:5";
  return s;
}

// The ArgumentError message of validate(spec); fails the test when it passes.
std::string rejection(const TensorMapSpec& spec) {
  try {
    validate(spec);
  } catch (const ArgumentError& e) {
    return e.what();
  }
  ADD_FAILURE() << "validate accepted the spec";
  return "";
}

// The message names `what`, the rule and the offending value.
void expect_rejected(const TensorMapSpec& spec, std::initializer_list<const char*> parts) {
  const std::string message = rejection(spec);
  EXPECT_TRUE(message.starts_with(spec.what + ": ")) << message;
  for (const char* part : parts) EXPECT_NE(message.find(part), std::string::npos)
      << "missing \"" << part << "\" in: " << message;
  // encode_args validates first.
  EXPECT_THROW(encode_args(spec), ArgumentError);
}

TEST(TensorMap, ValidSpecPasses) {
  EXPECT_NO_THROW(validate(spec_2d()));
  TensorMapSpec s = spec_2d();
  s.dims = {7};
  s.box = {8};
  EXPECT_NO_THROW(validate(s)) << "rank 1 and a box larger than the tensor are fine";
  s.dims = {2, 3, 4, 5, 8};
  s.box = {1, 1, 1, 1, 8};
  EXPECT_NO_THROW(validate(s)) << "rank 5";
}

TEST(TensorMap, RankMustBeOneToFive) {
  TensorMapSpec s = spec_2d();
  s.dims = {};
  s.box = {};
  expect_rejected(s, {"rank 1..5", "got rank 0"});
  s.dims = {2, 2, 2, 2, 2, 8};
  s.box = {1, 1, 1, 1, 1, 8};
  expect_rejected(s, {"rank 1..5", "got rank 6"});
}

TEST(TensorMap, BoxAndStridesNeedOneEntryPerDim) {
  TensorMapSpec s = spec_2d();
  s.box = {64};
  expect_rejected(s, {"box has 1 extents", "rank-2"});
  s = spec_2d();
  s.strides = {512, 1, 1};
  expect_rejected(s, {"3 strides", "rank-2"});
}

TEST(TensorMap, BaseMustBe16ByteAlignedAndNotNull) {
  TensorMapSpec s = spec_2d();
  s.base = reinterpret_cast<const void*>(std::uintptr_t{0x7f0000100008});
  expect_rejected(s, {"0x7f0000100008", "16-byte aligned"});
  s.base = nullptr;
  expect_rejected(s, {"base address is null"});
}

TEST(TensorMap, DimsMustBeOneTo2Pow32) {
  TensorMapSpec s = spec_2d();
  s.dims = {0, 512};
  expect_rejected(s, {"dim 0", "extent 0", "1..2^32"});
  s.dims = {1024, (std::int64_t{1} << 32) + 1};
  s.strides = {(std::int64_t{1} << 32) + 8, 1};
  expect_rejected(s, {"dim 1", "extent 4294967297", "1..2^32"});
  s.dims = {-3, 512};
  s.strides = {};
  expect_rejected(s, {"dim 0", "extent -3"});
  s.dims = {1, std::int64_t{1} << 32};
  s.box = {1, 64};
  EXPECT_NO_THROW(validate(s)) << "2^32 itself is allowed";
}

TEST(TensorMap, InnermostStrideMustBeOneElement) {
  TensorMapSpec s = spec_2d();
  s.strides = {1024, 2};
  expect_rejected(s, {"innermost stride (dim 1)", "is 2 elements", "stride 1"});
}

TEST(TensorMap, StridesMustBeMultiplesOf16Bytes) {
  TensorMapSpec s = spec_2d();
  s.strides = {516, 1};  // 1032 bytes
  expect_rejected(s, {"stride of dim 0", "516 elements = 1032 bytes", "multiples of 16 bytes"});
  // Dense strides follow the same rule: K = 100 f16 is 200 bytes a row.
  s = spec_2d();
  s.dims = {8, 100};
  s.box = {8, 8};
  expect_rejected(s, {"dense row-major stride of dim 0", "100 elements = 200 bytes",
                      "multiples of 16 bytes"});
  s = spec_2d();
  s.strides = {-512, 1};
  expect_rejected(s, {"stride of dim 0", "-512", "positive"});
  s.strides = {0, 1};
  expect_rejected(s, {"stride of dim 0", "is 0", "positive"});
}

TEST(TensorMap, StridesMustBeBelow2Pow40Bytes) {
  TensorMapSpec s = spec_2d();
  s.strides = {std::int64_t{1} << 39, 1};  // 2^40 bytes of f16
  expect_rejected(s, {"stride of dim 0", "1099511627776 bytes", "less than 2^40 bytes"});
  // Dense: [2, 2^20, 2^20] f32 has an outer stride of 2^42 bytes; the inner
  // stride (2^22 bytes) is fine, so the message names dim 0.
  s = spec_2d();
  s.dtype = DType::f32;
  s.dims = {2, 1 << 20, 1 << 20};
  s.box = {1, 1, 4};
  expect_rejected(s, {"dense row-major stride of dim 0", "4398046511104 bytes", "less than 2^40"});
  // Large dense products cannot overflow into a small passing value.
  s.dims = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
  s.box = {1, 1, 1, 1, 4};
  expect_rejected(s, {"dense row-major stride of dim 2", "less than 2^40"});
}

TEST(TensorMap, BoxExtentsMustBeOneTo256) {
  TensorMapSpec s = spec_2d();
  s.box = {300, 64};
  expect_rejected(s, {"box extent of dim 0", "is 300", "1..256"});
  s.box = {0, 64};
  expect_rejected(s, {"box extent of dim 0", "is 0", "1..256"});
  s.box = {256, 256};
  EXPECT_NO_THROW(validate(s));
}

TEST(TensorMap, InnermostBoxBytesMustBeMultipleOf16) {
  TensorMapSpec s = spec_2d();
  s.box = {64, 12};  // 24 bytes of f16
  expect_rejected(s, {"innermost TMA box extent is 12 elements = 24 bytes", "multiple of 16 bytes"});
  s.dtype = DType::u8;
  s.box = {64, 16};
  EXPECT_NO_THROW(validate(s));
}

TEST(TensorMap, SwizzledInnermostBoxMustFitTheSpan) {
  TensorMapSpec s = spec_2d();
  s.swizzle_bytes = 64;
  s.box = {64, 64};  // 128 bytes of f16
  expect_rejected(s, {"128 bytes", "64-byte swizzle", "at most 64 bytes"});
  s.swizzle_bytes = 32;
  s.box = {64, 32};
  expect_rejected(s, {"64 bytes", "32-byte swizzle", "at most 32 bytes"});
  s.swizzle_bytes = 128;
  s.box = {64, 64};
  EXPECT_NO_THROW(validate(s));
  s.swizzle_bytes = 0;
  s.box = {64, 256};
  EXPECT_NO_THROW(validate(s)) << "no swizzle, no span limit";
}

TEST(TensorMap, SwizzleBytesMustBeAHardwareMode) {
  TensorMapSpec s = spec_2d();
  s.swizzle_bytes = 256;
  expect_rejected(s, {"swizzle must be 0, 32, 64 or 128 bytes", "got 256"});
  s.swizzle_bytes = 3;
  expect_rejected(s, {"got 3"});
}

TEST(TensorMap, DTypeMustBeSupportedByTma) {
  TensorMapSpec s = spec_2d();
  s.dtype = static_cast<DType>(200);
  expect_rejected(s, {"element type #200", "not supported by TMA"});
}

TEST(TensorMap, UnnamedSpecSaysTmaTensorMap) {
  TensorMapSpec s = spec_2d();
  s.what.clear();
  s.box = {64, 300};
  EXPECT_TRUE(rejection(s).starts_with("TMA tensor map: ")) << rejection(s);
}

TEST(TensorMap, DTypeMapping) {
  const std::pair<DType, CUtensorMapDataType> cases[] = {
      {DType::u8, CU_TENSOR_MAP_DATA_TYPE_UINT8},       {DType::s8, CU_TENSOR_MAP_DATA_TYPE_UINT8},
      {DType::f8_e4m3, CU_TENSOR_MAP_DATA_TYPE_UINT8},  {DType::f8_e5m2, CU_TENSOR_MAP_DATA_TYPE_UINT8},
      {DType::u16, CU_TENSOR_MAP_DATA_TYPE_UINT16},     {DType::s16, CU_TENSOR_MAP_DATA_TYPE_UINT16},
      {DType::f16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16},    {DType::bf16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
      {DType::u32, CU_TENSOR_MAP_DATA_TYPE_UINT32},     {DType::s32, CU_TENSOR_MAP_DATA_TYPE_INT32},
      {DType::f32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32},    {DType::u64, CU_TENSOR_MAP_DATA_TYPE_UINT64},
      {DType::s64, CU_TENSOR_MAP_DATA_TYPE_INT64},      {DType::f64, CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
  };
  for (auto [dtype, expected] : cases) {
    TensorMapSpec s = spec_2d();
    s.dtype = dtype;
    s.box = {8, 16};  // 16 bytes or more for every size
    EXPECT_EQ(encode_args(s).dtype, expected) << static_cast<int>(dtype);
  }
}

TEST(TensorMap, EncodeArgs2DAreInnermostFirstWithByteStrides) {
  TensorMapSpec s = spec_2d();  // f16 [1024, 512], box [64, 64]
  s.swizzle_bytes = 128;
  EncodeArgs a = encode_args(s);
  EXPECT_EQ(a.dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.base, kBase);
  EXPECT_EQ(a.dims[0], 512u);
  EXPECT_EQ(a.dims[1], 1024u);
  EXPECT_EQ(a.strides[0], 512u * 2);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 64u);
  EXPECT_EQ(a.element_strides[0], 1u);
  EXPECT_EQ(a.element_strides[1], 1u);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(a.l2, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  for (int i = 2; i < 5; ++i) EXPECT_EQ(a.dims[i], 0u) << i;
  for (int i = 1; i < 4; ++i) EXPECT_EQ(a.strides[i], 0u) << i;

  // A padded leading dimension: a [1024, 500] view of rows 512 elements apart.
  s.dims = {1024, 500};
  s.strides = {512, 1};
  s.box = {128, 32};
  s.swizzle_bytes = 64;
  a = encode_args(s);
  EXPECT_EQ(a.dims[0], 500u);
  EXPECT_EQ(a.dims[1], 1024u);
  EXPECT_EQ(a.strides[0], 1024u);
  EXPECT_EQ(a.box[0], 32u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_64B);
}

TEST(TensorMap, EncodeArgs3DAreInnermostFirstWithByteStrides) {
  TensorMapSpec s;
  s.dtype = DType::f32;
  s.base = kBase;
  s.dims = {4, 96, 80};  // [B, M, K], dense
  s.box = {1, 16, 8};
  s.swizzle_bytes = 32;
  EncodeArgs a = encode_args(s);
  EXPECT_EQ(a.rank, 3u);
  EXPECT_EQ(a.dims[0], 80u);
  EXPECT_EQ(a.dims[1], 96u);
  EXPECT_EQ(a.dims[2], 4u);
  EXPECT_EQ(a.strides[0], 80u * 4);       // a row of K
  EXPECT_EQ(a.strides[1], 96u * 80 * 4);  // a batch
  EXPECT_EQ(a.box[0], 8u);
  EXPECT_EQ(a.box[1], 16u);
  EXPECT_EQ(a.box[2], 1u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(a.element_strides[i], 1u) << i;
  EXPECT_EQ(a.element_strides[3], 0u);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_32B);

  // The same tensor with explicit strides (and a padded batch) and no swizzle.
  s.strides = {96 * 80 + 64, 80, 1};
  s.box = {2, 4, 128};  // 512-byte rows take the wider L2 promotion
  s.swizzle_bytes = 0;
  a = encode_args(s);
  EXPECT_EQ(a.strides[0], 80u * 4);
  EXPECT_EQ(a.strides[1], (96u * 80 + 64) * 4);
  EXPECT_EQ(a.box[0], 128u);
  EXPECT_EQ(a.box[2], 2u);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
  EXPECT_EQ(a.l2, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

TEST(TensorMap, InvalidSpecIsRejectedBeforeTheDriverOrTheCache) {
  TensorMapSpec s = spec_2d();
  s.swizzle_bytes = 128;
  s.box = {64, 128};  // 256 bytes, wider than the swizzle span
  const std::uint64_t before = tensor_map_encode_count();
  EXPECT_THROW(encoded_tensor_map(s), ArgumentError);
  EXPECT_EQ(tensor_map_encode_count(), before);
}

TEST(TensorMap, WithoutADriverEncodingThrowsCudaErrorNamingWhat) {
  std::string why;
  if (driver_available(&why)) GTEST_SKIP() << "a CUDA driver is present";
  try {
    encoded_tensor_map(spec_2d());
    ADD_FAILURE() << "encoded without a driver";
  } catch (const CudaError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("tma.copy of 'lhs' at 3:5: "), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
  EXPECT_EQ(tensor_map_encode_count(), 0u);
}

TEST(TensorMap, SwizzleModeMapping) {
  EXPECT_EQ(swizzle_bytes_from_mode(0), 0);
  EXPECT_EQ(swizzle_bytes_from_mode(1), 32);
  EXPECT_EQ(swizzle_bytes_from_mode(2), 64);
  EXPECT_EQ(swizzle_bytes_from_mode(3), 128);
  EXPECT_EQ(swizzle_bytes_from_mode(32), 32);
  EXPECT_EQ(swizzle_bytes_from_mode(64), 64);
  EXPECT_EQ(swizzle_bytes_from_mode(128), 128);
  for (int bad : {4, 16, 256, -1}) {
    try {
      swizzle_bytes_from_mode(bad);
      ADD_FAILURE() << "accepted swiz<" << bad << ">";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("swiz<" + std::to_string(bad) + ">"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace croq::jit
