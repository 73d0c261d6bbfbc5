// gluon.data: datasets (built-in and Python-defined), transforms, and the DataLoader.
#include "bindings.h"
#include "braid/base/error.h"
#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/dataset.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"

namespace braid::python {
namespace {

namespace data = gluon::data;
using data::Dataset;
using data::DatasetPtr;
using data::Sample;

std::shared_ptr<Dataset> mutable_ptr(const DatasetPtr& d) { return std::const_pointer_cast<Dataset>(d); }

/// A sample field from Python: an NDArray, or anything NumPy reads, keeping NumPy's dtype
/// (MXNet's default batchify does the same).
NDArray field(py::handle v) {
  if (py::isinstance<NDArray>(v)) return v.cast<NDArray>();
  py::array a = py::module_::import("numpy").attr("asarray")(v);
  return from_numpy(a, cpu(), to_dtype(a.dtype()));
}

Sample sample_of(py::handle v) {
  Sample s;
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    for (auto f : py::reinterpret_borrow<py::sequence>(v)) s.push_back(field(f));
  } else {
    s.push_back(field(v));
  }
  return s;
}

py::object python_sample(const std::vector<NDArray>& s) {
  if (s.size() == 1) return py::cast(s[0]);
  return py::cast(s);
}

data::SampleFn sample_fn(py::function fn) {
  auto f = hold(std::move(fn));
  return [f](const Sample& s) {
    py::gil_scoped_acquire gil;
    py::tuple args(s.size());
    for (size_t i = 0; i < s.size(); ++i) args[i] = py::cast(s[i]);
    return sample_of((*f)(*args));
  };
}

data::Transform transform_of(py::handle t) {
  if (py::isinstance<data::Transform>(t)) return t.cast<data::Transform>();
  auto f = hold(py::reinterpret_borrow<py::function>(t));
  return data::Transform([f](const NDArray& x) {
    py::gil_scoped_acquire gil;
    return field((*f)(x));
  });
}

/// A Python batchify_fn: the list of samples (each an array or a tuple of arrays) in, the batch
/// (an array or a list of arrays) out.
data::BatchifyFn batchify_of(py::function fn) {
  auto f = hold(std::move(fn));
  return [f](const std::vector<Sample>& samples) {
    py::gil_scoped_acquire gil;
    py::list items;
    for (const auto& s : samples) items.append(python_sample(s));
    return sample_of((*f)(items));
  };
}

/// A dataset defined in Python: __len__ and __getitem__ of the subclass.
class PyDataset : public Dataset {
 public:
  int64_t size() const override {
    py::gil_scoped_acquire gil;
    py::function fn = py::get_override(static_cast<const Dataset*>(this), "__len__");
    BRAID_CHECK(fn, "a Dataset subclass must define __len__");
    return fn().cast<int64_t>();
  }
  Sample get(int64_t i) const override {
    check_index(i);
    py::gil_scoped_acquire gil;
    py::function fn = py::get_override(static_cast<const Dataset*>(this), "__getitem__");
    BRAID_CHECK(fn, "a Dataset subclass must define __getitem__");
    return sample_of(fn(i));
  }
};

/// One epoch of a DataLoader as a Python iterator.
struct EpochIterator {
  std::shared_ptr<data::DataLoader> loader;
  std::optional<data::DataLoader::Iterator> it;
  bool started = false;
};

}  // namespace

void bind_gluon_data(py::module_& m) {
  auto d = m.attr("gluon").cast<py::module_>().def_submodule("data");
  py::class_<Dataset, PyDataset, std::shared_ptr<Dataset>>(d, "Dataset", py::dynamic_attr())
      .def(py::init<>())
      .def("__len__", &Dataset::size)
      .def("__getitem__",
           [](const Dataset& ds, int64_t i) {
             int64_t n = ds.size();
             if (i < -n || i >= n) throw py::index_error("dataset index " + std::to_string(i) + " out of range");
             return python_sample(ds.get(i < 0 ? i + n : i));
           })
      .def(
          "transform",
          [](const Dataset& ds, py::function fn, bool lazy) { return mutable_ptr(ds.transform(sample_fn(fn), lazy)); },
          py::arg("fn"), py::arg("lazy") = true, py::keep_alive<0, 1>())
      .def(
          "transform_first",
          [](const Dataset& ds, py::object fn, bool lazy) {
            return mutable_ptr(ds.transform_first(transform_of(fn), lazy));
          },
          py::arg("fn"), py::arg("lazy") = true, py::keep_alive<0, 1>())
      .def(
          "shard", [](const Dataset& ds, int64_t n, int64_t i) { return mutable_ptr(ds.shard(n, i)); },
          py::keep_alive<0, 1>())
      .def(
          "take", [](const Dataset& ds, int64_t count) { return mutable_ptr(ds.take(count)); }, py::keep_alive<0, 1>())
      .def(
          "filter",
          [](const Dataset& ds, py::function fn) {
            auto f = hold(fn);
            return mutable_ptr(ds.filter([f](const Sample& s) {
              py::gil_scoped_acquire gil;
              py::tuple args(s.size());
              for (size_t i = 0; i < s.size(); ++i) args[i] = py::cast(s[i]);
              return (*f)(*args).cast<bool>();
            }));
          },
          py::keep_alive<0, 1>());
  py::class_<data::SimpleDataset, Dataset, std::shared_ptr<data::SimpleDataset>>(d, "SimpleDataset")
      .def(py::init([](py::sequence samples) {
        std::vector<Sample> s;
        for (auto x : samples) s.push_back(sample_of(x));
        return std::make_shared<data::SimpleDataset>(std::move(s));
      }));
  py::class_<data::ArrayDataset, Dataset, std::shared_ptr<data::ArrayDataset>>(d, "ArrayDataset")
      .def(py::init([](py::args arrays) {
        std::vector<NDArray> a;
        for (auto x : arrays) a.push_back(py::isinstance<NDArray>(x) ? x.cast<NDArray>() : field(x));
        return std::make_shared<data::ArrayDataset>(std::move(a));
      }));

  py::class_<data::DataLoader, std::shared_ptr<data::DataLoader>>(d, "DataLoader")
      .def(py::init([](std::shared_ptr<Dataset> dataset, py::object batch_size, bool shuffle, py::object last_batch,
                       py::object batchify_fn, int num_workers, bool pin_memory, py::object prefetch,
                       py::object thread_pool, py::object timeout) {
             data::DataLoaderOptions o;
             if (!batchify_fn.is_none()) o.batchify_fn = batchify_of(batchify_fn.cast<py::function>());
             o.batch_size = batch_size.is_none() ? 0 : batch_size.cast<int64_t>();
             o.shuffle = shuffle;
             if (!last_batch.is_none()) o.last_batch = data::last_batch_from_name(last_batch.cast<std::string>());
             o.num_workers = num_workers;
             if (!prefetch.is_none()) o.prefetch = prefetch.cast<int>();
             return std::make_shared<data::DataLoader>(dataset, o);
           }),
           py::arg("dataset"), py::arg("batch_size") = py::none(), py::arg("shuffle") = false,
           py::arg("last_batch") = py::none(), py::arg("batchify_fn") = py::none(), py::arg("num_workers") = 0,
           py::arg("pin_memory") = false, py::arg("prefetch") = py::none(), py::arg("thread_pool") = false,
           py::arg("timeout") = 120, py::keep_alive<1, 2>())  // a dataset defined in Python lives as long
      .def("__len__", &data::DataLoader::size)
      .def("__iter__", [](std::shared_ptr<data::DataLoader> loader) {
        return EpochIterator{loader, std::nullopt, false};
      });
  py::class_<EpochIterator>(d, "_EpochIterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](EpochIterator& e) {
        {
          py::gil_scoped_release release;  // worker threads may need the GIL for Python datasets
          if (!e.started) {
            e.it.emplace(e.loader->begin());
            e.started = true;
          } else if (e.it && *e.it != std::default_sentinel) {
            ++*e.it;
          }
        }
        if (!e.it || *e.it == std::default_sentinel) {
          e.it.reset();
          throw py::stop_iteration();
        }
        return python_sample(**e.it);
      });

  auto v = d.def_submodule("vision");
  py::class_<data::vision::MNIST, Dataset, std::shared_ptr<data::vision::MNIST>>(v, "MNIST")
      .def(py::init([](py::object root, bool train, py::object transform) {
             return std::make_shared<data::vision::MNIST>(
                 root.is_none() ? data::vision::MNIST::default_root() : root.cast<std::string>(), train,
                 transform.is_none() ? nullptr : sample_fn(transform));
           }),
           py::arg("root") = py::none(), py::arg("train") = true, py::arg("transform") = py::none());
  py::class_<data::vision::FashionMNIST, data::vision::MNIST, std::shared_ptr<data::vision::FashionMNIST>>(
      v, "FashionMNIST")
      .def(py::init([](py::object root, bool train, py::object transform) {
             return std::make_shared<data::vision::FashionMNIST>(
                 root.is_none() ? data::vision::FashionMNIST::default_root() : root.cast<std::string>(), train,
                 transform.is_none() ? nullptr : sample_fn(transform));
           }),
           py::arg("root") = py::none(), py::arg("train") = true, py::arg("transform") = py::none());

  auto t = v.def_submodule("transforms");
  py::class_<data::Transform>(t, "Transform").def("__call__", &data::Transform::operator());
  py::class_<data::vision::transforms::ToTensor, data::Transform>(t, "ToTensor").def(py::init<>());
  py::class_<data::vision::transforms::Normalize, data::Transform>(t, "Normalize")
      .def(py::init([](py::object mean, py::object std) {
             auto values = [](py::handle x) {
               if (py::isinstance<py::float_>(x) || py::isinstance<py::int_>(x))
                 return std::vector<double>{x.cast<double>()};
               return x.cast<std::vector<double>>();
             };
             return data::vision::transforms::Normalize(values(mean), values(std));
           }),
           py::arg("mean") = 0.0, py::arg("std") = 1.0);
  py::class_<data::vision::transforms::Cast, data::Transform>(t, "Cast").def(
      py::init([](py::object dtype) { return data::vision::transforms::Cast(to_dtype(dtype)); }),
      py::arg("dtype") = "float32");
  py::class_<data::vision::transforms::RandomFlipLeftRight, data::Transform>(t, "RandomFlipLeftRight")
      .def(py::init<>());
  py::class_<data::vision::transforms::RandomCrop, data::Transform>(t, "RandomCrop")
      .def(py::init([](py::object size, int64_t pad, double pad_value) {
             if (py::isinstance<py::int_>(size))
               return data::vision::transforms::RandomCrop(size.cast<int64_t>(), pad, pad_value);
             auto hw = size.cast<std::pair<int64_t, int64_t>>();
             return data::vision::transforms::RandomCrop(hw, {pad}, pad_value);
           }),
           py::arg("size"), py::arg("pad") = 0, py::arg("pad_value") = 0.0);
  py::class_<data::vision::transforms::Compose, data::Transform>(t, "Compose").def(py::init([](py::sequence ts) {
    std::vector<data::Transform> v;
    for (auto x : ts) v.push_back(transform_of(x));
    return data::vision::transforms::Compose(v);
  }));
}

}  // namespace braid::python
