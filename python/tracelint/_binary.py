"""Finding the tracelint binary that the package runs.

The package wraps the command-line tool rather than binding the C++ engine:
one engine, no compiled extension to build per Python version, and the
binary's JSON report is already the stable interface for scripts.
"""

import os
import shutil

from .errors import BinaryNotFound

#: The environment variable that names a tracelint binary.
ENV_VAR = "TRACELINT"


def _installed_beside():
    """The binary that `cmake --install` put beside this package, if any.

    The install writes _layout.py into the installed package with the path
    from the package folder to PREFIX/bin/tracelint; a checkout or a pip
    install has no such file.
    """
    try:
        from . import _layout
    except ImportError:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _layout.BINARY_FROM_PACKAGE))


def _usable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(binary=None):
    """The path of the tracelint binary to run.

    In order: ``binary`` when given; the binary installed beside this
    package by `cmake --install` (PREFIX/bin/tracelint); the path in the
    TRACELINT environment variable; ``tracelint`` on PATH. Raises
    BinaryNotFound, naming every place it looked, when none is usable.
    """
    if binary is not None:
        path = os.fspath(binary)
        if not _usable(path):
            raise BinaryNotFound(
                "binary=%r is not an executable file" % (path,))
        return path
    looked = []
    beside = _installed_beside()
    if beside is not None:
        if _usable(beside):
            return beside
        looked.append("%s (installed beside the package)" % beside)
    env = os.environ.get(ENV_VAR)
    if env:
        if _usable(env):
            return env
        looked.append("%s=%s" % (ENV_VAR, env))
    on_path = shutil.which("tracelint")
    if on_path:
        return on_path
    looked.append("tracelint on PATH")
    raise BinaryNotFound(
        "cannot find the tracelint binary; looked at: %s. Install it "
        "(cmake --install BUILD --prefix PREFIX), set %s to its path, or "
        "pass binary=PATH" % ("; ".join(looked), ENV_VAR))
