"""Located Buzz errors: syntax/compile errors and runtime errors, both ``file:line:col: message``."""

from __future__ import annotations

from dataclasses import dataclass, field


def _display(s: str) -> str:
    """``s`` printable anywhere: a byte of a script that is not UTF-8 (kept as a lone
    surrogate, see ``swarmstack.buzz.values``) shows as ``\\xNN``."""
    if s.isascii():
        return s
    from swarmstack.buzz.values import display
    return display(s)


def caret_excerpt(source_line: str | None, col: int) -> str:
    """The offending source line followed by a caret under column ``col`` (1-based)."""
    if source_line is None:
        return ""
    text = source_line.rstrip("\n").replace("\t", " ")
    if text.isascii():
        return f"{text}\n{' ' * max(col - 1, 0)}^"
    head = _display(text[:max(col - 1, 0)])  # an escaped byte is four columns wide
    return f"{_display(text)}\n{' ' * len(head)}^"


class BuzzError(Exception):
    """Base class of every error the Buzz tool chain reports to a user."""


class BuzzSyntaxError(BuzzError):
    """A scanner, parser or compiler error at ``file:line:col``."""

    def __init__(self, file: str, line: int, col: int, message: str, source_line: str | None = None):
        self.file, self.line, self.col, self.message = file, line, col, message
        self.source_line = source_line
        super().__init__(self.location_message())

    def location_message(self) -> str:
        return _display(f"{self.file}:{self.line}:{self.col}: {self.message}")

    def __reduce__(self):  # picklable, so errors can cross process boundaries (sweeps)
        return (type(self), (self.file, self.line, self.col, self.message, self.source_line))

    def pretty(self) -> str:
        """Location line, source line and caret: what `swarmstack buzz check` prints."""
        excerpt = caret_excerpt(self.source_line, self.col)
        return self.location_message() + ("\n" + excerpt if excerpt else "")


class BuzzRaise(Exception):
    """Raised by runtime helpers without a location; the VM adds file:line:col from the trace.
    Host closures may raise it (or a subclass) to stop the script with ``message``."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


@dataclass
class Frame:
    """One entry of a Buzz stack trace."""

    function: str
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return _display(f"  at {self.function} ({self.file}:{self.line}:{self.col})")


@dataclass
class BuzzRuntimeError(BuzzError):
    """A runtime error: where it happened, the message and the Buzz call stack (innermost first).

    Printed as the reference VM prints runtime errors, ``FILE:LINE:COL : message`` (a space
    before the colon, unlike syntax errors' ``FILE:LINE:COL: message``)."""

    file: str
    line: int
    col: int
    message: str
    trace: list[Frame] = field(default_factory=list)
    source_line: str | None = None

    def __post_init__(self) -> None:
        Exception.__init__(self, self.location_message())

    def location_message(self) -> str:
        return _display(f"{self.file}:{self.line}:{self.col} : {self.message}")

    def __str__(self) -> str:
        return self.location_message()

    def __reduce__(self):
        return (type(self), (self.file, self.line, self.col, self.message, self.trace, self.source_line))

    def pretty(self) -> str:
        parts = [self.location_message()]
        excerpt = caret_excerpt(self.source_line, self.col)
        if excerpt:
            parts.append(excerpt)
        if self.trace:
            parts.append("Buzz stack trace (innermost first):")
            parts.extend(str(f) for f in self.trace)
        return "\n".join(parts)
