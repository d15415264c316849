"""Reading ZomBee dice from a camera looking down on the tray (OpenCV and NumPy only)."""

import os

# The network's matrices are small: OpenBLAS's thread pool only adds hand-offs, and on a busy
# machine (the Pi also runs the web server) it made training 13x slower. A caller's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
