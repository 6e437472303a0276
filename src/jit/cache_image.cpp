#include "jit/cache_image.hpp"

#include <elf.h>

#include <cctype>
#include <cstdint>
#include <cstring>

namespace croq::jit {
namespace {

template <typename T>
T read_at(std::string_view bytes, std::uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// Whether [offset, offset + size) lies inside `total` bytes (no overflow).
bool inside(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::string ptx_problem(std::string_view text, std::string_view entry) {
  // The driver reads PTX up to its NUL, which must be the last byte.
  if (text.empty() || text.back() != '\0' || text.find('\0') != text.size() - 1)
    return "PTX image is not one NUL-terminated text";
  for (std::size_t at = text.find(".entry"); at != std::string_view::npos; at = text.find(".entry", at + 1)) {
    std::size_t name = at + 6;
    if (name >= text.size() || !std::isspace(static_cast<unsigned char>(text[name]))) continue;
    while (name < text.size() && std::isspace(static_cast<unsigned char>(text[name]))) ++name;
    if (text.compare(name, entry.size(), entry) == 0 && !is_identifier_char(text[name + entry.size()])) return {};
  }
  return "PTX has no `.entry " + std::string(entry) + "`";
}

// Whether the symbol table section `symtab` defines `entry` as a function.
// Empty when it does; else why not (a truncation, or "absent").
std::string find_function(std::string_view elf, const Elf64_Shdr& symtab, const Elf64_Shdr& strtab,
                          std::string_view entry, bool* found) {
  *found = false;
  if (symtab.sh_entsize != sizeof(Elf64_Sym)) return "cubin's symbol table has entries of " +
                                                     std::to_string(symtab.sh_entsize) + " bytes";
  std::string_view names = elf.substr(strtab.sh_offset, strtab.sh_size);
  for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
    const auto sym = read_at<Elf64_Sym>(elf, symtab.sh_offset + off);
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= names.size()) continue;
    std::string_view name = names.substr(sym.st_name);
    name = name.substr(0, name.find('\0'));
    if (name == entry) {
      *found = true;
      return {};
    }
  }
  return {};
}

std::string cubin_problem(std::string_view elf, std::string_view entry) {
  const std::uint64_t size = elf.size();
  if (size == 0) return "cubin is empty";
  if (size < SELFMAG || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0) return "cubin is not an ELF file";
  if (size < sizeof(Elf64_Ehdr))
    return "cubin is truncated (" + std::to_string(size) + " bytes, shorter than an ELF header)";
  const auto header = read_at<Elf64_Ehdr>(elf, 0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    return "cubin is not a 64-bit little-endian ELF file";
  if (header.e_machine != EM_CUDA)
    return "cubin is an ELF file for machine " + std::to_string(header.e_machine) + ", not CUDA (" +
           std::to_string(EM_CUDA) + ")";
  if (header.e_shnum == 0 || header.e_shentsize != sizeof(Elf64_Shdr)) return "cubin has no section headers";
  const std::uint64_t headers_end = std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr);
  const auto truncated = [&](const std::string& what) {
    return "cubin is truncated (" + what + " past its " + std::to_string(size) + " bytes)";
  };
  if (!inside(header.e_shoff, headers_end, size)) return truncated("section headers");
  if (header.e_phnum > 0 && !inside(header.e_phoff, std::uint64_t{header.e_phnum} * header.e_phentsize, size))
    return truncated("program headers");
  const auto section = [&](std::uint64_t i) { return read_at<Elf64_Shdr>(elf, header.e_shoff + i * sizeof(Elf64_Shdr)); };
  for (std::uint64_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    if (s.sh_type != SHT_NOBITS && !inside(s.sh_offset, s.sh_size, size))
      return truncated("section " + std::to_string(i));
  }
  bool has_symbols = false;
  for (std::uint64_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    has_symbols = true;
    if (symtab.sh_link >= header.e_shnum) return "cubin's symbol table names no string table";
    bool found = false;
    if (std::string why = find_function(elf, symtab, section(symtab.sh_link), entry, &found); !why.empty()) return why;
    if (found) return {};
  }
  if (!has_symbols) return "cubin has no symbol table";
  return "cubin has no kernel `" + std::string(entry) + "`";
}

}  // namespace

std::string image_problem(std::string_view image, bool is_ptx, std::string_view entry) {
  return is_ptx ? ptx_problem(image, entry) : cubin_problem(image, entry);
}

}  // namespace croq::jit
