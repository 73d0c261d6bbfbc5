"""mx.image (also mx.img): decoding, resizing, cropping and augmenting images held as
(height, width, channels) NDArrays; ImageIter, which batches images from a record file or an image
list; ImageDetIter and the detection augmenters, which move the boxes with the pixels. Decoding is
the C++ core's (libjpeg-turbo and libpng); resizing uses OpenCV's interpolations
(braid/image/resize.h)."""
from .image import (imread, imdecode, imresize, scale_down, copyMakeBorder, resize_short, fixed_crop,
                    random_crop, center_crop, color_normalize, random_size_crop, imrotate, random_rotate)
from .augmenters import (Augmenter, SequentialAug, ResizeAug, ForceResizeAug, RandomCropAug, RandomSizedCropAug,
                         CenterCropAug, RandomOrderAug, BrightnessJitterAug, ContrastJitterAug, SaturationJitterAug,
                         HueJitterAug, ColorJitterAug, LightingAug, ColorNormalizeAug, RandomGrayAug,
                         HorizontalFlipAug, CastAug, CreateAugmenter)
from .image_iter import ImageIter
from .detection import (DetAugmenter, DetBorrowAug, DetRandomSelectAug, DetHorizontalFlipAug, DetRandomCropAug,
                        DetRandomPadAug, CreateMultiRandCropAugmenter, CreateDetAugmenter, ImageDetIter)
from . import image
