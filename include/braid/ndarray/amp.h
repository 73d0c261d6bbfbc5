#pragma once
/// Automatic mixed precision (MXNet's mx.contrib.amp.init): once turned on, every operator run
/// through nd::invoke gets its floating inputs cast first by its category, as MXNet's AMP casts:
///   - low-precision ops (Convolution, FullyConnected, ...) run in the target dtype (float16 or
///     bfloat16), so that their products use the GPU's tensor cores;
///   - float32 ops (softmax, exp, sum, norms, losses, ...) run in float32, where 16 bits lose too
///     much; conditional ones only for some attribute values (Activation softrelu);
///   - widest-type ops (elemwise_add, broadcast_mul, concat, dot, ...) cast every input to the
///     widest floating dtype among them;
///   - every other op runs in whatever dtype its inputs have.
/// The casts are amp_cast / amp_multicast operators, so autograd sends gradients back through
/// them to the float32 parameters, and a hybridized block records them in its graph.
#include <string>
#include <tuple>
#include <vector>

#include "braid/base/dtype.h"
#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::amp {

/// The op lists of one target dtype (MXNet's mx.contrib.amp.lists.symbol_fp16 / symbol_bf16).
struct OpLists {
  std::vector<std::string> target_dtype_ops;  // run in the target dtype (FP16_FUNCS)
  std::vector<std::string> fp32_ops;          // run in float32 (FP32_FUNCS)
  /// (op, attribute, values): float32 when the attribute has one of the values.
  std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> conditional_fp32_ops;
  std::vector<std::string> widest_type_casts;      // inputs cast to their widest dtype
  std::vector<std::string> loss_output_functions;  // losses whose gradient the loss scale multiplies
};

/// Braid's lists for float16 or bfloat16 (other dtypes: braid::Error).
OpLists default_lists(DType target);

/// Turns casting on for every later operator call, for `target` (float16 or bfloat16) with
/// `lists` (ops the registry lacks are ignored). Calling it again replaces the setting.
void init(DType target, const OpLists& lists);
/// Turns casting off.
void reset();
bool active();
DType target_dtype();

/// `inputs` (the first `nargs` arguments, then aux states) as operator `op` with `attrs` takes
/// them under the current setting; the inputs themselves when nothing needs a cast.
std::vector<NDArray> cast_inputs(const op::OpDef& def, const op::AttrMap& attrs, const std::vector<NDArray>& inputs,
                                 size_t nargs);

}  // namespace braid::amp
