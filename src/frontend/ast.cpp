// Names of AST enums and small lookups shared by the parser, the printer and
// later passes.
#include "frontend/ast.hpp"
#include "frontend/host_code.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <string_view>

namespace croq::frontend::ast {

const Function* Program::find_function(const std::string& name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const Function* Program::find_co_device_function(const std::string& name) const {
  for (const Function& f : functions)
    if (f.is_co_device && f.name == name) return &f;
  return nullptr;
}

const DeviceCode::Function* Program::find_device_function(const std::string& name) const {
  for (const DeviceCode& code : device_code)
    for (const DeviceCode::Function& f : code.functions)
      if (f.name == name) return &f;
  return nullptr;
}

const char* storage_name(Storage s) {
  switch (s) {
    case Storage::none: return "";
    case Storage::global: return "global";
    case Storage::shared: return "shared";
    case Storage::local: return "local";
    case Storage::frag: return "frag";
  }
  return "";
}

const char* space_name(SpaceSpecifier s) {
  switch (s) {
    case SpaceSpecifier::none: return "";
    case SpaceSpecifier::block: return "block";
    case SpaceSpecifier::thread: return "thread";
    case SpaceSpecifier::group: return "group";
    case SpaceSpecifier::group4: return "group-4";
    case SpaceSpecifier::cluster: return "cluster";
    case SpaceSpecifier::device: return "device";
    case SpaceSpecifier::term: return "term";
  }
  return "";
}

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::negate: return "-";
    case UnaryOp::plus: return "+";
    case UnaryOp::logical_not: return "!";
    case UnaryOp::bit_not: return "~";
    case UnaryOp::extent: return "#";
    case UnaryOp::pre_increment: return "++";
    case UnaryOp::pre_decrement: return "--";
    case UnaryOp::post_increment: return "post++";
    case UnaryOp::post_decrement: return "post--";
    case UnaryOp::address_of: return "&";
    case UnaryOp::dereference: return "*";
  }
  return "?";
}

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::compose: return "#";
    case BinaryOp::mul: return "*";
    case BinaryOp::div: return "/";
    case BinaryOp::mod: return "%";
    case BinaryOp::add: return "+";
    case BinaryOp::sub: return "-";
    case BinaryOp::shl: return "<<";
    case BinaryOp::shr: return ">>";
    case BinaryOp::lt: return "<";
    case BinaryOp::gt: return ">";
    case BinaryOp::le: return "<=";
    case BinaryOp::ge: return ">=";
    case BinaryOp::eq: return "==";
    case BinaryOp::ne: return "!=";
    case BinaryOp::bit_and: return "&";
    case BinaryOp::bit_xor: return "^";
    case BinaryOp::bit_or: return "|";
    case BinaryOp::logical_and: return "&&";
    case BinaryOp::logical_or: return "||";
  }
  return "?";
}

const char* assign_op_name(AssignOp op) {
  switch (op) {
    case AssignOp::assign: return "=";
    case AssignOp::add: return "+=";
    case AssignOp::sub: return "-=";
    case AssignOp::mul: return "*=";
    case AssignOp::div: return "/=";
    case AssignOp::mod: return "%=";
    case AssignOp::bit_and: return "&=";
    case AssignOp::bit_or: return "|=";
    case AssignOp::bit_xor: return "^=";
    case AssignOp::shl: return "<<=";
    case AssignOp::shr: return ">>=";
  }
  return "?";
}

const char* copy_op_name(CopyOp op) {
  switch (op) {
    case CopyOp::copy: return "copy";
    case CopyOp::transp: return "transp";
    case CopyOp::pad: return "pad";
    case CopyOp::load: return "load";
    case CopyOp::store: return "store";
    case CopyOp::any: return "any";
  }
  return "?";
}

const char* mma_op_name(MmaOp op) {
  switch (op) {
    case MmaOp::fill: return "fill";
    case MmaOp::load: return "load";
    case MmaOp::multiply: return "multiply";
    case MmaOp::commit: return "commit";
    case MmaOp::store: return "store";
    case MmaOp::scale: return "scale";
  }
  return "?";
}

ViewArguments view_arguments(const Member& m) {
  ViewArguments v;
  bool past_colon = false;
  for (const ExprPtr& a : m.args) {
    const auto* r = std::get_if<Range>(&a->node);
    if (!r) {
      (past_colon ? v.strides : v.extents).push_back(a.get());
      continue;
    }
    if (past_colon || !r->start || !r->end || r->stride) {
      if (!v.malformed) v.malformed = a.get();
      continue;
    }
    past_colon = true;
    v.extents.push_back(r->start.get());
    v.strides.push_back(r->end.get());
  }
  return v;
}

MemberKind member_kind(const std::string& name) {
  static const std::array<std::pair<std::string_view, MemberKind>, 11> kinds = {{
      {"at", MemberKind::at}, {"chunkat", MemberKind::chunkat}, {"subspan", MemberKind::subspan},
      {"modspan", MemberKind::modspan},
      {"step", MemberKind::step}, {"view", MemberKind::view}, {"from", MemberKind::from},
      {"span", MemberKind::span}, {"span_as", MemberKind::span_as}, {"data", MemberKind::data},
      {"zfill", MemberKind::zfill},
  }};
  for (const auto& [n, k] : kinds)
    if (n == name) return k;
  return MemberKind::other;
}

bool is_element_type_name(std::string_view name) {
  static constexpr std::array<std::string_view, 28> names = {
      "u8",  "s8",  "u16",  "s16",  "u32",     "s32",     "u64",     "s64",
      "f16", "bf16", "tf32", "f32", "f64",     "f8_e4m3", "f8_e5m2", "f6_e2m3",
      "f6_e3m2", "f4_e2m1", "u4", "s4", "u1", "f8_ue8m0",
      "f8_ue4m3", "u2", "s2", "u6", "s6", "bin1"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

const Modifier* find_modifier(const std::vector<Modifier>& modifiers, std::string_view name) {
  for (const Modifier& m : modifiers)
    if (m.name == name) return &m;
  return nullptr;
}

const ParallelLevel* level_after_cluster(const Parallel& p, std::size_t level) {
  if (level + 1 < p.levels.size()) return &p.levels[level + 1];
  const Stmt* body = p.body.get();
  if (const auto* b = body ? std::get_if<Block>(&body->node) : nullptr)
    body = b->statements.size() == 1 ? b->statements[0].get() : nullptr;
  if (const auto* inner = body ? std::get_if<Parallel>(&body->node) : nullptr)
    if (!inner->levels.empty()) return &inner->levels.front();
  return nullptr;
}

std::string returned_name(const Function& fn) {
  std::string found;
  auto walk = [&](auto&& self, const Stmt& st) -> void {
    if (const auto* r = std::get_if<Return>(&st.node)) {
      if (r->value)
        if (const auto* n = std::get_if<Name>(&r->value->node)) found = n->name;
    } else if (const auto* b = std::get_if<Block>(&st.node)) {
      for (const auto& c : b->statements) self(self, *c);
    }
  };
  if (fn.body) walk(walk, *fn.body);
  return found;
}

bool is_rank_only(const TypeRef& t) { return t.kind == TypeKind::element && t.rank && t.shape.empty(); }

const TypeRef* returned_tensor_type(const Function& fn) {
  // `f32 mdspan<2>` names a rank only: like `auto`, the returned declaration gives the shape.
  const bool rank_only = is_rank_only(fn.return_type);
  if (fn.return_type.kind == TypeKind::element && fn.return_type.has_shape && !rank_only) return &fn.return_type;
  if ((fn.return_type.kind != TypeKind::auto_ && !rank_only) || !fn.body) return nullptr;
  const std::string name = returned_name(fn);
  if (name.empty()) return nullptr;
  const TypeRef* found = nullptr;
  auto walk = [&](auto&& self, const Stmt& st) -> void {
    if (const auto* d = std::get_if<Declaration>(&st.node)) {
      for (const Declarator& v : d->declarators)
        if (v.name == name) found = v.array_size ? nullptr : &d->type;  // the last declaration wins, as in scoping
    } else if (const auto* b = std::get_if<Block>(&st.node)) {
      for (const auto& c : b->statements) self(self, *c);
    }
  };
  walk(walk, *fn.body);
  if (!found || found->kind != TypeKind::element || !found->has_shape) return nullptr;
  if (found->storage != Storage::none && found->storage != Storage::global) return nullptr;
  return found;
}

int kernel_count(const Function& fn) {
  if (is_host_program(fn)) return static_cast<int>(launches(fn).size());
  int count = 0;
  if (const auto* b = fn.body ? std::get_if<Block>(&fn.body->node) : nullptr)
    for (const auto& st : b->statements) count += std::holds_alternative<Parallel>(st->node);
  return count > 1 ? count : 1;
}

bool is_global_sync(const Stmt& s) {
  const auto* y = std::get_if<Sync>(&s.node);
  return y && y->scope == "global" && y->level == SpaceSpecifier::none && y->storage.empty();
}

bool block_of_one_warpgroup(const Stmt& body) {
  bool found = false, other = false;
  std::function<void(const Stmt&)> walk = [&](const Stmt& st) {
    std::visit([&](const auto& n) {
      using T = std::decay_t<decltype(n)>;
      if constexpr (std::is_same_v<T, Parallel>) {
        const ParallelLevel& lv = n.levels.front();
        const auto* count = lv.count ? std::get_if<IntegerLiteral>(&lv.count->node) : nullptr;
        if (lv.space == SpaceSpecifier::group4 && lv.indices.size() <= 1 && count && count->value == 1) found = true;
        else other = true;
      } else if constexpr (std::is_same_v<T, InThreads>) {
        other = true;
      } else if constexpr (std::is_same_v<T, Block>) {
        for (const auto& c : n.statements) walk(*c);
      } else if constexpr (std::is_same_v<T, Loop> || std::is_same_v<T, While>) {
        if (n.body) walk(*n.body);
      } else if constexpr (std::is_same_v<T, If>) {
        walk(*n.then_branch);
        if (n.else_branch) walk(*n.else_branch);
      }
    }, st.node);
  };
  walk(body);
  return found && !other;
}

}  // namespace croq::frontend::ast
