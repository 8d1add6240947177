"""Located Buzz errors: syntax/compile errors and runtime errors, both ``file:line:col: message``."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from swarmstack.buzz.values import display


def source_line(text: str | None, line: int) -> str | None:
    """Line ``line`` (1-based) of ``text``; None without text or past its end."""
    lines = text.split("\n") if text is not None else []
    return lines[line - 1] if 0 < line <= len(lines) else None


def caret_excerpt(source_line: str | None, col: int) -> str:
    """The offending source line followed by a caret under column ``col`` (1-based)."""
    if source_line is None:
        return ""
    text = source_line.rstrip("\n").replace("\t", " ")
    if text.isascii():
        return f"{text}\n{' ' * max(col - 1, 0)}^"
    head = display(text[:max(col - 1, 0)])  # an escaped byte is four columns wide
    return f"{display(text)}\n{' ' * len(head)}^"


class BuzzError(Exception):
    """Base class of every error the Buzz tool chain reports to a user."""


class _Located(BuzzError):
    """An error at ``file:line:col`` (dataclass fields), with its source line when known."""

    SEP = ": "

    def __post_init__(self) -> None:
        Exception.__init__(self, self.location_message())

    def location_message(self) -> str:
        return display(f"{self.file}:{self.line}:{self.col}{self.SEP}{self.message}")

    def __str__(self) -> str:
        return self.location_message()

    def __reduce__(self):  # picklable, so errors can cross process boundaries (sweeps)
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))

    def pretty(self) -> str:
        """Location line, source line with a caret, Buzz stack trace: what the CLI prints."""
        parts = [self.location_message()]
        excerpt = caret_excerpt(self.source_line, self.col)
        if excerpt:
            parts.append(excerpt)
        if getattr(self, "trace", None):
            parts.append("Buzz stack trace (innermost first):")
            parts.extend(str(f) for f in self.trace)
        return "\n".join(parts)


@dataclass(eq=False, repr=False)
class BuzzSyntaxError(_Located):
    """A scanner, parser or compiler error at ``file:line:col``."""

    file: str
    line: int
    col: int
    message: str
    source_line: str | None = None


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
        return display(f"  at {self.function} ({self.file}:{self.line}:{self.col})")


@dataclass
class BuzzRuntimeError(_Located):
    """A runtime error: where it happened, the message and the Buzz call stack (innermost first).

    Printed as the reference VM prints runtime errors, ``FILE:LINE:COL : message`` (a space
    before the colon, unlike syntax errors' ``FILE:LINE:COL: message``)."""

    file: str
    line: int
    col: int
    message: str
    trace: list[Frame] = field(default_factory=list)
    source_line: str | None = None
    SEP = " : "
