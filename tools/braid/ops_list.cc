#include "braid/op/registry.h"
#include "commands.h"

namespace braid::cli {

int ops_list(std::ostream& out) {
  const auto& reg = op::Registry::get();
  for (const auto& name : reg.names()) {
    const auto& def = reg.find(name);
    out << name << (def.differentiable() ? "" : "  (no gradient)") << "\n";
  }
  return 0;
}

}  // namespace braid::cli
