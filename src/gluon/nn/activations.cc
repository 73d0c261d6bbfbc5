#include "braid/gluon/nn/activations.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "gluon/py_repr.h"
#include "layer_util.h"

namespace braid::gluon::nn {
namespace {

// What MXNet 1.x prints for a block without a __repr__ of its own and without children.
std::string bare_repr(const std::string& cls) { return cls + "(\n\n)"; }

}  // namespace

OpActivation::OpActivation(const std::string& hint, std::string op, op::AttrMap attrs, std::string repr,
                           std::optional<std::string> prefix)
    : HybridBlock(hint, std::move(prefix)), op_(std::move(op)), attrs_(std::move(attrs)), repr_(std::move(repr)) {
  detail::check_op_attrs(repr_.substr(0, repr_.find('(')), op_, attrs_);
}

std::vector<NDArray> OpActivation::forward(const std::vector<NDArray>& inputs) {
  return {call_op1(op_, {one_input(inputs)}, attrs_)};
}

Activation::Activation(const std::string& act_type, std::optional<std::string> prefix)
    : OpActivation(act_type, "Activation", {{"act_type", act_type}}, "Activation(" + act_type + ")",
                   std::move(prefix)) {}

LeakyReLU::LeakyReLU(double alpha, std::optional<std::string> prefix)
    : OpActivation("leakyrelu", "LeakyReLU", {{"act_type", "leaky"}, {"slope", op::format_number(alpha)}},
                   "LeakyReLU(" + detail::py_float(alpha) + ")", std::move(prefix)) {
  BRAID_CHECK(alpha >= 0, "LeakyReLU: the slope alpha must be at least 0, got ", alpha);
}

ELU::ELU(double alpha, std::optional<std::string> prefix)
    : OpActivation("elu", "LeakyReLU", {{"act_type", "elu"}, {"slope", op::format_number(alpha)}}, bare_repr("ELU"),
                   std::move(prefix)) {}

SELU::SELU(std::optional<std::string> prefix)
    : OpActivation("selu", "LeakyReLU", {{"act_type", "selu"}}, bare_repr("SELU"), std::move(prefix)) {}

GELU::GELU(std::optional<std::string> prefix)
    : OpActivation("gelu", "LeakyReLU", {{"act_type", "gelu"}}, bare_repr("GELU"), std::move(prefix)) {}

PReLU::PReLU(PReLUOptions opt) : HybridBlock("prelu", opt.prefix) {
  BRAID_CHECK(opt.in_channels >= 1, "PReLU: in_channels must be positive, got ", opt.in_channels);
  alpha_ = register_parameter("alpha", Shape({opt.in_channels}), GradReq::Write, opt.alpha_initializer);
}

std::vector<NDArray> PReLU::forward(const std::vector<NDArray>& inputs) {
  return {call_op1("LeakyReLU", {one_input(inputs), alpha_}, {{"act_type", "prelu"}})};
}

std::string PReLU::describe() const { return bare_repr("PReLU"); }

}  // namespace braid::gluon::nn
