"""gluon.model_zoo: predefined networks (MXNet's layout: ``model_zoo.vision``)."""
from . import model_store, vision

__all__ = ["model_store", "vision"]
