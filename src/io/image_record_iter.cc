// ImageRecordIter: worker threads claim whole batches, at most prefetch_buffer ahead of the
// consumer, and leave them in ready_ by number; next() takes them in order.
#include "braid/io/image_record_iter.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <type_traits>

#include "braid/base/error.h"
#include "braid/image/codec.h"
#include "braid/image/resize.h"
#include "braid/io/image_record.h"
#include "braid/io/recordio.h"

namespace braid::io {
namespace {

std::vector<uint64_t> offsets_from_index(const std::string& path) {
  std::ifstream in(path);
  BRAID_CHECK(in, "ImageRecordIter: cannot open the index file path_imgidx=", path);
  std::vector<uint64_t> offsets;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string key;
    uint64_t offset = 0;
    BRAID_CHECK(fields >> key >> offset, "ImageRecordIter: line ", n, " of ", path,
                " is not 'key<TAB>offset' (an .idx file as im2rec writes it)");
    offsets.push_back(offset);
  }
  std::sort(offsets.begin(), offsets.end());  // file order: reading moves forward
  return offsets;
}

std::vector<uint64_t> offsets_by_reading(const std::string& path) {
  RecordReader reader(path);
  std::vector<uint64_t> offsets;
  for (uint64_t at = reader.tell(); reader.read(); at = reader.tell()) offsets.push_back(at);
  return offsets;
}

// A seed from (seed, epoch, place) that differs in every bit for neighbouring places (splitmix64).
uint64_t mix(uint64_t seed, uint64_t epoch, uint64_t place) {
  uint64_t z = seed ^ (epoch * 0x9E3779B97F4A7C15ULL) ^ (place * 0xBF58476D1CE4E5B9ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Copies n floats to dst with non-temporal stores where dst is 16-byte aligned: a batch is far
// bigger than the caches, and streaming stores skip reading each line before writing it.
void stream_copy(const float* src, float* dst, int64_t n) {
  int64_t i = 0;
  if (reinterpret_cast<uintptr_t>(dst) % 16 == 0)
    for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

// The h x w crop at (y0, x0) of `im` into planes (c, h, w) of `out`, each value through the
// channel's 256-entry table, columns reversed when mirrored (Step -1). Row by row through a small
// buffer per plane, then copied out (float32 rows streamed).
template <class T, int Step>
void normalise_rows(const image::Image& im, int64_t y0, int64_t x0, int64_t h, int64_t w, const T* lut, T* out) {
  const int64_t c = im.channels, plane = h * w, first = Step > 0 ? 0 : w - 1;
  std::vector<T> buffer(size_t(3 * w));
  T* __restrict p0 = buffer.data() + first;
  T* __restrict p1 = p0 + w;
  T* __restrict p2 = p1 + w;
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* row = im.pixels.data() + ((y0 + y) * im.width + x0) * c;
    if (c == 1) {
      for (int64_t x = 0; x < w; ++x) p0[Step * x] = lut[row[x]];
    } else {
      for (int64_t x = 0; x < w; ++x, row += 3) {
        p0[Step * x] = lut[row[0]];
        p1[Step * x] = lut[256 + row[1]];
        p2[Step * x] = lut[512 + row[2]];
      }
    }
    for (int64_t ch = 0; ch < c; ++ch) {
      if constexpr (std::is_same_v<T, float>)
        stream_copy(buffer.data() + ch * w, out + ch * plane + y * w, w);
      else
        std::copy_n(buffer.data() + ch * w, w, out + ch * plane + y * w);
    }
  }
  if constexpr (std::is_same_v<T, float>) _mm_sfence();
}

// Each channel's 256 output values, as MXNet's ImageRecordIter makes them: float32
// (v - mean) · scale / std, int8 v - round(mean) saturated, uint8 the pixel itself.
struct ValueTables {
  std::vector<float> f32;
  std::vector<int8_t> i8;
  std::vector<uint8_t> u8;
};

ValueTables value_tables(const ImageRecordIterOptions& o, int64_t c) {
  ValueTables t;
  for (int64_t ch = 0; ch < c; ++ch) {
    const float mean = o.mean[size_t(ch)], mult = o.scale / o.std[size_t(ch)];
    for (int v = 0; v < 256; ++v) {
      t.f32.push_back((float(v) - mean) * mult);
      t.i8.push_back(int8_t(std::clamp(v - int(std::lround(mean)), -128, 127)));
      t.u8.push_back(uint8_t(v));
    }
  }
  return t;
}

template <class T>
void normalise(const image::Image& im, const image::Region& r, bool mirrored, const T* lut, T* out) {
  if (mirrored)
    normalise_rows<T, -1>(im, r.y0, r.x0, r.height, r.width, lut, out);
  else
    normalise_rows<T, 1>(im, r.y0, r.x0, r.height, r.width, lut, out);
}

// Image i of a batch of `dtype` at `data`.
void write_image(DType dtype, const image::Image& im, const image::Region& r, bool mirrored, const ValueTables& t,
                 void* data, int64_t i) {
  const int64_t count = im.channels * r.height * r.width;
  if (dtype == DType::UInt8)
    normalise(im, r, mirrored, t.u8.data(), static_cast<uint8_t*>(data) + i * count);
  else if (dtype == DType::Int8)
    normalise(im, r, mirrored, t.i8.data(), static_cast<int8_t*>(data) + i * count);
  else
    normalise(im, r, mirrored, t.f32.data(), static_cast<float*>(data) + i * count);
}

// This part's share [n·i/parts, n·(i+1)/parts) of `all`.
template <class T>
std::vector<T> part_of(const std::vector<T>& all, int64_t index, int64_t parts) {
  const int64_t n = int64_t(all.size());
  return std::vector<T>(all.begin() + n * index / parts, all.begin() + n * (index + 1) / parts);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BRAID_CHECK(in, "ImageRecordIter: cannot open the image file ", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  BRAID_CHECK(in.good() || in.eof(), "ImageRecordIter: cannot read the image file ", path);
  return std::move(bytes).str();
}

}  // namespace

ImageRecordIter::ImageRecordIter(ImageRecordIterOptions options) : opts_(std::move(options)) {
  const auto& o = opts_;
  BRAID_CHECK(o.path_imgrec.empty() != o.files.empty(),
              "ImageRecordIter: give either path_imgrec (the .rec file) or image files, ",
              o.files.empty() ? "neither was given" : "not both");
  BRAID_CHECK(o.data_shape.ndim() == 3 && (o.data_shape[0] == 1 || o.data_shape[0] == 3) && o.data_shape[1] > 0 &&
                  o.data_shape[2] > 0,
              "ImageRecordIter: data_shape must be (channels, height, width) with 1 or 3 channels; got ", o.data_shape);
  BRAID_CHECK(o.batch_size > 0, "ImageRecordIter: batch_size must be positive; got ", o.batch_size);
  BRAID_CHECK(o.label_width > 0, "ImageRecordIter: label_width must be positive; got ", o.label_width);
  BRAID_CHECK(o.num_parts > 0 && o.part_index >= 0 && o.part_index < o.num_parts,
              "ImageRecordIter: part_index must be in [0, num_parts); got part_index=", o.part_index,
              ", num_parts=", o.num_parts);
  BRAID_CHECK(o.preprocess_threads > 0 && o.prefetch_buffer > 0,
              "ImageRecordIter: preprocess_threads and prefetch_buffer must be positive");
  image::interp_from_int(o.inter_method, "ImageRecordIter inter_method");
  BRAID_CHECK(o.dtype == DType::Float32 || o.dtype == DType::UInt8 || o.dtype == DType::Int8,
              "ImageRecordIter: dtype must be float32, uint8 or int8; got ", dtype_name(o.dtype));
  for (float s : o.std) BRAID_CHECK(s != 0.f, "ImageRecordIter: std_r/std_g/std_b must not be 0");
  if (o.files.empty()) {
    const auto all = o.path_imgidx.empty() ? offsets_by_reading(o.path_imgrec) : offsets_from_index(o.path_imgidx);
    total_ = int64_t(all.size());
    offsets_ = part_of(all, o.part_index, o.num_parts);
    BRAID_CHECK(!offsets_.empty(), "ImageRecordIter: ", o.path_imgrec, " holds no records",
                o.num_parts > 1 ? " for this part" : "");
  } else {
    for (const auto& f : o.files)
      BRAID_CHECK(int64_t(f.labels.size()) == o.label_width, "ImageRecordIter: the image file ", f.path, " has ",
                  f.labels.size(), " labels but label_width is ", o.label_width);
    total_ = int64_t(o.files.size());
    files_ = part_of(o.files, o.part_index, o.num_parts);
    BRAID_CHECK(!files_.empty(), "ImageRecordIter: no image files", o.num_parts > 1 ? " for this part" : "");
  }
  batches_ = (num_images() + o.batch_size - 1) / o.batch_size;
  order_.resize(size_t(num_images()));
  std::iota(order_.begin(), order_.end(), 0);
  start();
}

ImageRecordIter::~ImageRecordIter() { stop(); }

void ImageRecordIter::start() {
  if (opts_.shuffle) {
    std::mt19937_64 rng(mix(opts_.seed, uint64_t(epoch_), ~0ULL));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  stopping_ = false;
  claimed_ = returned_ = 0;
  ready_.clear();
  for (int64_t t = 0; t < opts_.preprocess_threads; ++t) workers_.emplace_back([this] { work(); });
}

void ImageRecordIter::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ImageRecordIter::work() {
  std::unique_ptr<RecordReader> reader;  // opened at the first record read
  for (;;) {
    int64_t k = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock,
                    [&] { return stopping_ || claimed_ >= batches_ || claimed_ < returned_ + opts_.prefetch_buffer; });
      if (stopping_ || claimed_ >= batches_) return;
      k = claimed_++;
    }
    Made made;
    try {
      made.batch = make_batch(k, reader);
    } catch (...) {
      made.error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(k, std::move(made));
    }
    changed_.notify_all();
  }
}

DataBatch ImageRecordIter::make_batch(int64_t k, std::unique_ptr<RecordReader>& reader) const {
  const auto& o = opts_;
  const int64_t c = o.data_shape[0], h = o.data_shape[1], w = o.data_shape[2], plane = h * w;
  // From the storage pool, whose blocks come back when the consumer drops a batch: no fresh pages
  // to fault in per batch. Nothing else refers to the new arrays, so the thread may write them.
  NDArray data_array(Shape({o.batch_size, c, h, w}), cpu(), o.dtype),
      label_array(o.label_width == 1 ? Shape({o.batch_size}) : Shape({o.batch_size, o.label_width}));
  void* const data = data_array.raw_data();
  const size_t image_bytes = size_t(c * plane) * dtype_size(o.dtype);
  float* const labels = label_array.data<float>();
  std::fill_n(labels, o.batch_size * o.label_width, 0.f);
  image::Image decoded, resized;  // reused image after image
  const ValueTables tables = value_tables(o, c);
  DataBatch batch;
  for (int64_t i = 0; i < o.batch_size; ++i) {
    int64_t place = k * o.batch_size + i;
    if (place >= num_images()) {
      ++batch.pad;
      if (!o.round_batch) {
        std::memset(static_cast<char*>(data) + size_t(i) * image_bytes, 0, image_bytes);
        continue;
      }
      place %= num_images();
    }
    // The image's labels and bytes, from its record or its file; `what` names it in errors.
    const size_t item = size_t(order_[size_t(place)]);
    std::string raw, what;
    ImageRecord rec;
    if (files_.empty()) {
      const uint64_t offset = offsets_[item];
      what = cat("the image of the record at offset ", offset, " of ", o.path_imgrec);
      if (!reader) reader = std::make_unique<RecordReader>(o.path_imgrec);
      reader->seek(offset);
      std::optional<std::string> read = reader->read();
      BRAID_CHECK(read, "ImageRecordIter: no record at offset ", offset, " of ", o.path_imgrec);
      raw = std::move(*read);
      rec = unpack_image_record(raw);
      what += cat(" (id ", rec.id, ")");
      BRAID_CHECK(int64_t(rec.labels.size()) == o.label_width, "ImageRecordIter: the record at offset ", offset, " of ",
                  o.path_imgrec, " holds ", rec.labels.size(), " labels but label_width is ", o.label_width);
    } else {
      what = "the image file " + files_[item].path;
      raw = read_file(files_[item].path);
      rec.labels = files_[item].labels;
      rec.image = raw;
    }
    std::copy(rec.labels.begin(), rec.labels.end(), labels + i * o.label_width);
    // The crop: centred, or drawn from the image's place in the epoch. Without a resize only the
    // crop is decoded (decode_region); with one the whole image is decoded and resized first.
    std::mt19937 rng(static_cast<uint32_t>(mix(o.seed, uint64_t(epoch_), uint64_t(place))));
    bool too_small = false;
    int64_t source_h = 0, source_w = 0;
    auto crop = [&](int64_t height, int64_t width) {
      source_h = height, source_w = width;
      too_small = height < h || width < w;
      if (too_small) return image::Region{0, 0, height, width};
      image::Region r{(height - h) / 2, (width - w) / 2, h, w};
      if (o.rand_crop) {
        r.y0 = std::uniform_int_distribution<int64_t>(0, height - h)(rng);
        r.x0 = std::uniform_int_distribution<int64_t>(0, width - w)(rng);
      }
      return r;
    };
    // With a resize, the crop is chosen in the resized image's coordinates; only the source
    // pixels its taps read are decoded, and only the crop is resampled (the same values as
    // resizing the whole image and cutting the crop out).
    image::AxisTaps row_taps, col_taps;
    image::Region source;
    auto resized_crop = [&](int64_t height, int64_t width) {
      const int64_t rh = height > width ? o.resize * height / width : o.resize;
      const int64_t rw = height > width ? o.resize : o.resize * width / height;
      const image::Region r = crop(rh, rw);
      if (too_small) return image::Region{0, 0, height, width};
      const auto interp = static_cast<image::Interp>(o.inter_method);
      row_taps = image::axis_taps(height, rh, interp).slice(r.y0, h);
      col_taps = image::axis_taps(width, rw, interp).slice(r.x0, w);
      const auto [top, bottom] = row_taps.source_span();
      const auto [left, right] = col_taps.source_span();
      return source = image::Region{top, left, bottom - top, right - left};
    };
    const image::Color color = c == 1 ? image::Color::Gray : image::Color::Rgb;
    try {
      if (o.resize > 0)
        image::decode_region(rec.image, color, resized_crop, decoded);
      else
        image::decode_region(rec.image, color, crop, decoded);
    } catch (const Error& e) {
      throw Error(cat("ImageRecordIter: ", what, " is broken: ", e.what()));
    }
    BRAID_CHECK(!too_small, "ImageRecordIter: ", what, " is ", source_h, " x ", source_w,
                o.resize > 0 ? " once resized" : "", ", smaller than data_shape's ", h, " x ", w,
                "; set resize to at least ", std::max(h, w));
    if (o.resize > 0) {
      resized.height = h, resized.width = w, resized.channels = decoded.channels;
      resized.pixels.resize(size_t(h * w * decoded.channels));
      image::resample<uint8_t>(decoded.pixels.data(), decoded.height, decoded.width, decoded.channels, source.y0,
                               source.x0, row_taps, col_taps, resized.pixels.data());
    }
    const image::Image& im = o.resize > 0 ? resized : decoded;
    const image::Region r{0, 0, h, w};
    const bool mirrored = o.mirror || (o.rand_mirror && std::bernoulli_distribution(0.5)(rng));
    write_image(o.dtype, im, image::Region{r.y0, r.x0, h, w}, mirrored, tables, data, i);
  }
  batch.data.push_back(std::move(data_array));
  batch.label.push_back(std::move(label_array));
  return batch;
}

std::optional<DataBatch> ImageRecordIter::next() {
  Made made;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (returned_ >= batches_) return std::nullopt;
    changed_.wait(lock, [&] { return ready_.count(returned_) > 0; });
    auto it = ready_.find(returned_);
    made = std::move(it->second);
    ready_.erase(it);
    ++returned_;
  }
  changed_.notify_all();
  if (made.error) std::rethrow_exception(made.error);
  return std::move(made.batch);
}

void ImageRecordIter::reset() {
  stop();
  ++epoch_;
  start();
}

std::vector<DataDesc> ImageRecordIter::provide_data() const {
  return {DataDesc{opts_.data_name,
                   Shape({opts_.batch_size, opts_.data_shape[0], opts_.data_shape[1], opts_.data_shape[2]}),
                   opts_.dtype}};
}

std::vector<DataDesc> ImageRecordIter::provide_label() const {
  const Shape s = opts_.label_width == 1 ? Shape({opts_.batch_size}) : Shape({opts_.batch_size, opts_.label_width});
  return {DataDesc{opts_.label_name, s, DType::Float32, "N"}};
}

}  // namespace braid::io
