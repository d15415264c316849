"""Reading ZomBee dice from a camera looking down on the tray (OpenCV and NumPy only)."""

import os

# The network's matrices are small: OpenBLAS's thread pool only adds hand-offs, and on a busy
# machine (the Pi also runs the web server) it made training 13x slower. A caller's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# A photo is decoded whole before anything can shrink it: a 20000 x 20000 PNG of a few hundred kB
# took 2.4 GB. OpenCV reads this bound once, when it loads (so before any import of cv2 here);
# 200 megapixels is more than any phone's photo. images.read_image names the file when it is over.
MAX_PIXELS = 200_000_000
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))

# A file that is not a video made FFmpeg print its own lines ("moov atom not found") before ours named
# the file and the problem; quiet (AV_LOG_QUIET) unless the caller asks otherwise.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
