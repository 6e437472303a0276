// The facts sema records for later stages (sema.hpp, CheckedFunction).
#include <string>

#include "croq/error.hpp"
#include "sema/sema.hpp"

namespace croq::sema {

namespace {

[[noreturn]] void unchecked(const char* what, const frontend::ast::SourceLocation& at) {
  throw Error(std::string("internal error: sema recorded no ") + what + " for line " + std::to_string(at.line) +
              ", column " + std::to_string(at.column) + "; please report this with the source");
}

}  // namespace

Mapping CheckedFunction::mapping(const frontend::ast::ParallelLevel& level) const {
  auto it = mappings.find(&level);
  if (it == mappings.end()) unchecked("parallel mapping", level.location);
  return it->second;
}

frontend::ast::SpaceSpecifier CheckedFunction::level_space(const frontend::ast::ParallelLevel& level) const {
  auto it = level_spaces.find(&level);
  if (it == level_spaces.end()) unchecked("parallel level space", level.location);
  return it->second;
}

int CheckedFunction::swizzle_span(const frontend::ast::Modifier& swiz) const {
  auto it = swizzle_spans.find(&swiz);
  if (it == swizzle_spans.end()) unchecked("swizzle span", swiz.location);
  return it->second;
}

const Padding& CheckedFunction::padding(const frontend::ast::Copy& copy) const {
  auto it = paddings.find(&copy);
  if (it == paddings.end()) unchecked("padding", copy.op_location);
  return it->second;
}

const Buffer& CheckedFunction::buffer(const frontend::ast::Declarator& declarator) const {
  auto it = declared_buffers.find(&declarator);
  if (it == declared_buffers.end()) unchecked("buffer", declarator.location);
  return *it->second;
}

const EventArray& CheckedFunction::event(const frontend::ast::Declarator& declarator) const {
  auto it = declared_events.find(&declarator);
  if (it == declared_events.end()) unchecked("event", declarator.location);
  return *it->second;
}

const CopyProtocol& CheckedFunction::protocol(const frontend::ast::Copy& copy) const {
  auto it = copies.find(&copy);
  if (it == copies.end()) unchecked("copy protocol", copy.op_location);
  return it->second;
}

const MmaProtocol& CheckedFunction::protocol(const frontend::ast::Mma& mma, const frontend::ast::SourceLocation& at) const {
  auto it = mmas.find(&mma);
  if (it == mmas.end()) unchecked("mma protocol", at);
  return it->second;
}

const DeviceCall& CheckedFunction::device_call(const void* call, const frontend::ast::SourceLocation& at) const {
  auto it = device_calls.find(call);
  if (it == device_calls.end()) unchecked("__device__ call", at);
  return it->second;
}

const frontend::ast::Trigger* CheckedFunction::completing_trigger(const frontend::ast::Copy& copy) const {
  auto it = completing_triggers.find(&copy);
  return it == completing_triggers.end() ? nullptr : it->second;
}

}  // namespace croq::sema
