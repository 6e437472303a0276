// Descriptions of sema types and symbols, for the derivation notes of
// diagnostics ("`lhs` is parameter 1: global f16 [M, K], rank 2").
#include "sema/types.hpp"

namespace croq::sema {

namespace {

std::string at(const frontend::ast::SourceLocation& where) {
  return std::to_string(where.line) + ":" + std::to_string(where.column);
}

const char* space_text(Space s) {
  switch (s) {
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
  }
  return "";
}

const char* number_text(Number n) {
  switch (n) {
    case Number::int_: return "int";
    case Number::float_: return "float";
    case Number::bool_: return "bool";
    case Number::unknown: return "number";
  }
  return "number";
}

std::string tile_text(const Type& t) {
  if (!t.buffer) return "tile of rank " + std::to_string(t.rank);
  std::string s = std::string(space_text(t.buffer->space)) + " " + dtype_text(*t.buffer) + " tensor of rank " +
                  std::to_string(t.rank);
  if (t.buffer->is_array && !t.slot_selected)
    s += ", an array of " + (t.buffer->slots ? std::to_string(*t.buffer->slots) + " " : std::string()) + "buffers";
  if (t.pending == Pending::subspan) s += " (a subspan not yet placed with `.at`)";
  if (t.pending == Pending::view) s += " (a view not yet placed with `.from`)";
  return s;
}

}  // namespace

std::string dtype_text(const Buffer& b) { return std::string(dtype_name(b.dtype)); }

std::string kind_phrase(Kind k) {
  switch (k) {
    case Kind::error: return "an invalid value";
    case Kind::scalar: return "a number";
    case Kind::index: return "an index";
    case Kind::tensor: return "a tensor";
    case Kind::shape: return "a shape";
    case Kind::future: return "a future";
    case Kind::event: return "an event";
    case Kind::accumulator: return "an mma accumulator";
    case Kind::operand: return "an mma operand";
    case Kind::tuple: return "a tuple";
    case Kind::mma_future: return "the future of an mma";
  }
  return "a value";
}

std::string describe(const Type& t) {
  switch (t.kind) {
    case Kind::scalar: {
      std::string s = number_text(t.number);
      if (t.known == Known::now) return s + " constant " + std::to_string(t.value);
      if (t.known == Known::at_specialization) return s + " value known when the kernel is specialized";
      return s + " value known only on the device";
    }
    case Kind::index:
      return t.count ? "an index taking " + std::to_string(*t.count) + " values" : std::string("an index");
    case Kind::tensor: return "a " + tile_text(t);
    case Kind::shape: return "a shape of rank " + std::to_string(t.rank);
    case Kind::future:
      return std::string(t.async ? "the future of an asynchronous " : "the future of a synchronous ") +
             (t.engine == frontend::ast::Engine::tma ? "tma" : "dma") + " copy into a " + tile_text(t);
    case Kind::event:
      if (!t.event || !t.event->is_array || t.event_selected) return "an event";
      if (t.event->dimensions > 1 && t.selected == 0) {  // `e[2][3]`: "an array of 2 by 3 events"
        std::string sizes = t.event->count ? std::to_string(*t.event->count) : "N";
        for (const auto& n : t.event->inner_counts) sizes += " by " + (n ? std::to_string(*n) : std::string("N"));
        return "an array of " + sizes + " events";
      }
      if (t.event->dimensions > 1) return "a part of an array of events";
      return "an array of " + (t.event->count ? std::to_string(*t.event->count) + " " : std::string()) + "events";
    case Kind::accumulator:
      return "an mma accumulator" + (t.accumulator ? " (" + std::string(dtype_name(t.accumulator->dtype)) + ")" : "");
    case Kind::operand: return "an mma operand (a " + tile_text(t) + ", swizzle " + std::to_string(t.swizzle) + ")";
    case Kind::tuple: return "a tuple of " + std::to_string(t.elements.size()) + " values";
    default: return kind_phrase(t.kind);
  }
}

std::string describe(const Symbol& s) {
  const std::string name = "`" + s.name + "`";
  switch (s.origin) {
    case Origin::parameter:
      return name + " is parameter " + std::to_string(s.parameter + 1) + ": " + s.detail +
             (s.type.kind == Kind::tensor ? ", a global tensor of rank " + std::to_string(s.type.rank)
                                          : std::string(", a value known only on the device"));
    case Origin::symbolic_dim:
      return name + " is a symbolic dim of parameter " + std::to_string(s.parameter + 1) + " `" + s.detail +
             "`, bound when the kernel is called";
    case Origin::declaration: return name + " is declared at " + at(s.where) + ": " + describe(s.type);
    case Origin::copy_future:
      return name + " is " + describe(s.type) + " (the " + s.detail + " at " + at(s.where) + ")";
    case Origin::mma_result: return name + " is " + describe(s.type) + " (the " + s.detail + " at " + at(s.where) + ")";
    case Origin::parallel_index: return name + " is an index of the " + s.detail + " at " + at(s.where);
    case Origin::loop_index: return name + " is an index of the " + s.detail + " at " + at(s.where);
    case Origin::binding: return name + " is bound at " + at(s.where) + " to " + describe(s.type);
    case Origin::index_tuple: return name + " names the indices " + s.detail + " together (" + at(s.where) + ")";
  }
  return name;
}

}  // namespace croq::sema
