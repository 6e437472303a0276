// 2:4 structured sparsity on the host, for Croqtile programs that multiply
// with sparse WGMMA (`mma.row.row.sp acc, a, b, meta`):
// choreo::utils::SparsePolicyWGMMA<T> makes a 2:4 sparse dense matrix and
// splits it into the packed values and the metadata bytes the sparse mma
// reads.
//
// Layout (what lowering's metadata load expects): for a dense [M, K] row,
// each group of 4 consecutive elements keeps 2. `packed` is [M, K / 2]: the
// kept values of group g at columns 2g and 2g + 1, lower index first.
// `meta` is u8 [M, K / 8]: group g's 4-bit code (index of the first kept
// element in bits 0-1, of the second in bits 2-3) is the low nibble of byte
// g / 2 for even g and the high nibble for odd g. A group with other than
// two nonzeros is encoded as keeping positions 0 and 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>

namespace choreo::utils {

template <typename T>
struct SparsePolicyWGMMA {
  // Dense K covered by one sparse WGMMA: 64 for fp8 operands, 32 otherwise.
  static constexpr std::size_t meta_k = sizeof(T) == 1 ? 64 : 32;

  // Zeroes `dense` and gives every group of 4 elements of each row two
  // nonzero values, uniform in [-1, 1], at two distinct random positions.
  static void init_structured_sparse_A(spanned_data<T, 2>& dense, std::mt19937& gen) {
    const std::size_t rows = dense.shape()[0], cols = dense.shape()[1];
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::uniform_int_distribution<int> position(0, 3);
    T* d = dense.data();
    for (std::size_t i = 0; i < rows * cols; ++i) d[i] = from_f32<T>(0.0f);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t g = 0; g < cols / 4; ++g) {
        int first = position(gen), second = position(gen);
        while (second == first) second = position(gen);
        if (first > second) std::swap(first, second);
        const T a = nonzero(value(gen), 1.0f), b = nonzero(value(gen), -1.0f);
        d[r * cols + g * 4 + static_cast<std::size_t>(first)] = a;
        d[r * cols + g * 4 + static_cast<std::size_t>(second)] = b;
      }
    }
  }

  // Splits a 2:4 sparse `dense` [M, K] into `packed` [M, K / 2] and `meta`
  // u8 [M, K / 8] (see the top of this header).
  static void encode(const spanned_data<T, 2>& dense, spanned_data<T, 2>& packed, spanned_data<std::uint8_t, 2>& meta) {
    const std::size_t rows = dense.shape()[0], cols = dense.shape()[1];
    choreo_assert(cols % 8 == 0 && packed.shape()[0] == rows && packed.shape()[1] == cols / 2 &&
                      meta.shape()[0] == rows && meta.shape()[1] == cols / 8,
                  "SparsePolicyWGMMA::encode: dense [M, K] (K a multiple of 8), packed [M, K/2], meta [M, K/8]");
    const T* d = dense.data();
    T* p = packed.data();
    std::uint8_t* m = meta.data();
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t g = 0; g < cols / 4; ++g) {
        const T* group = d + r * cols + g * 4;
        int kept[2] = {0, 1};
        int count = 0;
        for (int i = 0; i < 4; ++i)
          if (to_f32(group[i]) != 0.0f) {
            if (count < 2) kept[count] = i;
            ++count;
          }
        if (count != 2) kept[0] = 0, kept[1] = 1;
        p[r * (cols / 2) + g * 2] = group[kept[0]];
        p[r * (cols / 2) + g * 2 + 1] = group[kept[1]];
        const auto code = static_cast<std::uint8_t>(kept[0] | (kept[1] << 2));
        std::uint8_t& byte = m[r * (cols / 8) + g / 2];
        byte = g % 2 == 0 ? code : static_cast<std::uint8_t>(byte | (code << 4));
      }
    }
  }

  // The dense [M, K] matrix that `packed` and `meta` describe (encode's inverse).
  static void decode(const spanned_data<T, 2>& packed, const spanned_data<std::uint8_t, 2>& meta,
                     spanned_data<T, 2>& dense) {
    const std::size_t rows = dense.shape()[0], cols = dense.shape()[1];
    choreo_assert(packed.shape()[0] == rows && packed.shape()[1] == cols / 2 && meta.shape()[1] == cols / 8,
                  "SparsePolicyWGMMA::decode: packed [M, K/2], meta [M, K/8], dense [M, K]");
    T* d = dense.data();
    for (std::size_t i = 0; i < rows * cols; ++i) d[i] = from_f32<T>(0.0f);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t g = 0; g < cols / 4; ++g) {
        const unsigned code = (meta.data()[r * (cols / 8) + g / 2] >> (g % 2 * 4)) & 0xfu;
        d[r * cols + g * 4 + (code & 3u)] = packed.data()[r * (cols / 2) + g * 2];
        d[r * cols + g * 4 + (code >> 2)] = packed.data()[r * (cols / 2) + g * 2 + 1];
      }
  }

 private:
  // `v` as T, or `fallback` where v (or its rounding to T) is zero.
  static T nonzero(float v, float fallback) {
    const T t = from_f32<T>(v == 0.0f ? fallback : v);
    return to_f32(t) == 0.0f ? from_f32<T>(fallback) : t;
  }
};

}  // namespace choreo::utils
