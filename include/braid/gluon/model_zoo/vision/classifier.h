#pragma once
/// What every model of the vision zoo is: `features` (a HybridSequential from the image to a
/// feature vector), then `output` (the classifier), as MXNet's zoo models are built, so that their
/// parameters get MXNet's names (resnetv10_stage1_conv0_weight; structural features.5.0.body.0.weight).
#include "braid/gluon/nn/sequential.h"

namespace braid::gluon::model_zoo::vision {

class Classifier : public HybridBlock {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override;
  const std::shared_ptr<nn::HybridSequential>& features() const { return features_; }
  const BlockPtr& output() const { return output_; }

 protected:
  /// `cls`: MXNet's class name (AlexNet); its lowercase spelling is the automatic prefix (alexnet0_).
  /// Registers an empty `features` container (prefixed `features_prefix` inside this block); the
  /// subclass's constructor fills it inside its own name_scope(), then calls set_output.
  Classifier(const std::string& cls, std::optional<std::string> prefix, const std::string& features_prefix = "");
  std::string describe() const override { return cls_; }
  bool names_first_op_fwd() const override { return false; }
  void set_output(BlockPtr output) { output_ = register_child(std::move(output), "output"); }
  /// Assigning `features` or `output` again (net.output = nn.Dense(10), MXNet's fine-tuning)
  /// replaces the block the forward runs.
  void children_changed() override;

  std::string cls_;
  std::shared_ptr<nn::HybridSequential> features_;  // as built; the subclasses fill it
  BlockPtr features_block_;                         // what the forward runs: features_ or its replacement
  BlockPtr output_;
};

}  // namespace braid::gluon::model_zoo::vision
