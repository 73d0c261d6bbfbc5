// Model::known_shapes: partial shape inference over the symbol with the parameters' shapes, for
// a model served without a config that states its inputs.
#include <algorithm>
#include <optional>

#include "braid/base/error.h"
#include "braid/serving/model.h"

namespace braid::serving {
namespace {

// Braid's inference marks an unknown size as 0; the serving protocol as -1.
Shape to_inference(const std::vector<int64_t>& dims) {
  std::vector<int64_t> d = dims;
  for (auto& x : d) x = x < 0 ? 0 : x;
  return Shape(d);
}

std::vector<int64_t> to_protocol(const Shape& s) {
  if (!s.known()) return {};
  std::vector<int64_t> d = s.dims();
  for (auto& x : d) x = x == 0 ? -1 : x;
  if (!d.empty()) d[0] = -1;  // the batch axis is the client's choice
  return d;
}

}  // namespace

Model::Shapes Model::known_shapes(const std::map<std::string, std::vector<int64_t>>& given) const {
  std::map<std::string, Shape> known;
  for (const auto& [name, a] : params_) known[name] = a.shape();
  for (const auto& [name, dims] : given)
    if (!dims.empty()) known[name] = to_inference(dims);
  // Inference that throws (a rank the graph rejects) or leaves an input's rank unknown is no answer.
  auto infer = [&](const std::map<std::string, Shape>& shapes) -> std::optional<InferResult<Shape>> {
    try {
      return symbol_.infer_shape_partial(shapes);
    } catch (const Error&) {
      return std::nullopt;
    }
  };
  const auto args = symbol_.list_arguments();
  auto shape_of = [&](const InferResult<Shape>& r, const std::string& name) {
    return r.arg[static_cast<size_t>(std::find(args.begin(), args.end(), name) - args.begin())];
  };
  for (const auto& name : inputs_) {
    if (known.count(name)) continue;
    for (int rank = 2; rank <= 5; ++rank) {
      auto trial = known;
      trial[name] = Shape(std::vector<int64_t>(static_cast<size_t>(rank), 0));
      if (auto r = infer(trial)) {
        known[name] = shape_of(*r, name);
        break;
      }
    }
  }
  Shapes out;
  const auto result = infer(known);
  for (const auto& name : inputs_)
    out.inputs[name] = result ? to_protocol(shape_of(*result, name)) : std::vector<int64_t>{};
  for (size_t i = 0; i < symbol_.num_outputs(); ++i)
    out.outputs.push_back(result ? to_protocol(result->out[i]) : std::vector<int64_t>{});
  return out;
}

}  // namespace braid::serving
