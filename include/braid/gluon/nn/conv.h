#pragma once
/// Convolution layers (MXNet's nn.Conv1D/2D/3D, Conv1DTranspose/2DTranspose/3DTranspose) on NCW /
/// NCHW / NCDHW data, or NHWC / NDHWC for Conv2D / Conv3D: y = activation(conv(x, weight) + bias).
/// Parameters `weight` and `bias` (channels,): weight (channels, in_channels / groups, *kernel) for
/// a convolution ((channels, *kernel, in_channels / groups) with the channels last), (in_channels,
/// channels / groups, *kernel) for a transposed one (MXNet's Deconvolution). in_channels = 0 is
/// inferred from the data at the first forward.
#include "braid/gluon/block.h"
#include "braid/gluon/nn/dims.h"

namespace braid::gluon::nn {

struct ConvOptions {
  Dims strides = 1;
  Dims padding = 0;
  Dims output_padding = 0;  // transposed layers only: extra output rows/columns (Deconvolution's adj)
  Dims dilation = 1;
  int64_t groups = 1;
  std::string layout = "";      // "" is NCW / NCHW / NCDHW; NHWC and NDHWC for Conv2D and Conv3D
  std::string activation = "";  // "" (linear) or an Activation act_type
  bool use_bias = true;
  init::InitializerPtr weight_initializer = nullptr;
  init::InitializerPtr bias_initializer = std::make_shared<init::Zero>();
  int64_t in_channels = 0;
  std::optional<std::string> prefix = std::nullopt;
};

/// What every convolution layer shares (MXNet's _Conv); the classes below fix the class name,
/// the number of spatial axes and the operator.
class ConvBase : public HybridBlock {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const ParameterPtr& weight() const { return weight_; }
  const ParameterPtr& bias() const { return bias_; }

 protected:
  ConvBase(std::string cls, int nd, bool transposed, int64_t channels, const Dims& kernel_size, ConvOptions opt);
  std::string describe() const override;

 private:
  std::string cls_, op_;
  ConvOptions opt_;
  op::AttrMap attrs_;
  Shape kernel_, strides_, padding_, dilation_;
  int64_t groups_;
  ParameterPtr weight_, bias_;
};

class Conv1D : public ConvBase {
 public:
  Conv1D(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv1D", 1, false, channels, kernel_size, std::move(opt)) {}
};

class Conv2D : public ConvBase {
 public:
  Conv2D(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv2D", 2, false, channels, kernel_size, std::move(opt)) {}
};

class Conv3D : public ConvBase {
 public:
  Conv3D(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv3D", 3, false, channels, kernel_size, std::move(opt)) {}
};

class Conv1DTranspose : public ConvBase {
 public:
  Conv1DTranspose(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv1DTranspose", 1, true, channels, kernel_size, std::move(opt)) {}
};

class Conv2DTranspose : public ConvBase {
 public:
  Conv2DTranspose(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv2DTranspose", 2, true, channels, kernel_size, std::move(opt)) {}
};

class Conv3DTranspose : public ConvBase {
 public:
  Conv3DTranspose(int64_t channels, const Dims& kernel_size, ConvOptions opt = {})
      : ConvBase("Conv3DTranspose", 3, true, channels, kernel_size, std::move(opt)) {}
};

}  // namespace braid::gluon::nn
