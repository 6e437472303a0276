// Lowering: one bound (specialized) __co__ function -> a tile-IR kernel.
//
// Every symbolic dim is bound to a number (or stays a dynamic dim, a kernel
// parameter), so shapes, tile extents and parallel counts are constants in
// the IR; indices are expressions. Lowering decides the parallel mapping,
// allocates buffers and events, and turns copies and MMAs into IR
// operations; layouts, barrier counts, instruction choices and the shared
// memory layout are left to the passes (src/passes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/error.hpp"
#include "frontend/ast.hpp"
#include "ir/ir.hpp"
#include "target/target.hpp"

namespace croq::lower {

struct BoundFunction {
  const frontend::ast::Program* program = nullptr;
  const frontend::ast::Function* function = nullptr;
  std::vector<abi::ArgSignature> args;
  std::map<std::string, std::int64_t> dims;  // symbolic dim -> its value
  std::map<std::string, abi::DimSource> dim_sources;  // where each bound dim came from
  // Dynamic dims: where each is read at launch (first) and every occurrence.
  std::map<std::string, std::vector<abi::DimSource>> dynamic;
};

// How the values on source line `line` were derived, for the notes of a
// shape-dependent error: each bound dim it names ("K = 136 from argument 2
// 'rhs', dim 1") or dynamic dim, then each integer #define it names
// ("TILE_K = 64 (#define at line 3)"). Empty when it names no dim.
std::vector<std::string> derivation_notes(const BoundFunction& bound, int line);

// The length of an expression as the backend prints it: lowering refuses
// expressions past 1 MiB of text (nested guarded reads double it per level).
using ExpressionTextSize = std::function<std::size_t(const ir::Kernel&, const ir::ExprRef&)>;

// 32-bit index arithmetic unless a tensor may hold 2^31 elements or more
// (or a dim is dynamic); lowering starts over in 64 bits when a count or
// coordinate turns out to need them.
// Throws CompileError (with the source location, and the bound dims that
// the failing construct involves) for what cannot be lowered for `target`.
// Warnings (redundant or missing .zfill, ...) are appended to `warnings`.
ir::Kernel lower_function(const BoundFunction& bound, const target::Target& target,
                          std::vector<Diagnostic>& warnings, const ExpressionTextSize& text_size = {});

}  // namespace croq::lower
