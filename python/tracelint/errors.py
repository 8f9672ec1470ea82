"""The exceptions the tracelint package raises."""


class TracelintError(Exception):
    """Base class of every error this package raises."""


class BinaryNotFound(TracelintError):
    """No tracelint binary was found (see tracelint.find_binary)."""


class LintFailed(TracelintError):
    """The tracelint binary refused the input or the options.

    Attributes: ``returncode`` (2: usage or configuration error, 3: the
    input could not be read), ``command`` (the argument list that ran) and
    ``stderr`` (what the binary printed).
    """

    def __init__(self, message, returncode=None, command=None, stderr=""):
        super().__init__(message)
        self.returncode = returncode
        self.command = command
        self.stderr = stderr


class FindingsError(TracelintError):
    """Findings matched ``fail_on``.

    Attributes: ``findings`` (the matching finding dicts) and ``report``
    (the whole tracelint.Report).
    """

    def __init__(self, message, findings, report):
        super().__init__(message)
        self.findings = findings
        self.report = report
