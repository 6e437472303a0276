// choreo::utils::SparsePolicyWGMMA: 2:4 sparse inputs and their packed
// values and metadata bytes, as upstream programs (gemm_sp) build them.
#include <gtest/gtest.h>

#include <random>

#include "croq/choreo.hpp"

namespace {

template <typename T>
void expect_round_trip(std::size_t rows, std::size_t cols) {
  using Policy = choreo::utils::SparsePolicyWGMMA<T>;
  std::mt19937 gen(7);
  auto dense = choreo::make_spandata<T>(rows, cols);
  auto packed = choreo::make_spandata<T>(rows, cols / 2);
  auto meta = choreo::make_spandata<choreo::u8>(rows, cols / 8);
  Policy::init_structured_sparse_A(dense, gen);
  // Exactly two nonzeros in every group of four.
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t g = 0; g < cols / 4; ++g) {
      int nonzeros = 0;
      for (std::size_t i = 0; i < 4; ++i) nonzeros += choreo::to_f32(dense[r][g * 4 + i]) != 0.0f;
      ASSERT_EQ(nonzeros, 2) << "row " << r << " group " << g;
    }
  Policy::encode(dense, packed, meta);
  auto back = choreo::make_spandata<T>(rows, cols);
  Policy::decode(packed, meta, back);
  EXPECT_TRUE(back == dense);
  // Every code names two distinct positions, the lower first (the codes
  // the hardware accepts).
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < cols / 8; ++b)
      for (int half = 0; half < 2; ++half) {
        const unsigned code = (meta[r][b] >> (4 * half)) & 0xfu;
        EXPECT_LT(code & 3u, code >> 2) << "row " << r << " byte " << b;
      }
}

TEST(ChoreoSparse, F16RoundTripsThroughPackedValuesAndMetadata) { expect_round_trip<choreo::f16>(64, 64); }
TEST(ChoreoSparse, Bf16RoundTripsThroughPackedValuesAndMetadata) { expect_round_trip<choreo::bf16>(16, 32); }
TEST(ChoreoSparse, Fp8RoundTripsThroughPackedValuesAndMetadata) { expect_round_trip<choreo::f8_e4m3>(64, 128); }

TEST(ChoreoSparse, MetadataBytesHoldTwoGroupsLowNibbleFirst) {
  using Policy = choreo::utils::SparsePolicyWGMMA<float>;
  auto dense = choreo::make_spandata<float>(1, 8);
  // Group 0 keeps positions 1 and 3 (code 0b1101), group 1 keeps 0 and 2 (0b1000).
  const float row[8] = {0, 5, 0, 6, 7, 0, 8, 0};
  for (int i = 0; i < 8; ++i) dense[0][i] = row[i];
  auto packed = choreo::make_spandata<float>(1, 4);
  auto meta = choreo::make_spandata<choreo::u8>(1, 1);
  Policy::encode(dense, packed, meta);
  EXPECT_EQ(meta[0][0], 0x8d);
  EXPECT_EQ(packed[0][0], 5.0f);
  EXPECT_EQ(packed[0][1], 6.0f);
  EXPECT_EQ(packed[0][2], 7.0f);
  EXPECT_EQ(packed[0][3], 8.0f);
}

TEST(ChoreoSparse, GroupsWithoutTwoNonzerosKeepTheFirstTwoPositions) {
  using Policy = choreo::utils::SparsePolicyWGMMA<float>;
  auto dense = choreo::make_spandata<float>(1, 8);
  const float row[8] = {0, 0, 0, 4, 1, 2, 3, 0};  // one nonzero, then three
  for (int i = 0; i < 8; ++i) dense[0][i] = row[i];
  auto packed = choreo::make_spandata<float>(1, 4);
  auto meta = choreo::make_spandata<choreo::u8>(1, 1);
  Policy::encode(dense, packed, meta);
  EXPECT_EQ(meta[0][0], 0x44);  // 0b0100 for both groups: positions 0 and 1
  EXPECT_EQ(packed[0][0], 0.0f);
  EXPECT_EQ(packed[0][1], 0.0f);
  EXPECT_EQ(packed[0][2], 1.0f);
  EXPECT_EQ(packed[0][3], 2.0f);
  static_assert(Policy::meta_k == 32 && choreo::utils::SparsePolicyWGMMA<choreo::f8_e4m3>::meta_k == 64);
}

}  // namespace
