#pragma once
/// Whole-file reads and atomic writes.
#include <string>
#include <string_view>

namespace braid::io {

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames it over `path`: the
/// file holds either its old contents or all of the new ones, even after a crash or a full disk.
/// Throws braid::Error naming the path and the reason.
void write_file_atomically(const std::string& path, std::string_view bytes);
/// The contents of `path`; throws braid::Error naming it when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace braid::io
