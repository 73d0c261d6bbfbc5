#include "layer_util.h"

#include "braid/base/error.h"
#include "braid/op/registry.h"
#include "gluon/graph_tracer.h"

namespace braid::gluon::detail {

std::string resolve_layout(const std::string& layout, int nd, const std::string& layer, bool channels_last_ok) {
  BRAID_CHECK(nd >= 1 && nd <= 3, layer, ": ", nd, " spatial axes; layers have 1, 2 or 3");
  const std::string space = std::string("DHW").substr(static_cast<size_t>(3 - nd));
  const std::string plain = "NC" + space, last = "N" + space + "C";
  if (layout.empty() || layout == plain) return plain;
  BRAID_CHECK(channels_last_ok && layout == last, layer, ": layout '", layout, "' is not supported; use '", plain, "'",
              channels_last_ok ? cat(" or '", last, "'") : std::string(), " (transpose the data to match)");
  return layout;
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
