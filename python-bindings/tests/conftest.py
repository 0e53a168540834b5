import os
import sys

# The package is imported from the build tree unless it is installed.
BUILD_PYTHON = os.environ.get("RECURRENCE_PYTHON_DIR")
if BUILD_PYTHON:
    sys.path.insert(0, BUILD_PYTHON)
sys.path.insert(0, os.path.dirname(__file__))
