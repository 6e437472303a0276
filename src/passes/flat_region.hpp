// What the passes that rewrite a flat level read of it (elementwise_pass.cpp,
// transpose_pass.cpp): a flat region (one instance per element, `parallel
// {i, j} by [M, N]` with nothing staged) opens with its linear index `lin`,
// optionally guards `lin < total`, and computes its body over the elements
// the index lets `(lin / d) % m` name. The body's accesses are checked here:
// every read is at the instance's own element of a global tensor of the
// level's shape; each write is at the own element too or, where asked for,
// at the transposed element of a two-dimensional level.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "ir/ir.hpp"

namespace croq::passes::flat {

// An index `let` of the flat level: (lin / divisor) % modulus (modulus 0: none).
struct IndexOf {
  std::int64_t divisor = 1;
  std::int64_t modulus = 0;
};

struct Plan {
  std::string lin;  // the level's linear index
  std::int64_t total = 0;
  std::map<std::string, IndexOf> indices;
  std::set<int> read, written;  // global buffers
  bool conditional_write = false;
  // Writes `y[j, i]` of a [N, M] buffer in a level [M, N] (i = lin / N,
  // j = lin % N) are accepted and listed here when `allow_transposed`.
  bool allow_transposed = false;
  std::set<int> transposed;
  std::int64_t rows = 0, cols = 0;  // the level [M, N] a transposed write shows
};

// The flat region's parts: `top[at]` is the `lin` let; `body` the element
// statements, taken out of the region (inside the guard `lin < total` when
// the threads outnumber the instances) until `give_back` returns them.
struct Body {
  ir::StmtList* top = nullptr;
  std::size_t at = 0;
  const ir::Let* lin_let = nullptr;
  ir::If* guard = nullptr;
  ir::StmtList body;
  void give_back();
};

bool is_var(const ir::ExprRef& e, const std::string& name);

// The threads of the level's `lin` let `(blockIdx.x * T) + threadIdx.x`: T, else 0.
std::int64_t threads_of(const ir::ExprRef& init);

// Takes the region's body out and fills the plan's `lin` and `total`;
// nullopt (region untouched) when it is not a flat level of `kernel`'s block.
std::optional<Body> take_body(const ir::Kernel& kernel, ir::Region& region, Plan& plan);

// Checks the element body (lets, assignments and branches over the allowed
// elements only) and fills the plan's reads, writes and index lets.
bool body_ok(const ir::Kernel& k, Plan& plan, const ir::StmtList& body, bool conditional);

// Whether `lin` appears in the expression.
bool mentions(const ir::ExprRef& e, const std::string& name);

// The kernel's one flat region, if its body holds nothing else.
ir::Region* only_flat_region(ir::Kernel& kernel);

// What the rewrites add to the kernel's buffers (each returns its index):
// a one-dimensional view of global buffer b's `total` elements, and a local
// register array of `dims` named from `base`, aligned for accesses of
// `chunk` elements (16 bytes at most).
int flat_view(ir::Kernel& kernel, int b, std::int64_t total);
int local_registers(ir::Kernel& kernel, const std::string& base, DType dtype, std::vector<ir::Extent> dims,
                    std::int64_t chunk);
// A buffer's name without the prefix lowering gives arguments and outputs
// (arg_x, croq_output: x, output).
std::string base_name(std::string name);

}  // namespace croq::passes::flat
