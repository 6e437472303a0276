// The index width as a decision of the IR (ir/index_width.hpp,
// passes::choose_index_width; the golden cases are in
// tests/passes/choose_index_width/): the verifier finds what the pass left
// undecided, and resolving an expression re-types what is over an index
// variable and shares the rest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.hpp"
#include "ir/index_width.hpp"
#include "ir/parser.hpp"
#include "ir/verifier.hpp"
#include "passes/passes.hpp"

namespace croq::ir {
namespace {

const char* const kUndecided = R"ir(kernel croq_k: grid 1, block 32, shared 0 bytes, indices up to 32
  buffer x: global f32 [32] {argument=0}
  for i_0 in [0, 32) {type=index}:
    x[index_width((i_0 * 1), (convert<i64>(i_0) * 1))] = 0.0f
)ir";

TEST(IndexWidth, TheVerifierFindsWhatThePassLeftUndecided) {
  const Kernel k = parse_kernel(kUndecided);
  EXPECT_TRUE(verify(k, Decisions::none()).empty()) << "lowering's output is valid before the decision";
  const std::vector<std::string> errors = verify(k, Decision::index_width);
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "the index width was left unchosen",
                        "`i_0` is declared with the index type after the index-width pass",
                        "an index_width choice was left after the index-width pass",
                        "index variable `i_0` has no width after the index-width pass",
                        "index variable `i_0` has no width after the index-width pass",
                    }));
}

TEST(IndexWidth, ThePassLeavesNothingUndecided) {
  for (const char* const largest : {"32", "2147483648"}) {
    std::string text = kUndecided;
    text.replace(text.find("up to 32") + 6, 2, largest);
    Kernel k = parse_kernel(text);
    passes::choose_index_width(k);
    EXPECT_TRUE(verify(k, Decision::index_width).empty()) << largest;
    EXPECT_EQ(k.index, std::string(largest) == "32" ? Type::i32() : Type::i64()) << largest;
  }
}

TEST(IndexWidth, ResolvingRetypesWhatIsOverAnIndexVariableAndSharesTheRest) {
  const ExprRef i = var("i_0", Type::index());
  EXPECT_TRUE(i->index_var);
  EXPECT_EQ(i->type, Type::i32()) << "read as i32 until the pass";
  const ExprRef other = binary("*", var("n_1"), int_const(4));
  const ExprRef sum = binary("+", binary("+", i, special("threadIdx.x")), other);
  EXPECT_EQ(sum->type, (Type{Type::Kind::u32, DType::u32}));
  EXPECT_EQ(wide_type(sum), Type::i64());
  IndexWidth wide(true);
  const ExprRef resolved = wide(sum);
  EXPECT_EQ(resolved->type, Type::i64());
  EXPECT_EQ(resolved->operands[1], other) << "a subexpression without index variables stays shared";
  EXPECT_FALSE(resolved->operands[0]->operands[0]->index_var);
  IndexWidth narrow(false);
  EXPECT_EQ(narrow(sum)->type, sum->type);
  // Of the index type, a conversion is both forms.
  const ExprRef c = convert(var("n_1"), Type::index());
  ASSERT_EQ(c->kind, ExprKind::by_index_width);
  EXPECT_EQ(narrow(c)->type, Type::i32());
  EXPECT_EQ(IndexWidth(true)(c)->type, Type::i64());
  // Into a sub-byte integer (from i32 only): through i32 in 64-bit kernels.
  const ExprRef s4 = coerce(binary("+", i, int_const(1)), Type::element(DType::s4));
  ASSERT_EQ(s4->kind, ExprKind::by_index_width);
  const ExprRef narrow_s4 = IndexWidth(false)(s4), wide_s4 = IndexWidth(true)(s4);
  EXPECT_EQ(narrow_s4->operands[0]->kind, ExprKind::binary);
  ASSERT_EQ(wide_s4->operands[0]->kind, ExprKind::convert);
  EXPECT_EQ(wide_s4->operands[0]->type, Type::i32());
  EXPECT_EQ(coerce(other, Type::element(DType::s4))->kind, ExprKind::convert) << "no index variable: one form";
}

}  // namespace
}  // namespace croq::ir
