#include "braid/gluon/model_zoo/vision/classifier.h"

#include "braid/base/ascii.h"

namespace braid::gluon::model_zoo::vision {
Classifier::Classifier(const std::string& cls, std::optional<std::string> prefix, const std::string& features_prefix)
    : HybridBlock(to_lower(cls), std::move(prefix)), cls_(cls) {
  auto scope = name_scope();
  features_ = register_child(std::make_shared<nn::HybridSequential>(features_prefix), "features");
}

void Classifier::children_changed() {
  HybridBlock::children_changed();
  for (const auto& [name, child] : children()) {
    if (name == "output") output_ = child;
    if (name == "features") features_block_ = child;
  }
}

std::vector<NDArray> Classifier::forward(const std::vector<NDArray>& inputs) {
  return (*output_)((*features_block_)(inputs));
}

}  // namespace braid::gluon::model_zoo::vision
