// mx.io: DataBatch, DataDesc, NDArrayIter, MNISTIter and DataIter subclasses written in Python.
#include "bindings.h"
#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/io/image_record_iter.h"
#include "braid/io/mnist_iter.h"
#include "braid/io/ndarray_iter.h"
#include "braid/io/recordio.h"

namespace braid::python {
namespace {

/// A DataIter defined in Python: next() returns a DataBatch or raises StopIteration; reset(),
/// provide_data and provide_label as in MXNet.
class PyDataIter : public io::DataIter {
 public:
  std::optional<io::DataBatch> next() override {
    py::gil_scoped_acquire gil;
    try {
      return override_of("next")().cast<io::DataBatch>();
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_StopIteration)) return std::nullopt;
      throw;
    }
  }
  void reset() override {
    py::gil_scoped_acquire gil;
    override_of("reset")();
  }
  std::vector<io::DataDesc> provide_data() const override { return descs("provide_data"); }
  std::vector<io::DataDesc> provide_label() const override { return descs("provide_label"); }
  int64_t batch_size() const override {
    py::gil_scoped_acquire gil;
    return py::cast(static_cast<const io::DataIter*>(this)).attr("batch_size").cast<int64_t>();
  }

 private:
  py::function override_of(const char* name) const {
    py::function fn = py::get_override(static_cast<const io::DataIter*>(this), name);
    BRAID_CHECK(fn, "a DataIter subclass must define ", name, "()");
    return fn;
  }
  std::vector<io::DataDesc> descs(const char* name) const {
    py::gil_scoped_acquire gil;
    std::vector<io::DataDesc> out;
    py::object v = py::cast(static_cast<const io::DataIter*>(this)).attr(name);
    if (v.is_none()) return out;
    for (auto d : v) {
      if (py::isinstance<io::DataDesc>(d))
        out.push_back(d.cast<io::DataDesc>());
      else
        out.push_back(io::DataDesc{d[py::int_(0)].cast<std::string>(), to_shape(d[py::int_(1)])});
    }
    return out;
  }
};

/// NDArrayIter's data or label argument: an array, a list of them, or a dict by name.
io::NamedInputs named_inputs(py::handle v, const std::string& default_name) {
  io::NamedInputs out;
  auto array = [](py::handle a) {
    return py::isinstance<NDArray>(a) ? a.cast<NDArray>() : from_numpy(a, cpu(), std::nullopt);
  };
  if (v.is_none()) return out;
  if (py::isinstance<py::dict>(v)) {
    for (auto [k, a] : py::reinterpret_borrow<py::dict>(v)) out.emplace_back(k.cast<std::string>(), array(a));
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    auto seq = py::reinterpret_borrow<py::sequence>(v);
    for (size_t i = 0; i < seq.size(); ++i)
      out.emplace_back(seq.size() == 1 ? default_name : default_name + "_" + std::to_string(i), array(seq[i]));
  } else {
    out.emplace_back(default_name, array(v));
  }
  return out;
}

}  // namespace

void bind_io(py::module_& m) {
  auto i = m.def_submodule("io");
  // RecordIO files (braid/io/recordio.h), under mx.recordio's MXRecordIO and MXIndexedRecordIO.
  py::class_<io::RecordWriter>(i, "RecordWriter")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def("write", [](io::RecordWriter& w, const py::bytes& record) { w.write(std::string(record)); })
      .def("tell", &io::RecordWriter::tell)
      .def("close", &io::RecordWriter::close);
  py::class_<io::RecordReader>(i, "RecordReader")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def("read",
           [](io::RecordReader& r) -> py::object {
             std::optional<std::string> record = r.read();
             return record ? py::object(py::bytes(*record)) : py::object(py::none());
           })
      .def("seek", &io::RecordReader::seek)
      .def("tell", &io::RecordReader::tell);
  py::class_<io::DataDesc>(i, "DataDesc")
      .def(py::init([](const std::string& name, py::object shape, py::object dtype, const std::string& layout) {
             return io::DataDesc{name, to_shape(shape), dtype.is_none() ? DType::Float32 : to_dtype(dtype), layout};
           }),
           py::arg("name"), py::arg("shape"), py::arg("dtype") = py::none(), py::arg("layout") = "NCHW")
      .def_readonly("name", &io::DataDesc::name)
      .def_property_readonly("shape", [](const io::DataDesc& d) { return shape_tuple(d.shape); })
      .def_property_readonly("dtype", [](const io::DataDesc& d) { return dtype_type(d.dtype); })
      .def_readonly("layout", &io::DataDesc::layout)
      .def("__getitem__",
           [](const io::DataDesc& d, int k) -> py::object {  // MXNet's (name, shape) tuple
             if (k == 0) return py::str(d.name);
             if (k == 1) return shape_tuple(d.shape);
             throw py::index_error("DataDesc has two fields: name and shape");
           })
      .def("__len__", [](const io::DataDesc&) { return 2; })
      .def("__repr__", [](const io::DataDesc& d) {
        return "DataDesc[" + d.name + "," + d.shape.str() + "," + dtype_name(d.dtype) + "," + d.layout + "]";
      });
  py::class_<io::DataBatch>(i, "DataBatch")
      .def(py::init([](std::vector<NDArray> data, py::object label, int pad, py::object index) {
             io::DataBatch b;
             b.data = std::move(data);
             if (!label.is_none()) b.label = label.cast<std::vector<NDArray>>();
             b.pad = pad;
             if (!index.is_none()) b.index = index.cast<std::vector<int64_t>>();
             return b;
           }),
           py::arg("data"), py::arg("label") = py::none(), py::arg("pad") = 0, py::arg("index") = py::none())
      .def_readwrite("data", &io::DataBatch::data)
      .def_readwrite("label", &io::DataBatch::label)
      .def_readwrite("pad", &io::DataBatch::pad)
      .def_readwrite("index", &io::DataBatch::index)
      .def("__str__", [](const io::DataBatch& b) {
        auto shapes = [](const std::vector<NDArray>& arrays) -> std::string {
          std::string s;
          for (const auto& a : arrays)
            s += (s.empty() ? "" : ", ") + py::str(py::tuple(py::cast(a.shape().dims()))).cast<std::string>();
          return "[" + s + "]";
        };
        return "DataBatch: data shapes: " + shapes(b.data) +
               " label shapes: " + (b.label.empty() ? std::string("None") : shapes(b.label));
      });
  py::class_<io::DataIter, PyDataIter, std::shared_ptr<io::DataIter>>(i, "DataIter", py::dynamic_attr())
      .def(py::init<>())
      .def("__iter__", [](py::object self) { return self; })  // MXNet's: no reset
      .def("__next__",
           [](io::DataIter& it) {
             std::optional<io::DataBatch> b;
             {
               py::gil_scoped_release release;
               b = it.next();
             }
             if (!b) throw py::stop_iteration();
             return *b;
           })
      .def("next",
           [](io::DataIter& it) {
             auto b = it.next();
             if (!b) throw py::stop_iteration();
             return *b;
           })
      .def("reset", &io::DataIter::reset)
      .def_property_readonly("provide_data", &io::DataIter::provide_data)
      .def_property_readonly("provide_label", &io::DataIter::provide_label)
      .def_property_readonly("batch_size", &io::DataIter::batch_size);
  py::class_<io::NDArrayIter, io::DataIter, std::shared_ptr<io::NDArrayIter>>(i, "NDArrayIter")
      .def(py::init([](py::object data, py::object label, int64_t batch_size, bool shuffle,
                       const std::string& last_batch_handle, const std::string& data_name,
                       const std::string& label_name, std::optional<uint64_t> seed) {
             return std::make_shared<io::NDArrayIter>(
                 named_inputs(data, data_name), named_inputs(label, label_name), batch_size, shuffle,
                 io::parse_last_batch_handle(last_batch_handle), seed.value_or(io::NDArrayIter::kDefaultSeed));
           }),
           py::arg("data"), py::arg("label") = py::none(), py::arg("batch_size") = 1, py::arg("shuffle") = false,
           py::arg("last_batch_handle") = "pad", py::arg("data_name") = "data", py::arg("label_name") = "softmax_label",
           py::arg("seed") = py::none())
      .def_property_readonly("idx", &io::NDArrayIter::idx);
  py::class_<io::MNISTIter, io::DataIter, std::shared_ptr<io::MNISTIter>>(i, "MNISTIter")
      .def(py::init([](const std::string& image, const std::string& label, int64_t batch_size, bool shuffle, bool flat,
                       uint64_t seed, bool silent, int num_parts, int part_index, const std::string& data_name,
                       const std::string& label_name) {
             return std::make_shared<io::MNISTIter>(io::MNISTIterOptions{
                 image, label, batch_size, shuffle, flat, seed, silent, num_parts, part_index, data_name, label_name});
           }),
           py::arg("image") = "./train-images-idx3-ubyte", py::arg("label") = "./train-labels-idx1-ubyte",
           py::arg("batch_size") = 128, py::arg("shuffle") = true, py::arg("flat") = false, py::arg("seed") = 0,
           py::arg("silent") = false, py::arg("num_parts") = 1, py::arg("part_index") = 0,
           py::arg("data_name") = "data", py::arg("label_name") = "softmax_label");

  // ImageRecordIter's options under MXNet's argument names; mx.io.ImageRecordIter (Python) fills them.
  py::class_<io::ImageRecordIterOptions>(i, "ImageRecordIterOptions")
      .def(py::init<>())
      .def_readwrite("path_imgrec", &io::ImageRecordIterOptions::path_imgrec)
      .def_readwrite("path_imgidx", &io::ImageRecordIterOptions::path_imgidx)
      .def_property(
          "data_shape", [](const io::ImageRecordIterOptions& o) { return o.data_shape.dims(); },
          [](io::ImageRecordIterOptions& o, const std::vector<int64_t>& s) { o.data_shape = Shape(s); })
      .def_readwrite("batch_size", &io::ImageRecordIterOptions::batch_size)
      .def_readwrite("label_width", &io::ImageRecordIterOptions::label_width)
      .def_readwrite("shuffle", &io::ImageRecordIterOptions::shuffle)
      .def_readwrite("seed", &io::ImageRecordIterOptions::seed)
      .def_readwrite("num_parts", &io::ImageRecordIterOptions::num_parts)
      .def_readwrite("part_index", &io::ImageRecordIterOptions::part_index)
      .def_readwrite("round_batch", &io::ImageRecordIterOptions::round_batch)
      .def_readwrite("preprocess_threads", &io::ImageRecordIterOptions::preprocess_threads)
      .def_readwrite("prefetch_buffer", &io::ImageRecordIterOptions::prefetch_buffer)
      .def_readwrite("resize", &io::ImageRecordIterOptions::resize)
      .def_readwrite("inter_method", &io::ImageRecordIterOptions::inter_method)
      .def_readwrite("rand_crop", &io::ImageRecordIterOptions::rand_crop)
      .def_readwrite("rand_mirror", &io::ImageRecordIterOptions::rand_mirror)
      .def_readwrite("mirror", &io::ImageRecordIterOptions::mirror)
      .def_readwrite("mean", &io::ImageRecordIterOptions::mean)
      .def_readwrite("std", &io::ImageRecordIterOptions::std)
      .def_readwrite("scale", &io::ImageRecordIterOptions::scale)
      .def_property(
          "dtype", [](const io::ImageRecordIterOptions& o) { return std::string(dtype_name(o.dtype)); },
          [](io::ImageRecordIterOptions& o, py::object dtype) { o.dtype = to_dtype(dtype); })
      .def_readwrite("data_name", &io::ImageRecordIterOptions::data_name)
      .def_readwrite("label_name", &io::ImageRecordIterOptions::label_name);
  py::class_<io::ImageRecordIter, io::DataIter, std::shared_ptr<io::ImageRecordIter>>(i, "ImageRecordIter")
      .def(py::init([](io::ImageRecordIterOptions o) {
             py::gil_scoped_release release;  // reading the offsets may take a while
             return std::make_shared<io::ImageRecordIter>(std::move(o));
           }),
           py::arg("options"))
      .def_property_readonly("num_images", &io::ImageRecordIter::num_images);

  // Braid's own readers of (Fashion-)MNIST's IDX files (the C++ examples use them).
  i.def("load_idx", &io::load_idx, py::arg("path"));
  i.def("load_idx_images", &io::load_idx_images, py::arg("path"));
  i.def("load_idx_labels", &io::load_idx_labels, py::arg("path"));
  i.def("fashion_mnist_dir", &io::fashion_mnist_dir);
}

}  // namespace braid::python
