"""gluon.contrib.cnn: DeformableConvolution and ModulatedDeformableConvolution layers."""
from .deformable_conv import *  # noqa: F401,F403
from . import deformable_conv

__all__ = deformable_conv.__all__
