// The operator lists of automatic mixed precision (include/braid/ndarray/amp.h), by target dtype.
#include "braid/base/error.h"
#include "braid/ndarray/amp.h"

namespace braid::amp {
namespace {

// Ops whose results lose too much in 16 bits: exponents and logarithms, powers, reductions,
// normalizations, softmax and the losses.
const std::vector<std::string> kFloat32Ops = {
    "arccos", "arcsin", "arctanh", "cosh", "sinh", "tan", "erfinv", "gamma", "gammaln",
    // exponents and logarithms
    "exp", "expm1", "log", "log10", "log2", "log1p",
    // powers
    "broadcast_power", "square", "reciprocal", "rsqrt", "rcbrt", "_power", "_power_scalar", "_rpower_scalar", "_hypot",
    "_hypot_scalar", "broadcast_hypot",
    // reductions
    "sum", "sum_axis", "nansum", "prod", "nanprod", "mean", "norm", "moments", "softmin",
    // neural network
    "SoftmaxOutput", "softmax", "Softmax", "log_softmax", "SoftmaxActivation", "InstanceNorm", "LayerNorm", "GroupNorm",
    "L2Normalization", "LRN", "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput", "SVMOutput",
    "softmax_cross_entropy", "smooth_l1", "MakeLoss", "make_loss", "CTCLoss", "ctc_loss", "topk", "argsort"};

const std::vector<std::string> kWidestTypeCasts = {"_plus",
                                                   "_Plus",
                                                   "_minus",
                                                   "_Minus",
                                                   "_sub",
                                                   "_mul",
                                                   "_Mul",
                                                   "_div",
                                                   "_Div",
                                                   "_mod",
                                                   "_Mod",
                                                   "_equal",
                                                   "_Equal",
                                                   "_not_equal",
                                                   "_Not_Equal",
                                                   "_greater",
                                                   "_Greater",
                                                   "_greater_equal",
                                                   "_Greater_Equal",
                                                   "_lesser",
                                                   "_Lesser",
                                                   "_lesser_equal",
                                                   "_Lesser_Equal",
                                                   "_logical_and",
                                                   "_Logical_And",
                                                   "_logical_or",
                                                   "_Logical_Or",
                                                   "_logical_xor",
                                                   "_Logical_Xor",
                                                   "_maximum",
                                                   "_Maximum",
                                                   "_minimum",
                                                   "_Minimum",
                                                   "elemwise_add",
                                                   "elemwise_sub",
                                                   "elemwise_mul",
                                                   "elemwise_div",
                                                   "broadcast_add",
                                                   "broadcast_plus",
                                                   "broadcast_sub",
                                                   "broadcast_minus",
                                                   "broadcast_mul",
                                                   "broadcast_div",
                                                   "broadcast_mod",
                                                   "broadcast_equal",
                                                   "broadcast_not_equal",
                                                   "broadcast_greater",
                                                   "broadcast_greater_equal",
                                                   "broadcast_lesser",
                                                   "broadcast_lesser_equal",
                                                   "broadcast_logical_and",
                                                   "broadcast_logical_or",
                                                   "broadcast_logical_xor",
                                                   "broadcast_maximum",
                                                   "broadcast_minimum",
                                                   "ElementWiseSum",
                                                   "add_n",
                                                   "Concat",
                                                   "concat",
                                                   "stack",
                                                   "dot",
                                                   "batch_dot",
                                                   "where",
                                                   "Correlation"};

}  // namespace

OpLists default_lists(DType target) {
  OpLists l;
  if (target == DType::Float16) {
    l.target_dtype_ops = {"Convolution", "Deconvolution", "FullyConnected", "RNN"};
    l.fp32_ops = kFloat32Ops;
  } else if (target == DType::BFloat16) {
    // bfloat16 keeps float32's range but not its precision: only the big products run in it.
    l.target_dtype_ops = {"Convolution", "FullyConnected"};
    l.fp32_ops = kFloat32Ops;
    l.fp32_ops.insert(l.fp32_ops.end(), {"Deconvolution", "RNN"});
  } else {
    throw Error(cat("AMP: target dtype ", dtype_name(target), " is not supported; use float16 or bfloat16"));
  }
  l.conditional_fp32_ops = {{"Activation", "act_type", {"softrelu"}}, {"LeakyReLU", "act_type", {"elu", "selu"}}};
  l.widest_type_casts = kWidestTypeCasts;
  l.loss_output_functions = {"SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput",
                             "MAERegressionOutput"};
  return l;
}

}  // namespace braid::amp
