// samples/row_norms.cpp's kernels (samples/row_norm_source.hpp: softmax,
// RMSNorm and LayerNorm, f16 and bf16, warp reductions by butterfly
// shuffles in inline PTX) in interpret mode, on small shapes, checked as the
// sample checks them on the GPU: against the double-precision reference of
// the rounded inputs, every element within 2 ulps of its type (relative)
// plus 1e-6 (softmax) or 1e-3, the output poisoned first (the sample's
// reference: samples/row_norm_check.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../../samples/row_norm_check.hpp"
#include "../../samples/row_norm_source.hpp"
#include "interp/interp_test_util.hpp"

namespace {

using croq::test::interpreted;

struct Case {
  row_norm::Kind kind;
  const char* element;
  long long tokens, hidden;
  long long rows = 1;  // rows a block
};

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return std::string(row_norm::name(info.param.kind)) + "_" + info.param.element + "_" +
         std::to_string(info.param.tokens) + "x" + std::to_string(info.param.hidden) +
         (info.param.rows > 1 ? "_rows" + std::to_string(info.param.rows) : "");
}

template <typename T>
void expect_row_norm(const Case& c) {
  croq::Kernel kernel = interpreted(
      row_norm::source(c.kind, c.element, c.hidden, row_norm::detail::WarpFolds::shuffles, 0, c.rows));
  auto x = croq::make_spandata<T>(c.tokens, c.hidden);
  auto w = croq::make_spandata<T>(c.hidden);
  auto b = croq::make_spandata<T>(c.hidden);
  auto y = croq::make_spandata<T>(c.tokens, c.hidden);
  x.fill_random(-4, 4);
  w.fill_random(0.5, 1.5);
  b.fill_random(-1, 1);
  y.fill_random(1e4, 2e4);  // poison: every element must be written
  if (c.kind == row_norm::Kind::softmax) kernel(x.view(), y.view());
  else if (c.kind == row_norm::Kind::rmsnorm) kernel(x.view(), w.view(), y.view());
  else kernel(x.view(), w.view(), b.view(), y.view());
  const double ulp = std::string(c.element) == "bf16" ? 1.0 / 128 : 1.0 / 1024;
  const double floor = c.kind == row_norm::Kind::softmax ? 1e-6 : 1e-3;
  const std::vector<double> wv = row_norm::values(w, 0, c.hidden), bv = row_norm::values(b, 0, c.hidden);
  for (long long r = 0; r < c.tokens; ++r) {
    const std::vector<double> row = row_norm::values(x, r * c.hidden, c.hidden);
    const std::vector<double> want = row_norm::reference_row(c.kind, row, wv, bv);
    const std::vector<double> got = row_norm::values(y, r * c.hidden, c.hidden);
    for (long long i = 0; i < c.hidden; ++i)
      ASSERT_LE(std::abs(got[i] - want[i]), 2 * ulp * std::abs(want[i]) + floor)
          << "row " << r << ", element " << i << ": got " << got[i] << ", want " << want[i];
  }
}

class InterpretRowNorms : public testing::TestWithParam<Case> {};

TEST_P(InterpretRowNorms, MatchTheHostReference) {
  const Case& c = GetParam();
  if (std::string(c.element) == "f16") expect_row_norm<croq::f16>(c);
  else expect_row_norm<croq::bf16>(c);
}

// One warp a row (512), several warps through shared memory and a barrier
// (1024), and LayerNorm's 4 chunks a thread (4096: 128 threads).
INSTANTIATE_TEST_SUITE_P(
    Samples, InterpretRowNorms,
    testing::Values(Case{row_norm::Kind::softmax, "f16", 3, 512}, Case{row_norm::Kind::softmax, "bf16", 2, 1024},
                    Case{row_norm::Kind::rmsnorm, "f16", 2, 1024}, Case{row_norm::Kind::rmsnorm, "bf16", 3, 512},
                    Case{row_norm::Kind::layernorm, "f16", 2, 1024}, Case{row_norm::Kind::layernorm, "bf16", 1, 4096},
                    Case{row_norm::Kind::softmax, "f16", 5, 1024, 4}, Case{row_norm::Kind::rmsnorm, "bf16", 5, 512, 4}),
    case_name);

}  // namespace
