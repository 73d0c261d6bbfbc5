"""mx.io.ImageRecordIter: MXNet's record-file image iterator, made by the C++ core's thread pool
(braid/io/image_record_iter.h). Takes MXNet's arguments by name; MXNet's other augmentations
(rotation, shear, random scale, colour and lighting jitter, a mean image) are refused with an
error naming them rather than ignored. dtype float32 (default), uint8 (the pixels) or int8 (the
pixels less the rounded mean)."""
from .._core.io import ImageRecordIter as _ImageRecordIter, ImageRecordIterOptions as _Options

__all__ = ["ImageRecordIter"]

_SETTINGS = ("path_imgrec", "path_imgidx", "batch_size", "label_width", "shuffle", "seed", "num_parts", "part_index",
             "round_batch", "preprocess_threads", "prefetch_buffer", "resize", "inter_method", "rand_crop",
             "rand_mirror", "mirror", "scale", "data_name", "label_name", "dtype")
_CHANNEL_SETTINGS = {"mean": ("mean_r", "mean_g", "mean_b"), "std": ("std_r", "std_g", "std_b")}
# Arguments of MXNet's that change nothing at their default value here.
_IGNORED = {"verbose", "num_parts_per_chunk", "shuffle_chunk_seed", "shuffle_chunk_size", "ctx",
            "preprocess_threads_per_part", "path_imglist", "aug_seq", "max_random_scale", "min_random_scale",
            "max_rotate_angle", "max_aspect_ratio", "max_shear_ratio", "max_crop_size", "min_crop_size",
            "max_random_contrast", "max_random_illumination", "brightness", "contrast", "saturation", "hue",
            "pca_noise", "random_h", "random_s", "random_l", "rotate", "fill_value", "pad", "mean_img",
            "mean_a", "std_a", "min_img_size", "max_img_size", "random_resized_crop", "max_random_area",
            "min_random_area", "max_aspect_ratio", "min_aspect_ratio", "data_shape", "seed_aug"}
_DEFAULTS = {"verbose": True, "ctx": "cpu", "max_random_scale": 1.0, "min_random_scale": 1.0,
             "max_rotate_angle": 0, "max_aspect_ratio": 0.0, "max_shear_ratio": 0.0, "max_crop_size": -1,
             "min_crop_size": -1, "max_random_contrast": 0.0, "max_random_illumination": 0.0, "brightness": 0.0,
             "contrast": 0.0, "saturation": 0.0, "hue": 0.0, "pca_noise": 0.0, "random_h": 0, "random_s": 0,
             "random_l": 0, "rotate": -1, "fill_value": 255, "pad": 0, "mean_img": "", "mean_a": 0.0, "std_a": 1.0,
             "min_img_size": 0.0, "max_img_size": 1e10, "random_resized_crop": False, "path_imglist": "",
             "aug_seq": "aug_default", "min_aspect_ratio": None, "max_random_area": 1.0, "min_random_area": 1.0}


def ImageRecordIter(data_shape, batch_size, path_imgrec, **kwargs):
    """Batches of images from the record file path_imgrec: data_shape (C, H, W), resize (shorter
    side), rand_crop, rand_mirror/mirror, mean_r/g/b, std_r/g/b, scale, shuffle (+ seed),
    num_parts/part_index (a share of the file for each distributed worker), round_batch,
    preprocess_threads, prefetch_buffer, label_width, path_imgidx, data_name, label_name, dtype."""
    o = _Options()
    o.data_shape = [int(d) for d in data_shape]
    o.batch_size = int(batch_size)
    o.path_imgrec = str(path_imgrec)
    for channel_list, names in _CHANNEL_SETTINGS.items():
        values = list(getattr(o, channel_list))
        for c, name in enumerate(names):
            if name in kwargs:
                values[c] = float(kwargs.pop(name))
        setattr(o, channel_list, values)
    for name in list(kwargs):
        if name in _SETTINGS:
            value = kwargs.pop(name)
            if value is not None:
                setattr(o, name, value if name == "dtype" else type(getattr(o, name))(value))
    unsupported = []
    for name, value in kwargs.items():
        if name not in _IGNORED:
            raise TypeError("ImageRecordIter got an unexpected argument %r" % name)
        if name in _DEFAULTS and value != _DEFAULTS[name] and value is not None:
            unsupported.append("%s=%r" % (name, value))
    if unsupported:
        raise ValueError("ImageRecordIter: %s not supported by Braid's ImageRecordIter (it resizes, crops, mirrors "
                         "and normalises); use mx.image.ImageIter with augmenters, or gluon.data.vision transforms, for "
                         "the others" % ", ".join(unsupported))
    return _ImageRecordIter(o)
