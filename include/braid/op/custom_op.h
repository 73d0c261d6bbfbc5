#pragma once
/// Operators written by users in a frontend language (MXNet's `mx.operator.CustomOp` and
/// `CustomOpProp` in Python), run by the registered operator "Custom": its attribute `op_type`
/// names the frontend's registration, every other attribute goes to it as a string. The
/// frontend computes with NDArrays on the thread that runs the node (HostFunctions), so a
/// custom node works imperatively, under autograd, in bound symbols and hybridized blocks.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"
#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::op {

/// One custom node: what it takes and gives, and its computation. Each call may throw
/// braid::Error (the frontend's exceptions, reported with the op_type).
class CustomOperator {
 public:
  virtual ~CustomOperator() = default;
  virtual std::vector<std::string> list_arguments() = 0;
  virtual std::vector<std::string> list_outputs() = 0;
  virtual std::vector<std::string> list_auxiliary_states() = 0;
  /// Fills in the shapes it can; unknown shapes are Shape() (MXNet passes them as ()).
  virtual void infer_shape(std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux) = 0;
  /// Fills in the dtypes it can; unknown ones are kDTypeUnknown.
  virtual void infer_type(std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) = 0;
  /// Writes `out` (req write) from `in` and `aux`, pushing its work on the engine.
  virtual void forward(bool training, const std::vector<NDArray>& in, const std::vector<NDArray>& out,
                       const std::vector<NDArray>& aux) = 0;
  /// Stores the input gradients as `req` says (arrays whose req is Null are scratch).
  virtual void backward(const std::vector<OpReq>& req, const std::vector<NDArray>& out_grads,
                        const std::vector<NDArray>& in, const std::vector<NDArray>& out,
                        const std::vector<NDArray>& in_grads, const std::vector<NDArray>& aux) = 0;
};

/// Makes the node of the frontend's operator `op_type` with `attrs` (op_type and annotations
/// removed); throws braid::Error when no such operator is registered.
using CustomOperatorMaker =
    std::function<std::shared_ptr<CustomOperator>(const std::string& op_type, const AttrMap& attrs)>;

/// Installed by the frontend (Braid's Python module does at import); Custom nodes fail with a
/// clear error until one is.
void set_custom_operator_maker(CustomOperatorMaker maker);

}  // namespace braid::op
