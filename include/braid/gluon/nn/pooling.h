#pragma once
/// Pooling layers (MXNet's nn.MaxPool1D/2D/3D, AvgPool1D/2D/3D, GlobalMaxPool1D/2D/3D,
/// GlobalAvgPool1D/2D/3D) on NCW / NCHW / NCDHW data (or NWC / NHWC / NDHWC), through the Pooling
/// operator. Output width per axis:
/// floor((width + 2 * padding - pool_size) / strides) + 1, or ceil with ceil_mode (MXNet's
/// pooling_convention 'full'). Global pools reduce every spatial axis to 1.
#include <optional>

#include "braid/gluon/block.h"
#include "braid/gluon/nn/dims.h"

namespace braid::gluon::nn {

struct PoolOptions {
  std::optional<Dims> strides = std::nullopt;  // default: pool_size
  Dims padding = 0;
  bool ceil_mode = false;
  std::string layout = "";        // "" is NCW / NCHW / NCDHW; NWC, NHWC and NDHWC put the channels last
  bool count_include_pad = true;  // average pooling only: whether padding counts in the divisor
  std::optional<std::string> prefix = std::nullopt;
};

/// What every pooling layer shares (MXNet's _Pooling).
class PoolingBase : public HybridBlock {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;

 protected:
  PoolingBase(std::string cls, int nd, const Dims& pool_size, const std::string& pool_type, bool global_pool,
              PoolOptions opt);
  std::string describe() const override;

 private:
  std::string cls_, layout_, pool_type_;
  bool global_, ceil_mode_;
  Shape kernel_, strides_, padding_;
  op::AttrMap attrs_;
};

class MaxPool1D : public PoolingBase {
 public:
  explicit MaxPool1D(const Dims& pool_size = 2, PoolOptions opt = {})
      : PoolingBase("MaxPool1D", 1, pool_size, "max", false, std::move(opt)) {}
};

class MaxPool2D : public PoolingBase {
 public:
  explicit MaxPool2D(const Dims& pool_size = {2, 2}, PoolOptions opt = {})
      : PoolingBase("MaxPool2D", 2, pool_size, "max", false, std::move(opt)) {}
};

class MaxPool3D : public PoolingBase {
 public:
  explicit MaxPool3D(const Dims& pool_size = {2, 2, 2}, PoolOptions opt = {})
      : PoolingBase("MaxPool3D", 3, pool_size, "max", false, std::move(opt)) {}
};

class AvgPool1D : public PoolingBase {
 public:
  explicit AvgPool1D(const Dims& pool_size = 2, PoolOptions opt = {})
      : PoolingBase("AvgPool1D", 1, pool_size, "avg", false, std::move(opt)) {}
};

class AvgPool2D : public PoolingBase {
 public:
  explicit AvgPool2D(const Dims& pool_size = {2, 2}, PoolOptions opt = {})
      : PoolingBase("AvgPool2D", 2, pool_size, "avg", false, std::move(opt)) {}
};

class AvgPool3D : public PoolingBase {
 public:
  explicit AvgPool3D(const Dims& pool_size = {2, 2, 2}, PoolOptions opt = {})
      : PoolingBase("AvgPool3D", 3, pool_size, "avg", false, std::move(opt)) {}
};

/// Global pools take only layout and prefix from the options (MXNet: layout and **kwargs).
class GlobalMaxPool1D : public PoolingBase {
 public:
  explicit GlobalMaxPool1D(PoolOptions opt = {}) : PoolingBase("GlobalMaxPool1D", 1, 1, "max", true, std::move(opt)) {}
};

class GlobalMaxPool2D : public PoolingBase {
 public:
  explicit GlobalMaxPool2D(PoolOptions opt = {}) : PoolingBase("GlobalMaxPool2D", 2, 1, "max", true, std::move(opt)) {}
};

class GlobalMaxPool3D : public PoolingBase {
 public:
  explicit GlobalMaxPool3D(PoolOptions opt = {}) : PoolingBase("GlobalMaxPool3D", 3, 1, "max", true, std::move(opt)) {}
};

class GlobalAvgPool1D : public PoolingBase {
 public:
  explicit GlobalAvgPool1D(PoolOptions opt = {}) : PoolingBase("GlobalAvgPool1D", 1, 1, "avg", true, std::move(opt)) {}
};

class GlobalAvgPool2D : public PoolingBase {
 public:
  explicit GlobalAvgPool2D(PoolOptions opt = {}) : PoolingBase("GlobalAvgPool2D", 2, 1, "avg", true, std::move(opt)) {}
};

class GlobalAvgPool3D : public PoolingBase {
 public:
  explicit GlobalAvgPool3D(PoolOptions opt = {}) : PoolingBase("GlobalAvgPool3D", 3, 1, "avg", true, std::move(opt)) {}
};

}  // namespace braid::gluon::nn
