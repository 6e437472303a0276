// What a cubin itself records about a kernel, for tests that check the
// figures Kernel::info takes from ptxas's report against the image the
// driver loads: the .nv.info section's EIATTR_REGCOUNT and EIATTR_FRAME_SIZE
// records (the register count the driver reads) and the size of the
// kernel's .nv.shared section.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace croq::test {

struct CubinAttributes {
  std::optional<int> registers;                  // EIATTR_REGCOUNT
  std::optional<std::uint64_t> frame_bytes;      // EIATTR_FRAME_SIZE
  std::optional<std::uint64_t> shared_section_bytes;  // .nv.shared.<entry>
};

inline CubinAttributes cubin_attributes(const std::vector<char>& cubin, const std::string& entry) {
  CubinAttributes out;
  const std::string_view elf(cubin.data(), cubin.size());
  auto read = [&](std::uint64_t offset, auto& value) {
    if (offset + sizeof value > elf.size()) return false;
    std::memcpy(&value, elf.data() + offset, sizeof value);
    return true;
  };
  Elf64_Ehdr header;
  if (!read(0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) return out;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (!read(header.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) return out;
  auto name_in = [&](const Elf64_Shdr& table, std::uint32_t at) {
    if (at >= table.sh_size) return std::string_view();
    std::string_view s = elf.substr(table.sh_offset + at);
    return s.substr(0, s.find('\0'));
  };
  const Elf64_Shdr& names = sections.at(header.e_shstrndx);
  // Symbol names by index, for the .nv.info records that name them.
  std::vector<std::string_view> symbols;
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_SYMTAB) continue;
    for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      read(s.sh_offset + off, sym);
      symbols.push_back(name_in(sections.at(s.sh_link), sym.st_name));
    }
  }
  for (const Elf64_Shdr& s : sections) {
    const std::string_view name = name_in(names, s.sh_name);
    if (name == ".nv.shared." + entry) out.shared_section_bytes = s.sh_size;
    if (name != ".nv.info") continue;
    // Records: a format byte, an attribute byte, then for EIFMT_SVAL (4) a
    // 16-bit size and that many bytes, else a 16-bit value.
    for (std::uint64_t at = s.sh_offset; at + 4 <= s.sh_offset + s.sh_size;) {
      std::uint8_t format = 0, attribute = 0;
      std::uint16_t size = 0;
      read(at, format);
      read(at + 1, attribute);
      read(at + 2, size);
      if (format != 4) {
        at += 4;
        continue;
      }
      std::uint32_t symbol = 0, value = 0;
      if (size == 8 && read(at + 4, symbol) && read(at + 8, value) && symbol < symbols.size() &&
          symbols[symbol] == entry) {
        if (attribute == 0x2f) out.registers = static_cast<int>(value);  // EIATTR_REGCOUNT
        if (attribute == 0x11) out.frame_bytes = value;                  // EIATTR_FRAME_SIZE
      }
      at += 4 + size;
    }
  }
  return out;
}

}  // namespace croq::test
