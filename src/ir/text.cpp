// The vocabulary of the IR's text form (see text.hpp).
#include "ir/text.hpp"

#include <cstdio>

#include "ir/builder.hpp"

namespace croq::ir::text {

namespace {

// Looks `name` up among the names `name_of` gives the values 0..count-1 of E.
template <typename E, typename NameOf>
std::optional<E> by_name(std::string_view name, int count, NameOf name_of) {
  for (int i = 0; i < count; ++i)
    if (name == name_of(static_cast<E>(i))) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

const char* space_name(Space s) {
  switch (s) {
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
  }
  return "?";
}

std::optional<Space> parse_space(std::string_view name) { return by_name<Space>(name, 3, space_name); }

const char* mapping_name(Mapping m) {
  switch (m) {
    case Mapping::cluster: return "cluster";
    case Mapping::grid: return "grid";
    case Mapping::threads: return "threads";
    case Mapping::flat: return "flat";
  }
  return "?";
}

std::optional<Mapping> parse_mapping(std::string_view name) { return by_name<Mapping>(name, 4, mapping_name); }

const char* instruction_name(MmaInstruction i) {
  switch (i) {
    case MmaInstruction::unselected: return "mma";
    case MmaInstruction::wgmma: return "wgmma";
    case MmaInstruction::mma_sync: return "mma.sync";
    case MmaInstruction::mma_sync_gather: return "mma.sync.gather";
  }
  return "?";
}

std::optional<MmaInstruction> parse_instruction(std::string_view name) {
  return by_name<MmaInstruction>(name, 4, instruction_name);
}

const char* param_kind_name(abi::KernelParam::Kind k) {
  using Kind = abi::KernelParam::Kind;
  switch (k) {
    case Kind::tensor: return "tensor";
    case Kind::output: return "output";
    case Kind::integer: return "integer";
    case Kind::floating: return "floating";
    case Kind::dim: return "dim";
    case Kind::tensor_map: return "tensor_map";
    case Kind::scratch: return "scratch";
  }
  return "?";
}

std::optional<abi::KernelParam::Kind> parse_param_kind(std::string_view name) {
  return by_name<abi::KernelParam::Kind>(name, 7, param_kind_name);
}

std::string type_name(const Type& t, bool exact) {
  switch (t.kind) {
    case Type::Kind::i32: return "i32";
    case Type::Kind::i64: return "i64";
    case Type::Kind::u32: return "u32";
    case Type::Kind::f32: return "f32";
    case Type::Kind::f64: return "f64";
    case Type::Kind::boolean: return "bool";
    case Type::Kind::index: return "index";
    case Type::Kind::element: {
      const std::string name(dtype_name(t.dtype));
      const bool scalar_name = name == "u32" || name == "f32" || name == "f64";
      return exact && scalar_name ? "element." + name : name;
    }
  }
  return "?";
}

std::optional<Type> parse_type(std::string_view name) {
  if (name == "i32") return Type::i32();
  if (name == "i64") return Type::i64();
  if (name == "u32") return Type{Type::Kind::u32, DType::u32};
  if (name == "f32") return Type::f32();
  if (name == "f64") return Type{Type::Kind::f64, DType::f64};
  if (name == "bool") return Type::boolean();
  if (name == "index") return Type::index();
  if (name.substr(0, 8) == "element.") name.remove_prefix(8);
  DType d{};
  if (parse_dtype(name, d)) return Type::element(d);
  return std::nullopt;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string position(const SourcePos& p) {
  return std::to_string(p.line) + ":" + std::to_string(p.column) + (p.length != 1 ? "+" + std::to_string(p.length) : "");
}

Type natural_type(const Expr& e, const Kernel& kernel, const VarTypes& vars) {
  const auto operand = [&](std::size_t i) { return e.operands.size() > i && e.operands[i] ? e.operands[i]->type : Type{}; };
  switch (e.kind) {
    case ExprKind::int_const: return Type::i32();
    case ExprKind::float_literal: return Type::f32();
    case ExprKind::var: {
      auto it = vars.find(e.text);
      return it == vars.end() || it->second.kind == Type::Kind::index ? Type::i32() : it->second;
    }
    case ExprKind::special: return Type{Type::Kind::u32, DType::u32};
    case ExprKind::unary: return e.op == "!" ? Type::boolean() : operand(0);
    case ExprKind::binary: return binary_type(e.op, operand(0), operand(1));
    case ExprKind::select: return common_type(operand(1), operand(2));
    case ExprKind::element:
      if (e.buffer >= 0 && e.buffer < static_cast<int>(kernel.buffers.size()))
        return Type::element(kernel.buffers[static_cast<std::size_t>(e.buffer)].dtype);
      return e.type;
    case ExprKind::address_of: case ExprKind::zero_like: return operand(0);
    case ExprKind::typed_zero: return Type::element(e.type.dtype);
    case ExprKind::convert: case ExprKind::math: case ExprKind::atomic: return e.type;
    case ExprKind::by_index_width: return operand(0);
    case ExprKind::device_call: return e.type;
  }
  return e.type;
}

}  // namespace croq::ir::text
