// Images per second into training batches: ImageRecordIter (records read, JPEGs decoded, cropped
// to 224 x 224, normalised into float32 NCHW batches) against libjpeg-turbo alone decoding the same
// JPEGs from memory, both on the same number of threads, timed in alternation. Target (issue 27):
// the pipeline >= 0.8x libjpeg-turbo alone. A second pipeline row also resizes (shorter side 240)
// before cropping, as a training pipeline over im2rec files made without --resize does.
//
//   image_pipeline_bench [THREADS] [IMAGES] [ROUNDS]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <jpeglib.h>  // after <cstdio>: it uses size_t and FILE

#include "braid/image/codec.h"
#include "braid/io/image_record.h"
#include "braid/io/image_record_iter.h"
#include "braid/io/recordio.h"

namespace {

using namespace braid;
using Clock = std::chrono::steady_clock;

// A 340 x 256 photo-like image: smooth gradients plus noise (about 30 KB as JPEG at quality 90).
std::string make_jpeg(std::mt19937& rng) {
  image::Image im{256, 340, 3, std::vector<uint8_t>(256 * 340 * 3)};
  std::uniform_int_distribution<int> noise(0, 24), base(0, 120);
  const int r0 = base(rng), g0 = base(rng), b0 = base(rng);
  for (int y = 0; y < 256; ++y)
    for (int x = 0; x < 340; ++x) {
      uint8_t* p = im.pixels.data() + (y * 340 + x) * 3;
      p[0] = uint8_t(std::min(255, r0 + x / 3 + noise(rng)));
      p[1] = uint8_t(std::min(255, g0 + y / 2 + noise(rng)));
      p[2] = uint8_t(std::min(255, b0 + (x + y) / 5 + noise(rng)));
    }
  return image::encode(im, ".jpg", 90);
}

// libjpeg-turbo alone: RGB rows into one buffer per thread, the files split among the threads.
double decode_alone(const std::vector<std::string>& jpegs, int threads) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::vector<uint8_t> pixels;
    jpeg_decompress_struct d{};
    jpeg_error_mgr err{};
    d.err = jpeg_std_error(&err);
    jpeg_create_decompress(&d);
    for (size_t i; (i = next++) < jpegs.size();) {
      jpeg_mem_src(&d, reinterpret_cast<const unsigned char*>(jpegs[i].data()), jpegs[i].size());
      jpeg_read_header(&d, TRUE);
      d.out_color_space = JCS_RGB;
      jpeg_start_decompress(&d);
      pixels.resize(size_t(d.output_width) * d.output_height * 3);
      while (d.output_scanline < d.output_height) {
        JSAMPROW row = pixels.data() + size_t(d.output_scanline) * d.output_width * 3;
        jpeg_read_scanlines(&d, &row, 1);
      }
      jpeg_finish_decompress(&d);
    }
    jpeg_destroy_decompress(&d);
  };
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return double(jpegs.size()) / std::chrono::duration<double>(Clock::now() - t0).count();
}

// Braid's decoder (image::decode) on the same files and threads.
double decode_braid(const std::vector<std::string>& jpegs, int threads) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < jpegs.size();) image::decode(jpegs[i], image::Color::Rgb);
  };
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return double(jpegs.size()) / std::chrono::duration<double>(Clock::now() - t0).count();
}

double pipeline(const std::string& rec, int64_t images, int threads, int64_t resize) {
  io::ImageRecordIterOptions o;
  o.path_imgrec = rec;
  o.data_shape = Shape({3, 224, 224});
  o.batch_size = 32;
  o.preprocess_threads = threads;
  o.rand_crop = o.rand_mirror = true;
  o.mean = {123.68f, 116.28f, 103.53f};
  o.std = {58.395f, 57.12f, 57.375f};
  o.resize = resize;
  io::ImageRecordIter it(o);
  while (it.next()) {
  }
  const auto t0 = Clock::now();  // the second epoch: the record offsets are known
  it.reset();
  int64_t seen = 0;
  while (auto b = it.next()) seen += o.batch_size - b->pad;
  if (seen != images) std::abort();
  return double(images) / std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : int(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t images = argc > 2 ? std::atoll(argv[2]) : 640;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  std::mt19937 rng(1);
  std::vector<std::string> jpegs;
  size_t bytes = 0;
  for (int64_t i = 0; i < images; ++i) bytes += jpegs.emplace_back(make_jpeg(rng)).size();
  const std::string rec =
      (std::filesystem::temp_directory_path() / ("image_pipeline_bench_" + std::to_string(getpid()) + ".rec")).string();
  {
    io::RecordWriter w(rec);
    for (int64_t i = 0; i < images; ++i) {
      io::ImageRecord r;
      r.labels = {float(i % 10)};
      r.id = uint64_t(i);
      r.image = jpegs[size_t(i)];
      w.write(io::pack_image_record(r));
    }
  }
  std::printf("%lld JPEGs of 340 x 256 (%.0f KB on average), %d threads, best of %d rounds\n", (long long)images,
              double(bytes) / double(images) / 1024, threads, rounds);
  double alone = 0, wrapped = 0, crop = 0, resized = 0;
  for (int r = 0; r < rounds; ++r) {
    alone = std::max(alone, decode_alone(jpegs, threads));
    wrapped = std::max(wrapped, decode_braid(jpegs, threads));
    crop = std::max(crop, pipeline(rec, images, threads, -1));
    resized = std::max(resized, pipeline(rec, images, threads, 240));
  }
  std::filesystem::remove(rec);
  std::printf("%-52s %10s %8s\n", "", "images/s", "ratio");
  std::printf("%-52s %10.0f %8s\n", "libjpeg-turbo alone (decode to RGB)", alone, "1.00");
  std::printf("%-52s %10.0f %8.2f\n", "image::decode (Braid's decoder alone)", wrapped, wrapped / alone);
  std::printf("%-52s %10.0f %8.2f\n", "ImageRecordIter: decode, crop 224, mirror, normalise", crop, crop / alone);
  std::printf("%-52s %10.0f %8.2f\n", "ImageRecordIter: + resize shorter side to 240 first", resized, resized / alone);
  return 0;
}
