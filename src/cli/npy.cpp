#include "cli/npy.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "cli/file_io.hpp"
#include "croq/error.hpp"
#include "support/checked_int.hpp"

namespace croq::cli {
namespace {

struct DescrEntry {
  const char* descr;
  DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"|i1", DType::s8},  {"|u1", DType::u8},  {"<i2", DType::s16}, {"<u2", DType::u16},
    {"<i4", DType::s32}, {"<u4", DType::u32}, {"<i8", DType::s64}, {"<u8", DType::u64},
    {"<f2", DType::f16}, {"<f4", DType::f32}, {"<f8", DType::f64},
};

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw Error(path + ": not a readable .npy file: " + why);
}

// The value text of `key` in the header dict ('descr': '<f4', ...).
std::string header_value(const std::string& header, const std::string& key, const std::string& path) {
  std::size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) bad(path, "header has no '" + key + "'");
  std::size_t colon = header.find(':', k);
  std::size_t start = header.find_first_not_of(' ', colon + 1);
  if (colon == std::string::npos || start == std::string::npos) bad(path, "malformed header");
  char open = header[start];
  std::size_t end;
  if (open == '\'') end = header.find('\'', start + 1) + 1;
  else if (open == '(') end = header.find(')', start) + 1;
  else end = header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0) bad(path, "malformed header");
  return header.substr(start, end - start);
}

}  // namespace

std::string npy_descr(DType dtype) {
  for (const auto& e : kDescrs)
    if (e.dtype == dtype) return e.descr;
  throw Error("NumPy has no dtype for " + std::string(dtype_name(dtype)));
}

Tensor read_npy(const std::string& path) {
  if (std::string problem = input_file_problem(path); !problem.empty()) throw Error(problem);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) bad(path, "missing \\x93NUMPY magic");
  int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) bad(path, "truncated header");
    header_len = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) bad(path, "truncated header");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  } else {
    bad(path, "unsupported format version " + std::to_string(major));
  }
  if (header_len > (1u << 20)) bad(path, "header too large");
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) bad(path, "truncated header");

  std::string descr = header_value(header, "descr", path);
  descr = descr.substr(1, descr.size() - 2);
  if (descr.size() == 3 && descr[0] == '=') descr[0] = '<';
  if (descr == "<i1" || descr == "<u1") descr[0] = '|';
  const DescrEntry* entry = nullptr;
  for (const auto& e : kDescrs)
    if (descr == e.descr) entry = &e;
  if (!entry) bad(path, "unsupported dtype '" + descr + "' (little-endian integers and floats only)");
  if (header_value(header, "fortran_order", path) != "False") bad(path, "Fortran-order arrays are not supported");
  std::string shape_text = header_value(header, "shape", path);
  Shape shape;
  std::size_t i = 1;
  while (i < shape_text.size()) {
    std::size_t j = shape_text.find_first_of(",)", i);
    std::string part = shape_text.substr(i, j - i);
    part.erase(0, part.find_first_not_of(' '));
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) {
      if (part.find_first_not_of("0123456789") != std::string::npos || part.size() > 18)
        bad(path, "malformed shape " + shape_text);
      shape.push_back(std::stoull(part));
    }
    if (j == std::string::npos) break;
    i = j + 1;
  }
  // The data must be there before it is allocated: a header may claim any shape.
  std::vector<std::int64_t> extents(shape.begin(), shape.end());
  std::optional<std::int64_t> elements = support::checked_product(extents);
  support::CheckedInt bytes{0, support::ArithmeticFault::overflow};
  if (elements) bytes = support::checked_mul(*elements, static_cast<std::int64_t>(dtype_size(entry->dtype)));
  if (!bytes.ok()) bad(path, "shape " + shape_text + " has more bytes than fit in 64 bits");
  std::error_code ec;
  std::uintmax_t file_bytes = std::filesystem::file_size(path, ec);
  std::streamoff offset = in.tellg();
  if (!ec && offset >= 0 && static_cast<std::uintmax_t>(bytes.value) > file_bytes - static_cast<std::uintmax_t>(offset))
    bad(path, "data ends before " + std::to_string(bytes.value) + " bytes of " + std::string(dtype_name(entry->dtype)) +
                  " " + shape.str());
  Tensor t = Tensor::empty(entry->dtype, shape, MemoryKind::host);
  if (!in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(t.bytes())))
    bad(path, "data ends before " + std::to_string(t.bytes()) + " bytes of " + std::string(dtype_name(entry->dtype)) +
                  " " + shape.str());
  return t;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  Tensor host = tensor.to_host();
  std::ostringstream dict;
  dict << "{'descr': '" << npy_descr(host.dtype()) << "', 'fortran_order': False, 'shape': (";
  for (int d = 0; d < host.shape().rank(); ++d) dict << host.shape()[d] << (host.shape().rank() == 1 || d + 1 < host.shape().rank() ? "," : "");
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so the data starts on a 64-byte boundary; end with \n.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  std::string problem = write_file(path, {std::string_view("\x93NUMPY\x01\x00", 8), std::string_view(len, 2), header,
                                          std::string_view(static_cast<const char*>(host.data()), host.bytes())});
  if (!problem.empty()) throw Error(problem);
}

}  // namespace croq::cli
