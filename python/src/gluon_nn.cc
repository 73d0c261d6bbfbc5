// gluon.nn: the built-in layers with MXNet's constructor arguments. Initializer arguments live as long
// as their layer (keep_alive): one defined in Python is called back when the layer initializes.
#include "bindings.h"
#include "braid/gluon/nn.h"

namespace braid::python {
namespace {

namespace nn = gluon::nn;
using gluon::Block;
using gluon::HybridBlock;
using OptName = std::optional<std::string>;

nn::Dims dims(py::handle v) {
  if (py::isinstance<py::int_>(v)) return nn::Dims(v.cast<int64_t>());
  return nn::Dims(v.cast<std::vector<int64_t>>());
}

std::string activation(py::handle v) { return v.is_none() ? "" : v.cast<std::string>(); }

nn::ConvOptions conv_options(py::handle strides, py::handle padding, py::handle output_padding, py::handle dilation,
                             int64_t groups, py::handle layout, py::handle act, bool use_bias, py::handle weight_init,
                             py::handle bias_init, int64_t in_channels, OptName prefix) {
  nn::ConvOptions o;
  o.strides = dims(strides);
  o.padding = dims(padding);
  o.output_padding = dims(output_padding);
  o.dilation = dims(dilation);
  o.groups = groups;
  o.layout = layout.is_none() ? "" : layout.cast<std::string>();
  o.activation = activation(act);
  o.use_bias = use_bias;
  o.weight_initializer = init_of(weight_init);
  o.bias_initializer = init_of(bias_init);
  o.in_channels = in_channels;
  o.prefix = std::move(prefix);
  return o;
}

template <class Conv>
void bind_conv(py::module_& m, const char* name) {
  py::class_<Conv, HybridBlock, std::shared_ptr<Conv>>(m, name)
      .def(py::init([](int64_t channels, py::object kernel_size, py::object strides, py::object padding,
                       py::object output_padding, py::object dilation, int64_t groups, py::object layout,
                       py::object act, bool use_bias, py::object weight_init, py::object bias_init, int64_t in_channels,
                       OptName prefix, py::object params) {
             auto share = sharing(params);
             return std::make_shared<Conv>(channels, dims(kernel_size),
                                           conv_options(strides, padding, output_padding, dilation, groups, layout, act,
                                                        use_bias, weight_init, bias_init, in_channels, prefix));
           }),
           py::arg("channels"), py::arg("kernel_size"), py::arg("strides") = 1, py::arg("padding") = 0,
           py::arg("output_padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1,
           py::arg("layout") = py::none(), py::arg("activation") = py::none(), py::arg("use_bias") = true,
           py::arg("weight_initializer") = py::none(), py::arg("bias_initializer") = "zeros",
           py::arg("in_channels") = 0, py::arg("prefix") = py::none(), py::arg("params") = py::none(),
           py::keep_alive<1, 12>(), py::keep_alive<1, 13>())
      .def_property_readonly("weight", [](const Conv& c) { return c.weight(); })
      .def_property_readonly("bias", [](const Conv& c) { return c.bias(); });
}

template <class Pool>
void bind_pool(py::module_& m, const char* name, py::object default_size) {
  py::class_<Pool, HybridBlock, std::shared_ptr<Pool>>(m, name).def(
      py::init([](py::object pool_size, py::object strides, py::object padding, py::object layout, bool ceil_mode,
                  bool count_include_pad, OptName prefix) {
        nn::PoolOptions o;
        if (!strides.is_none()) o.strides = dims(strides);
        o.padding = dims(padding);
        o.layout = layout.is_none() ? "" : layout.cast<std::string>();
        o.ceil_mode = ceil_mode;
        o.count_include_pad = count_include_pad;
        o.prefix = std::move(prefix);
        return std::make_shared<Pool>(dims(pool_size), o);
      }),
      py::arg("pool_size") = default_size, py::arg("strides") = py::none(), py::arg("padding") = 0,
      py::arg("layout") = py::none(), py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("prefix") = py::none());
}

template <class Pool>
void bind_global_pool(py::module_& m, const char* name) {
  py::class_<Pool, HybridBlock, std::shared_ptr<Pool>>(m, name).def(
      py::init([](py::object layout, OptName prefix) {
        nn::PoolOptions o;
        o.layout = layout.is_none() ? "" : layout.cast<std::string>();
        o.prefix = std::move(prefix);
        return std::make_shared<Pool>(o);
      }),
      py::arg("layout") = py::none(), py::arg("prefix") = py::none());
}

}  // namespace

std::unique_ptr<gluon::ShareParameters> sharing(py::handle params) {
  if (params.is_none()) return nullptr;
  return std::make_unique<gluon::ShareParameters>(params.cast<const gluon::ParameterDict&>());
}

namespace {

/// Sequential.add: registers each block through Block.register_child, which also keeps a block
/// defined in Python alive with its container (C++ holds only its C++ part).
void add_children(py::object self, py::args blocks, bool hybrid_only) {
  for (auto b : blocks) {
    auto ptr = b.cast<std::shared_ptr<Block>>();
    BRAID_CHECK(!hybrid_only || std::dynamic_pointer_cast<HybridBlock>(ptr), "HybridSequential.add: ", ptr->prefix(),
                " is not a HybridBlock; use Sequential for plain Blocks");
    self.attr("register_child")(b);
  }
}

}  // namespace

void bind_gluon_nn(py::module_& m) {
  auto g = m.attr("gluon").cast<py::module_>();
  auto n = g.def_submodule("nn");

  py::class_<nn::Sequential, Block, std::shared_ptr<nn::Sequential>>(n, "Sequential", py::dynamic_attr())
      .def(py::init([](OptName prefix, py::object params) {
             auto share = sharing(params);
             return std::make_shared<nn::Sequential>(prefix);
           }),
           py::arg("prefix") = py::none(), py::arg("params") = py::none())
      .def("add", [](py::object self, py::args blocks) { add_children(self, blocks, false); })
      .def("__len__", &nn::Sequential::size)
      .def("__getitem__", [](const nn::Sequential& s, int64_t i) {
        int64_t n = static_cast<int64_t>(s.size());
        BRAID_CHECK(i >= -n && i < n, "Sequential index ", i, " is out of range for ", n, " blocks");
        return s[static_cast<size_t>(i < 0 ? i + n : i)];
      });
  py::class_<nn::HybridSequential, HybridBlock, std::shared_ptr<nn::HybridSequential>>(n, "HybridSequential",
                                                                                       py::dynamic_attr())
      .def(py::init([](OptName prefix, py::object params) {
             auto share = sharing(params);
             return std::make_shared<nn::HybridSequential>(prefix);
           }),
           py::arg("prefix") = py::none(), py::arg("params") = py::none())
      .def("add", [](py::object self, py::args blocks) { add_children(self, blocks, true); })
      .def("__len__", &nn::HybridSequential::size)
      .def("__getitem__", [](const nn::HybridSequential& s, int64_t i) {
        int64_t n = static_cast<int64_t>(s.size());
        BRAID_CHECK(i >= -n && i < n, "HybridSequential index ", i, " is out of range for ", n, " blocks");
        return s[static_cast<size_t>(i < 0 ? i + n : i)];
      });

  py::class_<nn::Dense, HybridBlock, std::shared_ptr<nn::Dense>>(n, "Dense")
      .def(py::init([](int64_t units, py::object act, bool use_bias, bool flatten, py::object dtype,
                       py::object weight_init, py::object bias_init, int64_t in_units, OptName prefix,
                       py::object params) {
             nn::DenseOptions o;
             o.activation = activation(act);
             o.use_bias = use_bias;
             o.flatten = flatten;
             o.dtype = to_dtype(dtype);
             o.weight_initializer = init_of(weight_init);
             o.bias_initializer = init_of(bias_init);
             o.in_units = in_units;
             o.prefix = std::move(prefix);
             auto share = sharing(params);
             return std::make_shared<nn::Dense>(units, o);
           }),
           py::arg("units"), py::arg("activation") = py::none(), py::arg("use_bias") = true, py::arg("flatten") = true,
           py::arg("dtype") = "float32", py::arg("weight_initializer") = py::none(),
           py::arg("bias_initializer") = "zeros", py::arg("in_units") = 0, py::arg("prefix") = py::none(),
           py::arg("params") = py::none(), py::keep_alive<1, 7>(), py::keep_alive<1, 8>())
      .def_property_readonly("weight", &nn::Dense::weight)
      .def_property_readonly("bias", &nn::Dense::bias);

  bind_conv<nn::Conv1D>(n, "Conv1D");
  bind_conv<nn::Conv2D>(n, "Conv2D");
  bind_conv<nn::Conv3D>(n, "Conv3D");
  bind_conv<nn::Conv1DTranspose>(n, "Conv1DTranspose");
  bind_conv<nn::Conv2DTranspose>(n, "Conv2DTranspose");
  bind_conv<nn::Conv3DTranspose>(n, "Conv3DTranspose");
  bind_pool<nn::MaxPool1D>(n, "MaxPool1D", py::int_(2));
  bind_pool<nn::MaxPool2D>(n, "MaxPool2D", py::make_tuple(2, 2));
  bind_pool<nn::AvgPool1D>(n, "AvgPool1D", py::int_(2));
  bind_pool<nn::MaxPool3D>(n, "MaxPool3D", py::make_tuple(2, 2, 2));
  bind_pool<nn::AvgPool2D>(n, "AvgPool2D", py::make_tuple(2, 2));
  bind_pool<nn::AvgPool3D>(n, "AvgPool3D", py::make_tuple(2, 2, 2));
  bind_global_pool<nn::GlobalMaxPool1D>(n, "GlobalMaxPool1D");
  bind_global_pool<nn::GlobalMaxPool2D>(n, "GlobalMaxPool2D");
  bind_global_pool<nn::GlobalAvgPool1D>(n, "GlobalAvgPool1D");
  bind_global_pool<nn::GlobalMaxPool3D>(n, "GlobalMaxPool3D");
  bind_global_pool<nn::GlobalAvgPool2D>(n, "GlobalAvgPool2D");
  bind_global_pool<nn::GlobalAvgPool3D>(n, "GlobalAvgPool3D");

  py::class_<nn::BatchNorm, HybridBlock, std::shared_ptr<nn::BatchNorm>>(n, "BatchNorm")
      .def(py::init([](int axis, double momentum, double epsilon, bool center, bool scale, bool use_global_stats,
                       py::object beta_init, py::object gamma_init, py::object mean_init, py::object var_init,
                       int64_t in_channels, OptName prefix, py::object params) {
             nn::BatchNormOptions o;
             o.axis = axis;
             o.momentum = momentum;
             o.epsilon = epsilon;
             o.center = center;
             o.scale = scale;
             o.use_global_stats = use_global_stats;
             o.beta_initializer = init_of(beta_init);
             o.gamma_initializer = init_of(gamma_init);
             o.running_mean_initializer = init_of(mean_init);
             o.running_variance_initializer = init_of(var_init);
             o.in_channels = in_channels;
             o.prefix = std::move(prefix);
             auto share = sharing(params);
             return std::make_shared<nn::BatchNorm>(o);
           }),
           py::arg("axis") = 1, py::arg("momentum") = 0.9, py::arg("epsilon") = 1e-5, py::arg("center") = true,
           py::arg("scale") = true, py::arg("use_global_stats") = false, py::arg("beta_initializer") = "zeros",
           py::arg("gamma_initializer") = "ones", py::arg("running_mean_initializer") = "zeros",
           py::arg("running_variance_initializer") = "ones", py::arg("in_channels") = 0, py::arg("prefix") = py::none(),
           py::arg("params") = py::none(), py::keep_alive<1, 8>(), py::keep_alive<1, 9>(), py::keep_alive<1, 10>(),
           py::keep_alive<1, 11>());
  py::class_<nn::LayerNorm, HybridBlock, std::shared_ptr<nn::LayerNorm>>(n, "LayerNorm")
      .def(py::init([](int axis, double epsilon, bool center, bool scale, py::object beta_init, py::object gamma_init,
                       int64_t in_channels, OptName prefix, py::object params) {
             nn::LayerNormOptions o;
             o.axis = axis;
             o.epsilon = epsilon;
             o.center = center;
             o.scale = scale;
             o.beta_initializer = init_of(beta_init);
             o.gamma_initializer = init_of(gamma_init);
             o.in_channels = in_channels;
             o.prefix = std::move(prefix);
             auto share = sharing(params);
             return std::make_shared<nn::LayerNorm>(o);
           }),
           py::arg("axis") = -1, py::arg("epsilon") = 1e-5, py::arg("center") = true, py::arg("scale") = true,
           py::arg("beta_initializer") = "zeros", py::arg("gamma_initializer") = "ones", py::arg("in_channels") = 0,
           py::arg("prefix") = py::none(), py::arg("params") = py::none(), py::keep_alive<1, 6>(),
           py::keep_alive<1, 7>());
  py::class_<nn::Dropout, HybridBlock, std::shared_ptr<nn::Dropout>>(n, "Dropout")
      .def(py::init<double, std::vector<int64_t>, OptName>(), py::arg("rate"), py::arg("axes") = std::vector<int64_t>{},
           py::arg("prefix") = py::none());
  py::class_<nn::Embedding, HybridBlock, std::shared_ptr<nn::Embedding>>(n, "Embedding")
      .def(py::init([](int64_t input_dim, int64_t output_dim, py::object dtype, py::object weight_init,
                       bool sparse_grad, OptName prefix, py::object params) {
             nn::EmbeddingOptions o;
             o.sparse_grad = sparse_grad;
             o.dtype = to_dtype(dtype);
             o.weight_initializer = init_of(weight_init);
             o.prefix = std::move(prefix);
             auto share = sharing(params);
             return std::make_shared<nn::Embedding>(input_dim, output_dim, o);
           }),
           py::arg("input_dim"), py::arg("output_dim"), py::arg("dtype") = "float32",
           py::arg("weight_initializer") = py::none(), py::arg("sparse_grad") = false, py::arg("prefix") = py::none(),
           py::arg("params") = py::none(), py::keep_alive<1, 5>());
  py::class_<nn::Flatten, HybridBlock, std::shared_ptr<nn::Flatten>>(n, "Flatten")
      .def(py::init<OptName>(), py::arg("prefix") = py::none());
  py::class_<nn::OpActivation, HybridBlock, std::shared_ptr<nn::OpActivation>>(n, "_OpActivation");
  py::class_<nn::Activation, nn::OpActivation, std::shared_ptr<nn::Activation>>(n, "Activation")
      .def(py::init<const std::string&, OptName>(), py::arg("activation"), py::arg("prefix") = py::none());
  py::class_<nn::LeakyReLU, nn::OpActivation, std::shared_ptr<nn::LeakyReLU>>(n, "LeakyReLU")
      .def(py::init<double, OptName>(), py::arg("alpha"), py::arg("prefix") = py::none());
  py::class_<nn::ELU, nn::OpActivation, std::shared_ptr<nn::ELU>>(n, "ELU").def(
      py::init<double, OptName>(), py::arg("alpha") = 1.0, py::arg("prefix") = py::none());
  py::class_<nn::SELU, nn::OpActivation, std::shared_ptr<nn::SELU>>(n, "SELU").def(py::init<OptName>(),
                                                                                   py::arg("prefix") = py::none());
  py::class_<nn::GELU, nn::OpActivation, std::shared_ptr<nn::GELU>>(n, "GELU").def(py::init<OptName>(),
                                                                                   py::arg("prefix") = py::none());
  py::class_<nn::PReLU, HybridBlock, std::shared_ptr<nn::PReLU>>(n, "PReLU")
      .def(py::init([](py::object alpha_init, int64_t in_channels, OptName prefix, py::object params) {
             nn::PReLUOptions o;
             if (!alpha_init.is_none()) o.alpha_initializer = init_of(alpha_init);
             o.in_channels = in_channels;
             o.prefix = std::move(prefix);
             auto share = sharing(params);
             return std::make_shared<nn::PReLU>(o);
           }),
           py::arg("alpha_initializer") = py::none(), py::arg("in_channels") = 1, py::arg("prefix") = py::none(),
           py::arg("params") = py::none(), py::keep_alive<1, 2>());
  py::class_<nn::Lambda, Block, std::shared_ptr<nn::Lambda>>(n, "_Lambda")
      .def(py::init<nn::LambdaFunction, std::string, OptName>())
      .def(py::init<const std::string&, OptName>());
  py::class_<nn::HybridLambda, HybridBlock, std::shared_ptr<nn::HybridLambda>>(n, "_HybridLambda")
      .def(py::init<nn::LambdaFunction, std::string, OptName>())
      .def(py::init<const std::string&, OptName>());
}

}  // namespace braid::python
