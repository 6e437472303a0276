"""Test helper: an object that is a tensor only through the DLPack protocol."""


class DLPackProducer:
    """Wraps any array with __dlpack__ (NumPy, torch) and exposes only that."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()
