// Binding: a call's argument signature against a __co__ function's
// parameters. Each symbolic dim gets the extent of the first argument that
// has it (or stays a dynamic dim), and every literal or repeated dim must
// agree; a mismatch is an ArgumentError that names the argument, the dim and
// both shapes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "frontend/ast.hpp"
#include "sema/sema.hpp"

namespace croq::bind {

// A __co__ function specialized for one call signature: the input of lowering.
struct BoundFunction {
  const frontend::ast::Program* program = nullptr;
  const frontend::ast::Function* function = nullptr;
  std::vector<abi::ArgSignature> args;
  std::map<std::string, std::int64_t> dims;  // symbolic dim -> its value
  std::map<std::string, abi::DimSource> dim_sources;  // where each bound dim came from
  // Dynamic dims: where each is read at launch (first) and every occurrence.
  std::map<std::string, std::vector<abi::DimSource>> dynamic;
  // What sema proved about `function` (names, mappings, decoded modifiers),
  // for the target being lowered for: lowering reads it.
  const sema::CheckedFunction* semantics = nullptr;
};


// Throws ArgumentError (arity, tensor vs scalar, dtype, rank, extents).
// Extents given as -1 in `args` are dynamic dims and stay unbound.
std::map<std::string, std::int64_t> bind_dims(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                              const std::vector<abi::ArgSignature>& args);

// Where each dynamic dim is read at launch (its first occurrence among the
// tensor parameters), and every occurrence (for the consistency check).
// Throws CompileError when a name is not a symbolic dim of a tensor parameter.
std::map<std::string, std::vector<abi::DimSource>> dynamic_dim_sources(const frontend::ast::Program& program,
                                                                     const frontend::ast::Function& fn,
                                                                     const std::vector<std::string>& dynamic_dims);

// Both, as the input of lowering: binds `args`, whose dynamic dims may
// hold the call's extents (checked like any other, once) or -1; in the
// result they are -1 and unbound.
BoundFunction bind_function(const frontend::ast::Program& program, const frontend::ast::Function& fn,
                                   const std::vector<abi::ArgSignature>& args,
                                   const std::vector<std::string>& dynamic_dims);

// How the values on source line `line` were derived, for the notes of a
// shape-dependent error: each bound dim it names ("K = 136 from argument 2
// 'rhs', dim 1") or dynamic dim, then each integer #define it names
// ("TILE_K = 64 (#define at line 3)"). Empty when it names no dim.
std::vector<std::string> derivation_notes(const BoundFunction& bound, int line);

}  // namespace croq::bind
