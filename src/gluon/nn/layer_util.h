#pragma once
// Internal: what the convolution, pooling and other layers share — the data layout check and the
// validation of an operator's attributes when the layer is built, so that a bad argument fails
// at construction (as MXNet's layers do) instead of at the first forward.
#include <string>

#include "braid/op/op_def.h"

namespace braid::gluon::detail {

/// The layout of a layer with nd spatial axes: an empty `layout` means the channels-first default
/// ("NCW", "NCHW", "NCDHW"); the channels-last one ("NWC", "NHWC", "NDHWC") is kept where
/// `channels_last_ok`; any other throws naming `layer` and the fix.
std::string resolve_layout(const std::string& layout, int nd, const std::string& layer, bool channels_last_ok);

/// Parses `attrs` with operator `op`'s own checks; an error is re-thrown prefixed with `layer`.
void check_op_attrs(const std::string& layer, const std::string& op, const op::AttrMap& attrs);

/// While a graph is traced, names the operators of a layer's built-in activation as MXNet names
/// its Activation child: "<layer prefix><act_type>_fwd" (dense0_relu_fwd).
class ActivationScope {
 public:
  ActivationScope(const std::string& layer_prefix, const std::string& act_type);
  ~ActivationScope();
  ActivationScope(const ActivationScope&) = delete;
  ActivationScope& operator=(const ActivationScope&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace braid::gluon::detail
