#include "braid/io/file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "braid/base/error.h"
#include "byte_stream.h"

namespace braid::io {

void write_file_atomically(const std::string& path, std::string_view bytes) {
  detail::write_file_atomically(path, [&](detail::ByteSink& out) { out.write(bytes.data(), bytes.size()); });
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BRAID_CHECK(in, path, ": cannot open for reading: ", std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  BRAID_CHECK(!in.bad(), path, ": read error");
  return ss.str();
}

}  // namespace braid::io
