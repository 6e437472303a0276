// Reading the croq command's input files and writing its output files, with
// every failure turned into a message: a directory, a file over the source
// limit (/dev/zero), a full disk (/dev/full), a failed close.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace croq::cli {

// Reads a source file, or standard input for "-", of at most
// frontend::limits::kMaxSourceBytes. Returns "" or why it cannot be read.
std::string read_source(const std::string& path, std::string& text);

// Why `path` cannot be opened as an input file ("" when it can): missing,
// a directory, unreadable.
std::string input_file_problem(const std::string& path);

// Writes the pieces to `path` (created or truncated), checking every write
// and the close. Returns "" or why it failed; a regular file left partly
// written is removed.
// Why writing `output` would destroy `input` (the same file, through any
// path or link); "" when it would not (or either is missing or `-`).
std::string output_overwrites_input(const std::string& output, const std::string& input);

std::string write_file(const std::string& path, std::initializer_list<std::string_view> pieces);

// Flushes standard output; "" or why the output was lost (a full disk, a closed pipe).
std::string flush_stdout();

// `text` to standard output, or to the file `output` when it is not empty;
// the exit status: 0, else 1 with "<command>: <why>" on standard error.
int write_output(const std::string& text, const std::string& output, std::string_view command);

}  // namespace croq::cli
