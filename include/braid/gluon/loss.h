#pragma once
/// Losses (MXNet's mxnet.gluon.loss). A loss is a HybridBlock called as loss(pred, label) or
/// loss(pred, label, sample_weight); it returns one value per sample, shape (batch,): the
/// elementwise loss, times sample_weight (broadcast) and the scalar `weight`, averaged over every
/// axis but `batch_axis`. Built from registered operators only, so autograd differentiates it.
/// Where MXNet reshapes the label to pred's shape (L1, L2, Huber, sigmoid BCE, dense softmax CE),
/// so does Braid: the label needs pred's number of elements, not its shape.
#include <optional>

#include "braid/gluon/block.h"

namespace braid::gluon::loss {

class Loss : public HybridBlock {
 public:
  /// inputs: pred, label, then sample_weight (a None array: none) and the loss's extra inputs.
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  NDArray operator()(const NDArray& pred, const NDArray& label, const NDArray& sample_weight = NDArray());
  using Block::operator();
  std::optional<double> weight() const { return weight_; }
  int batch_axis() const { return batch_axis_; }

 protected:
  /// `cls` is the class name for repr and errors; the block is named after it in lower case.
  Loss(const std::string& cls, std::optional<double> weight, int batch_axis, std::optional<std::string> prefix);
  /// The loss before weighting and averaging, elementwise or reduced with kept dimensions so that
  /// sample_weight broadcasts against it; `extra` holds the inputs after sample_weight.
  virtual NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const = 0;
  /// How many inputs may follow sample_weight.
  virtual size_t max_extra_inputs() const { return 0; }
  /// The scalar factor applied with the sample weights (L2Loss uses weight / 2).
  virtual std::optional<double> scalar_weight() const { return weight_; }
  /// `label` in pred's shape (MXNet's _reshape_like); throws when the sizes differ.
  NDArray label_like(const NDArray& label, const NDArray& pred) const;
  std::string describe() const override;
  const std::string& cls() const { return cls_; }

 private:
  std::string cls_;
  std::optional<double> weight_;
  int batch_axis_;
};

struct LossOptions {
  std::optional<double> weight = std::nullopt;  // global scalar weight; none means 1
  int batch_axis = 0;
  std::optional<std::string> prefix = std::nullopt;
};

/// 0.5 * (pred - label)^2. MXNet's default weight is 1 here (repr "w=1.0").
class L2Loss : public Loss {
 public:
  explicit L2Loss(LossOptions opt = {.weight = 1.0});

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;
  std::optional<double> scalar_weight() const override { return weight().value_or(1.0) / 2; }
};

/// |pred - label|.
class L1Loss : public Loss {
 public:
  explicit L1Loss(LossOptions opt = {});

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;
};

/// |pred - label| - rho / 2 where it exceeds rho, else (pred - label)^2 / (2 rho).
class HuberLoss : public Loss {
 public:
  explicit HuberLoss(double rho = 1, LossOptions opt = {});

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;

 private:
  double rho_;
};

/// -sum(label * log_softmax(pred)) along axis. With sparse_label, label holds class indices
/// (pred's shape without axis, or with it as 1) and the loss is -log_softmax(pred)[label]; with
/// from_logits, pred already holds log-probabilities.
class SoftmaxCrossEntropyLoss : public Loss {
 public:
  explicit SoftmaxCrossEntropyLoss(int axis = -1, bool sparse_label = true, bool from_logits = false,
                                   LossOptions opt = {});

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;

 private:
  int axis_;
  bool sparse_label_, from_logits_;
};
using SoftmaxCELoss = SoftmaxCrossEntropyLoss;

/// Binary cross entropy of sigmoid(pred) (the stable form max(x, 0) - x z + log(1 + exp(-|x|)))
/// or, with from_sigmoid, of pred itself. A fourth input pos_weight (broadcast against pred)
/// weights the positive term: loss(pred, label, sample_weight, pos_weight).
class SigmoidBinaryCrossEntropyLoss : public Loss {
 public:
  explicit SigmoidBinaryCrossEntropyLoss(bool from_sigmoid = false, LossOptions opt = {});
  using Loss::operator();
  NDArray operator()(const NDArray& pred, const NDArray& label, const NDArray& sample_weight,
                     const NDArray& pos_weight);

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;
  size_t max_extra_inputs() const override { return 1; }

 private:
  bool from_sigmoid_;
};
using SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss;

/// label * (log(label + 1e-12) - pred), pred log-probabilities (from_logits) or logits turned
/// into them by log_softmax along axis.
class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(bool from_logits = true, int axis = -1, LossOptions opt = {});

 protected:
  NDArray compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>& extra) const override;

 private:
  bool from_logits_;
  int axis_;
};

}  // namespace braid::gluon::loss
