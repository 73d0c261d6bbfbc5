#include <algorithm>
#include <filesystem>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/io/image_record_iter.h"

namespace braid::io {

std::vector<ImageFile> list_image_folder(const std::string& root, std::vector<std::string>* classes) {
  namespace fs = std::filesystem;
  std::error_code failed;
  BRAID_CHECK(fs::is_directory(root, failed), "image folder ", root,
              " is not a folder; give a folder holding one sub-folder of images per class");
  std::vector<fs::path> class_dirs;
  for (const auto& e : fs::directory_iterator(root, fs::directory_options::follow_directory_symlink))
    if (e.is_directory()) class_dirs.push_back(e.path());
  std::sort(class_dirs.begin(), class_dirs.end());
  std::vector<ImageFile> files;
  if (classes) classes->clear();
  for (size_t label = 0; label < class_dirs.size(); ++label) {
    std::vector<std::string> images;
    for (const auto& e : fs::directory_iterator(class_dirs[label], fs::directory_options::follow_directory_symlink)) {
      const std::string ext = to_lower(e.path().extension().string());
      if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png")) images.push_back(e.path());
    }
    std::sort(images.begin(), images.end());
    for (auto& path : images) files.push_back({std::move(path), {float(label)}});
    if (classes) classes->push_back(class_dirs[label].filename().string());
  }
  BRAID_CHECK(!files.empty(), "image folder ", root,
              " holds no images: it should hold one sub-folder per class with .jpg, .jpeg or .png files");
  return files;
}

}  // namespace braid::io
