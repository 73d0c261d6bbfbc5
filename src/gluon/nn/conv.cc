#include "braid/gluon/nn/conv.h"

#include "braid/base/error.h"
#include "layer_util.h"

namespace braid::gluon::nn {
namespace {

bool all_equal(const Shape& s, int64_t v) {
  for (int i = 0; i < s.ndim(); ++i)
    if (s[i] != v) return false;
  return true;
}

}  // namespace

ConvBase::ConvBase(std::string cls, int nd, bool transposed, int64_t channels, const Dims& kernel_size, ConvOptions opt)
    : HybridBlock("conv", opt.prefix),
      cls_(std::move(cls)),
      op_(transposed ? "Deconvolution" : "Convolution"),
      opt_(std::move(opt)),
      groups_(opt_.groups) {
  BRAID_CHECK(channels >= 1, cls_, ": channels must be positive, got ", channels);
  BRAID_CHECK(groups_ >= 1 && channels % groups_ == 0 && opt_.in_channels % groups_ == 0, cls_, ": groups=", groups_,
              " must be positive and divide both channels=", channels, " and in_channels=", opt_.in_channels);
  kernel_ = kernel_size.expand(nd, cls_, "kernel_size");
  strides_ = opt_.strides.expand(nd, cls_, "strides");
  padding_ = opt_.padding.expand(nd, cls_, "padding");
  dilation_ = opt_.dilation.expand(nd, cls_, "dilation");
  const Shape out_pad = opt_.output_padding.expand(nd, cls_, "output_padding");
  BRAID_CHECK(transposed || all_equal(out_pad, 0), cls_, ": output_padding=", out_pad,
              " applies to transposed convolutions only; use Conv", nd, "DTranspose or drop it");
  attrs_ = {{"kernel", kernel_.str()},
            {"stride", strides_.str()},
            {"dilate", dilation_.str()},
            {"pad", padding_.str()},
            {"num_filter", cat(channels)},
            {"num_group", cat(groups_)},
            {"no_bias", opt_.use_bias ? "False" : "True"},
            {"layout", detail::resolve_layout(opt_.layout, nd, cls_, !transposed && nd > 1)}};
  if (transposed) attrs_["adj"] = out_pad.str();
  detail::check_op_attrs(cls_, op_, attrs_);
  if (!opt_.activation.empty()) detail::check_op_attrs(cls_, "Activation", {{"act_type", opt_.activation}});

  // (out, in / groups, kernel...), or with the channels last (out, kernel..., in / groups).
  std::vector<int64_t> w = transposed ? std::vector<int64_t>{opt_.in_channels, channels / groups_}
                                      : std::vector<int64_t>{channels, opt_.in_channels / groups_};
  const bool channels_last = attrs_["layout"].back() == 'C';
  for (int i = 0; i < nd; ++i) w.insert(channels_last ? w.end() - 1 : w.end(), kernel_[i]);
  weight_ = register_parameter("weight", Shape(w), GradReq::Write, opt_.weight_initializer);
  if (opt_.use_bias) bias_ = register_parameter("bias", Shape({channels}), GradReq::Write, opt_.bias_initializer);
}

std::vector<NDArray> ConvBase::forward(const std::vector<NDArray>& inputs) {
  std::vector<OpArg> args{one_input(inputs), weight_};
  if (bias_) args.emplace_back(bias_);
  NDArray y = call_op1(op_, args, attrs_);
  if (!opt_.activation.empty()) {
    detail::ActivationScope scope(prefix(), opt_.activation);
    y = call_op1("Activation", {y}, {{"act_type", opt_.activation}});
  }
  return {y};
}

std::string ConvBase::describe() const {
  // MXNet prints weight.shape[1] -> weight.shape[0]: for transposed layers that reads
  // "channels / groups -> in_channels", and output_padding is never shown (MXNet 1.x looks for
  // an attribute its layers do not set). Both are kept for identical output.
  const Shape& w = weight_->shape();
  std::string s =
      cat(cls_, "(", w[1] ? cat(w[1]) : "None", " -> ", w[0], ", kernel_size=", kernel_, ", stride=", strides_);
  if (!all_equal(padding_, 0)) s += cat(", padding=", padding_);
  if (!all_equal(dilation_, 1)) s += cat(", dilation=", dilation_);
  if (groups_ != 1) s += cat(", groups=", groups_);
  if (!bias_) s += ", bias=False";
  if (!opt_.activation.empty()) s += cat(", Activation(", opt_.activation, ")");
  return s + ")";
}

}  // namespace braid::gluon::nn
