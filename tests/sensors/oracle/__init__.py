"""Today's light, lux, camera, proximity and ToF kernels, frozen before their rebuild for
speed: the new kernels must give bit-identical readings (``tests/sensors/test_identical.py``)."""
