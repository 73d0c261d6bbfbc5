#include "layer_util.h"

#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "gluon/graph_tracer.h"

namespace braid::gluon::detail {

std::string resolve_layout(const std::string& layout, int nd, const std::string& layer) {
  const std::string plain = nd == 1 ? "NCW" : "NCHW";
  BRAID_CHECK(layout.empty() || layout == plain, layer, ": layout '", layout, "' is not supported; Braid computes ", nd,
              "-D layers in ", plain, " only (transpose the data to ", plain, " and use layout='", plain, "')");
  return plain;
}

void check_op_attrs(const std::string& layer, const std::string& op, const op::AttrMap& attrs) {
  try {
    op::Registry::get().find(op).parse(attrs);
  } catch (const Error& e) {
    throw Error(cat(layer, ": ", e.what()));
  }
}

ActivationScope::ActivationScope(const std::string& layer_prefix, const std::string& act_type) {
  if (auto* t = GraphTracer::current()) {
    t->push_scope(layer_prefix + act_type + "_");
    pushed_ = true;
  }
}

ActivationScope::~ActivationScope() {
  if (pushed_) GraphTracer::current()->pop_scope();
}

}  // namespace braid::gluon::detail
