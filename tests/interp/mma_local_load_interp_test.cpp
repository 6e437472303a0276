// Interpret mode: mma.load from local memory at warp level
// (tests/common/mma_local_load_sources.hpp) against the host's product, and
// lanes that hold different values in the local tile (a breaking pass writes
// each thread's index into it) caught at the mma's line.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/mma_local_load_sources.hpp"
#include "croq/croq.hpp"
#include "interp/broken_ir.hpp"
#include "interp/interp_test_util.hpp"
#include "ir/builder.hpp"

namespace {

namespace ir = croq::ir;
namespace passes = croq::passes;

struct Operands {
  std::size_t m, n, k;
  croq::Tensor lhs, rhs, out;
  Operands(std::size_t m_, std::size_t n_, std::size_t k_, unsigned seed)
      : m(m_), n(n_), k(k_), lhs(croq::Tensor::empty(croq::DType::f16, {m_, k_}, croq::MemoryKind::host)),
        rhs(croq::Tensor::empty(croq::DType::f16, {n_, k_}, croq::MemoryKind::host)),
        out(croq::Tensor::empty(croq::DType::f32, {m_, n_}, croq::MemoryKind::host)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (std::size_t i = 0; i < m * k; ++i) static_cast<croq::f16*>(lhs.data())[i] = croq::f16(value(gen));
    for (std::size_t i = 0; i < n * k; ++i) static_cast<croq::f16*>(rhs.data())[i] = croq::f16(value(gen));
    for (std::size_t i = 0; i < m * n; ++i) static_cast<float*>(out.data())[i] = 1e4f;  // poison
  }
  std::vector<croq::Arg> args() { return {lhs.view(), rhs.view(), out.view()}; }
};

TEST(InterpretLocalLoad, WarpMmaOfALocalLhsMatchesTheHost) {
  const croq::Kernel kernel = croq::test::interpreted(croq::test::kLocalLhsGemm);
  Operands o(72, 40, 48, 5);
  kernel(o.lhs.view(), o.rhs.view(), o.out.view());
  const auto* a = static_cast<const croq::f16*>(o.lhs.data());
  const auto* b = static_cast<const croq::f16*>(o.rhs.data());
  const auto* c = static_cast<const float*>(o.out.data());
  for (std::size_t i = 0; i < o.m; ++i)
    for (std::size_t j = 0; j < o.n; ++j) {
      double want = 0;
      for (std::size_t x = 0; x < o.k; ++x)
        want += static_cast<double>(static_cast<float>(a[i * o.k + x])) * static_cast<float>(b[j * o.k + x]);
      ASSERT_NEAR(c[i * o.n + j], want, 1e-4 * (1 + std::fabs(want))) << i << ", " << j;
    }
}

// Before each mma whose lhs is a local tile: lhs[0, 0] = the thread's index.
void lanes_disagree(ir::Kernel& k, const passes::PassContext&) {
  croq::test::for_each_child(*k.body, [](ir::StmtList& list) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto* mma = std::get_if<ir::Mma>(&list[i]->node);
      if (!mma || mma->a.space != ir::Space::local) continue;
      const ir::Tile& tile = mma->a.tile;
      auto s = std::make_unique<ir::Stmt>();
      s->where = list[i]->where;
      s->node = ir::Assign{ir::element(tile.buffer, mma->input, tile.slot, tile.origin), "=",
                           ir::convert(ir::special("threadIdx.x"), ir::Type::element(mma->input)), nullptr};
      list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), std::move(s));
      ++i;
    }
  });
}

TEST(InterpretLocalLoad, LanesThatDisagreeOnTheLocalTileAreAnError) {
  Operands o(64, 16, 16, 6);
  std::string text;
  EXPECT_EQ(croq::test::interpret_error_line([&] { croq::test::run_broken(croq::test::kLocalLhsGemm, o.args(), lanes_disagree); },
                                             text),
            10)
      << text;
  EXPECT_NE(text.find("the lanes of a warp hold different values in the local tile"), std::string::npos) << text;
  EXPECT_NE(text.find("(each lane reads its own copy)"), std::string::npos) << text;
}

}  // namespace
