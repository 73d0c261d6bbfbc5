#include "scatter_ops.h"

#include <map>
#include <string>

namespace braid::op::detail {
namespace {

const std::map<std::string, std::string>& counterparts() {
  static const auto* table = new std::map<std::string, std::string>{
      {"_scatter_elemwise_div", "elemwise_div"},
      {"_scatter_plus_scalar", "_plus_scalar"},
      {"_scatter_minus_scalar", "_minus_scalar"},
  };
  return *table;
}

}  // namespace

void register_scatter_ops(Registry& r) {
  for (const auto& [name, plain] : counterparts()) {
    OpDef d = r.find(plain);
    d.name = name;
    d.doc = "MXNet's " + name + ": " + plain + ", computed on the stored values only for a compressed first input.";
    r.add(std::move(d));
  }
}

}  // namespace braid::op::detail
