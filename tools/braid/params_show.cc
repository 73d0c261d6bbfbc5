#include "braid/io/params.h"
#include "commands.h"

namespace braid::cli {

int params_show(const std::string& path, std::ostream& out) {
  io::NamedArrays contents = io::load(path);
  for (size_t i = 0; i < contents.arrays.size(); ++i) {
    const NDArray& a = contents.arrays[i];
    out << (contents.names.empty() ? std::to_string(i) : contents.names[i]) << " ";
    if (a.is_none())
      out << "None\n";
    else
      out << dtype_name(a.dtype()) << " " << a.shape() << "\n";
  }
  return 0;
}

}  // namespace braid::cli
