"""Teaching the seed counter: rendered training pictures and the training itself.

Not used at run time. Making the pictures needs only Pitwatch; training needs
PyTorch (``pip install -e .[train]``). The trained networks are exported to
ONNX and run by ONNX Runtime (:mod:`vision.counter`), so Pitwatch
itself never needs PyTorch. See docs/vision.md, "The seed counter".
"""
