"""What the corpus scripts share: where the real traces are, and which of
their files are traces.

The traces live beside the checkout (../shared/traces), are never committed,
and may be absent: a script then exits 77, which ctest reports as skipped
(SKIP_RETURN_CODE), and the test corpus-skips checks that each one does.
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIXES = (".json", ".json.gz", ".sqlite")
SKIPPED = 77


def traces_root(argv):
    """TRACES from the command line, else $TRACELINT_TRACES, else
    ../shared/traces beside the checkout."""
    if len(argv) > 2:
        return argv[2]
    return os.environ.get("TRACELINT_TRACES",
                          os.path.join(HERE, "..", "..", "..", "shared",
                                       "traces"))


def trace_folders(root):
    """The trace files of each folder of ROOT that holds some, sorted; the
    folders of files that are not traces (negative-*) test rejection
    elsewhere and are left out. Empty when ROOT is not a folder."""
    if not os.path.isdir(root):
        return []
    folders = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path) or folder.startswith("negative-"):
            continue
        files = sorted(os.path.join(top, n)
                       for top, _, names in os.walk(path)
                       for n in names if n.endswith(SUFFIXES))
        if files:
            folders.append(files)
    return folders
