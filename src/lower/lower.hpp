// Lowering: one bound (specialized) __co__ function -> a tile-IR kernel.
//
// Every symbolic dim is bound to a number (or stays a dynamic dim, a kernel
// parameter), so shapes, tile extents and parallel counts are constants in
// the IR; indices are expressions. Lowering translates the parallel
// mapping sema chose, allocates buffers and events, and turns copies and
// MMAs into IR operations; the width of index arithmetic, which barriers
// shared reads need, layouts, barrier counts, instruction choices and the
// shared memory layout are left to the passes (src/passes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "bind/bind.hpp"
#include "croq/error.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "target/target.hpp"

namespace croq::lower {

using bind::BoundFunction;

// Index arithmetic in its 32-bit form, with the 64-bit form beside it where
// they differ (ir/index_width.hpp), and the largest value an index may take
// (ir::Kernel::largest_index: a tensor's elements, counts, coordinates; no
// bound for dynamic dims), from which passes::choose_index_width chooses.
// Expressions whose text would pass 1 MiB (nested guarded reads double it
// per level) are refused, measured on the IR (ir/expr_size.hpp).
// Throws CompileError (with the source location, and the bound dims that
// the failing construct involves) for what cannot be lowered for `target`.
// Warnings (redundant or missing .zfill, ...) are appended to `warnings`.
// A function is a program of kernel_count() kernels, one per top-level
// parallel statement (one when it has none or one); `kernel` picks which to
// lower. Each kernel has the function-scope declarations; `global` ones
// (other than the returned tensor) are scratch buffers of the program
// (abi::KernelAbi::scratch). Other statements between the kernels (host
// code) are a CompileError.
int kernel_count(const frontend::ast::Function& fn);
ir::Kernel lower_function(const BoundFunction& bound, const target::Target& target,
                          std::vector<Diagnostic>& warnings, int kernel = 0);

}  // namespace croq::lower
