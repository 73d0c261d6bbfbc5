// braid._core.image: the JPEG/PNG codec (braid/image/codec.h) on NumPy arrays, under mx.image's
// imdecode and recordio's pack_img/unpack_img. The GIL is released while pixels are coded, so
// DataLoader threads decode side by side.
#include "braid/image/codec.h"

#include "bindings.h"

namespace braid::python {
namespace {

image::Color color_of(int flag, bool to_rgb) {
  if (flag == 0) return image::Color::Gray;
  if (flag < 0) return image::Color::AsStored;
  return to_rgb ? image::Color::Rgb : image::Color::Bgr;
}

py::array_t<uint8_t> decode(const py::buffer& data, int flag, bool to_rgb) {
  const py::buffer_info info = data.request();
  const std::string_view bytes(static_cast<const char*>(info.ptr), size_t(info.size * info.itemsize));
  image::Image im;
  {
    py::gil_scoped_release release;
    im = image::decode(bytes, color_of(flag, to_rgb));
  }
  py::array_t<uint8_t> out({im.height, im.width, im.channels});
  std::copy(im.pixels.begin(), im.pixels.end(), out.mutable_data());
  return out;
}

py::bytes encode(const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& pixels,
                 const std::string& format, int quality, bool bgr) {
  BRAID_CHECK(pixels.ndim() == 2 || pixels.ndim() == 3,
              "imencode: the image must be (height, width) or (height, "
              "width, channels); got ",
              pixels.ndim(), " dimensions");
  image::Image im{pixels.shape(0), pixels.shape(1), pixels.ndim() == 3 ? pixels.shape(2) : 1, {}};
  im.pixels.assign(pixels.data(), pixels.data() + pixels.size());
  std::string out;
  {
    py::gil_scoped_release release;
    out = image::encode(im, format, quality, bgr);
  }
  return py::bytes(out);
}

}  // namespace

void bind_image(py::module_& m) {
  py::module_ i = m.def_submodule("image", "JPEG and PNG decoding and encoding (braid/image/codec.h)");
  i.def("decode", &decode, py::arg("data"), py::arg("flag") = 1, py::arg("to_rgb") = true,
        "The (height, width, channels) uint8 pixels of a JPEG or PNG file's bytes; flag 1 colour, 0 gray, -1 as "
        "stored; to_rgb False gives BGR.");
  i.def("encode", &encode, py::arg("pixels"), py::arg("format") = ".jpg", py::arg("quality") = 95,
        py::arg("bgr") = false, "The bytes of a JPEG ('.jpg') or PNG ('.png') file holding `pixels`.");
  i.def("is_image", [](const py::bytes& b) { return image::is_image(std::string_view(b)); });
}

}  // namespace braid::python
