"""Exceptions: one class per stable status of the C ABI.

Every exception subclasses :class:`ContractpinError` and carries ``kind``
(the stable kebab-case name, e.g. ``"duplicate-key"``), ``code`` (the stable
number) and ``offset`` (the byte offset of an input error, else ``None``).
Catch a family (:class:`JSONError`, :class:`ToolsListError`,
:class:`LimitError`, :class:`LockError`) or one kind (:class:`DuplicateKeyError`).
"""

from typing import Dict, Optional, Type

__all__ = [
    "ContractpinError",
    "JSONError",
    "ToolsListError",
    "LimitError",
    "LockError",
    "ArgumentError",
    "InternalError",
    "ERRORS_BY_KIND",
    "ERRORS_BY_CODE",
    "UnexpectedEndError",
    "UnexpectedByteError",
    "InvalidUtf8Error",
    "ByteOrderMarkError",
    "ControlCharacterError",
    "InvalidEscapeError",
    "LoneSurrogateError",
    "InvalidNumberError",
    "NumberOutOfRangeError",
    "DuplicateKeyError",
    "DepthLimitError",
    "SizeLimitError",
    "TrailingDataError",
    "ScratchTooSmallError",
    "OutputTooSmallError",
    "NotToolsListError",
    "ToolNotObjectError",
    "NameNotStringError",
    "DuplicateToolNameError",
    "JsonRpcErrorError",
    "ToolLimitError",
    "CaseVariantKeyError",
    "LockSyntaxError",
    "LockUnsupportedVersionError",
    "LockUnsupportedAlgorithmError",
    "LockUnsupportedCanonicalizationError",
    "LockInvalidError",
    "LockUnknownServerError",
    "NullArgumentError",
    "InvalidArgumentError",
    "PanicError",
    "IndexOutOfRangeError",
    "FieldAbsentError",
    "NotFoundError",
]


class ContractpinError(Exception):
    """Base class of every contractpin error."""

    #: Stable kebab-case name of the status (overridden by each subclass).
    kind: str = "unknown-status"
    #: Stable numeric status code.
    code: int = -1

    def __init__(self, message: str, offset: Optional[int] = None) -> None:
        super().__init__(message)
        #: Byte offset in the input where the problem was found, or None.
        self.offset: Optional[int] = offset
        #: For the calls that take several documents (``verify_server``):
        #: which one :attr:`offset` is into, ``"lock"``, ``"tools/list"`` or
        #: ``"initialize result"``; None otherwise.
        self.input: Optional[str] = None


class JSONError(ContractpinError, ValueError):
    """The input is not acceptable JSON (RFC 8259 + I-JSON rules)."""


class ToolsListError(ContractpinError, ValueError):
    """The document is JSON but not an acceptable tools/list or tool."""


class LimitError(ContractpinError, ValueError):
    """A configured limit (depth, size, tool count) was exceeded."""


class LockError(ContractpinError, ValueError):
    """The lock file cannot be used (spec: exit code 2)."""

    #: For a lock refused by :class:`contractpin.Lock`: the JSON path of the
    #: problem (``""`` for the whole document or when not known).
    path: str = ""
    #: For a lock refused by :class:`contractpin.Lock`: what is wrong there.
    detail: str = ""


class ArgumentError(ContractpinError):
    """The library was called wrongly (a bug in this binding)."""


class InternalError(ContractpinError):
    """A bug in the library (a caught panic); please report it."""


class UnexpectedEndError(JSONError):
    """Status 1: ``unexpected-end``."""

    kind = "unexpected-end"
    code = 1


class UnexpectedByteError(JSONError):
    """Status 2: ``unexpected-byte``."""

    kind = "unexpected-byte"
    code = 2


class InvalidUtf8Error(JSONError):
    """Status 3: ``invalid-utf8``."""

    kind = "invalid-utf8"
    code = 3


class ByteOrderMarkError(JSONError):
    """Status 4: ``byte-order-mark``."""

    kind = "byte-order-mark"
    code = 4


class ControlCharacterError(JSONError):
    """Status 5: ``control-character``."""

    kind = "control-character"
    code = 5


class InvalidEscapeError(JSONError):
    """Status 6: ``invalid-escape``."""

    kind = "invalid-escape"
    code = 6


class LoneSurrogateError(JSONError):
    """Status 7: ``lone-surrogate``."""

    kind = "lone-surrogate"
    code = 7


class InvalidNumberError(JSONError):
    """Status 8: ``invalid-number``."""

    kind = "invalid-number"
    code = 8


class NumberOutOfRangeError(JSONError):
    """Status 9: ``number-out-of-range``."""

    kind = "number-out-of-range"
    code = 9


class DuplicateKeyError(JSONError):
    """Status 10: ``duplicate-key``."""

    kind = "duplicate-key"
    code = 10


class DepthLimitError(LimitError):
    """Status 11: ``depth-limit``."""

    kind = "depth-limit"
    code = 11


class SizeLimitError(LimitError):
    """Status 12: ``size-limit``."""

    kind = "size-limit"
    code = 12


class TrailingDataError(JSONError):
    """Status 13: ``trailing-data``."""

    kind = "trailing-data"
    code = 13


class ScratchTooSmallError(ArgumentError):
    """Status 14: ``scratch-too-small``."""

    kind = "scratch-too-small"
    code = 14


class OutputTooSmallError(ArgumentError):
    """Status 15: ``output-too-small``."""

    kind = "output-too-small"
    code = 15


class NotToolsListError(ToolsListError):
    """Status 32: ``not-tools-list``."""

    kind = "not-tools-list"
    code = 32


class ToolNotObjectError(ToolsListError):
    """Status 33: ``tool-not-object``."""

    kind = "tool-not-object"
    code = 33


class NameNotStringError(ToolsListError):
    """Status 34: ``name-not-string``."""

    kind = "name-not-string"
    code = 34


class DuplicateToolNameError(ToolsListError):
    """Status 35: ``duplicate-tool-name``."""

    kind = "duplicate-tool-name"
    code = 35


class JsonRpcErrorError(ToolsListError):
    """Status 36: ``json-rpc-error``."""

    kind = "json-rpc-error"
    code = 36


class ToolLimitError(LimitError):
    """Status 37: ``tool-limit``."""

    kind = "tool-limit"
    code = 37


class CaseVariantKeyError(ToolsListError):
    """Status 38: ``case-variant-key``: a member's key is a name read there
    only under case folding (``Description``, ``Tools``), which a
    case-insensitive decoder would take for that member."""

    kind = "case-variant-key"
    code = 38


class LockSyntaxError(LockError):
    """Status 64: ``lock-syntax``."""

    kind = "lock-syntax"
    code = 64


class LockUnsupportedVersionError(LockError):
    """Status 65: ``lock-unsupported-version``."""

    kind = "lock-unsupported-version"
    code = 65


class LockUnsupportedAlgorithmError(LockError):
    """Status 66: ``lock-unsupported-algorithm``."""

    kind = "lock-unsupported-algorithm"
    code = 66


class LockUnsupportedCanonicalizationError(LockError):
    """Status 67: ``lock-unsupported-canonicalization``."""

    kind = "lock-unsupported-canonicalization"
    code = 67


class LockInvalidError(LockError):
    """Status 68: ``lock-invalid``."""

    kind = "lock-invalid"
    code = 68


class LockUnknownServerError(LockError):
    """Status 69: ``lock-unknown-server``."""

    kind = "lock-unknown-server"
    code = 69


class NullArgumentError(ArgumentError):
    """Status 100: ``null-argument``."""

    kind = "null-argument"
    code = 100


class InvalidArgumentError(ArgumentError):
    """Status 101: ``invalid-argument``."""

    kind = "invalid-argument"
    code = 101


class PanicError(InternalError):
    """Status 102: ``panic``."""

    kind = "panic"
    code = 102


class IndexOutOfRangeError(ArgumentError):
    """Status 103: ``index-out-of-range``."""

    kind = "index-out-of-range"
    code = 103


class FieldAbsentError(ArgumentError):
    """Status 104: ``field-absent``."""

    kind = "field-absent"
    code = 104


class NotFoundError(ArgumentError):
    """Status 105: ``not-found``."""

    kind = "not-found"
    code = 105


ERRORS_BY_CODE: Dict[int, Type[ContractpinError]] = {
    cls.code: cls
    for cls in (
        UnexpectedEndError,
        UnexpectedByteError,
        InvalidUtf8Error,
        ByteOrderMarkError,
        ControlCharacterError,
        InvalidEscapeError,
        LoneSurrogateError,
        InvalidNumberError,
        NumberOutOfRangeError,
        DuplicateKeyError,
        DepthLimitError,
        SizeLimitError,
        TrailingDataError,
        ScratchTooSmallError,
        OutputTooSmallError,
        NotToolsListError,
        ToolNotObjectError,
        NameNotStringError,
        DuplicateToolNameError,
        JsonRpcErrorError,
        ToolLimitError,
        CaseVariantKeyError,
        LockSyntaxError,
        LockUnsupportedVersionError,
        LockUnsupportedAlgorithmError,
        LockUnsupportedCanonicalizationError,
        LockInvalidError,
        LockUnknownServerError,
        NullArgumentError,
        InvalidArgumentError,
        PanicError,
        IndexOutOfRangeError,
        FieldAbsentError,
        NotFoundError,
    )
}

ERRORS_BY_KIND: Dict[str, Type[ContractpinError]] = {cls.kind: cls for cls in ERRORS_BY_CODE.values()}
