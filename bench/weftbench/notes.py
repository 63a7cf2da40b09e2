"""Measured prose: explanations and observations that state what was
measured, kept in bench/notes/*.md with the commit and day of the
measurement, so that the code holds no measured numbers and the report says
where each text comes from.

A notes file is Markdown. Text before the first `## ` heading documents the
file and is not read. Each entry is:

    ## <key>
    measured: <short commit> <YYYY-MM-DD>

    Text of the entry, any number of lines; the lines of a paragraph are
    joined with spaces, paragraphs are kept apart by a blank line.
"""
import functools
import os
import re
from dataclasses import dataclass

from .paths import NOTES

_MEASURED = re.compile(r"measured:\s*([0-9a-f]{7,40})\s+(\d{4}-\d{2}-\d{2})\s*$")


@dataclass(frozen=True)
class Note:
    key: str
    text: str
    commit: str
    date: str

    @property
    def provenance(self):
        return f"measured at `{self.commit}`, {self.date}"

    def cite(self):
        """The text followed by its provenance, as the report prints it."""
        return f"{self.text} ({self.provenance})"


class NotesError(ValueError):
    pass


def parse(text, source="<notes>"):
    """{key: Note} of a notes file's text."""
    notes, key, head, body, line_of_key = {}, None, None, [], 0

    def close():
        if key is None:
            return
        if head is None:
            raise NotesError(f"{source}:{line_of_key}: entry '{key}' has no 'measured: <commit> <date>' line")
        paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", "\n".join(body)) if p.strip()]
        if not paras:
            raise NotesError(f"{source}:{line_of_key}: entry '{key}' has no text")
        notes[key] = Note(key, "\n\n".join(paras), *head)

    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            close()
            key, head, body, line_of_key = line[3:].strip(), None, [], n
            if key in notes:
                raise NotesError(f"{source}:{n}: entry '{key}' twice")
        elif key is not None and head is None and line.strip():
            m = _MEASURED.match(line.strip())
            if not m:
                raise NotesError(f"{source}:{n}: expected 'measured: <commit> <YYYY-MM-DD>' after '## {key}'")
            head = m.groups()
        elif key is not None:
            body.append(line)
    close()
    return notes


@functools.lru_cache(maxsize=None)
def load(name):
    """{key: Note} of bench/notes/<name>.md."""
    path = os.path.join(NOTES, name + ".md")
    with open(path) as f:
        return parse(f.read(), os.path.relpath(path, os.path.dirname(os.path.dirname(NOTES))))


def behind():
    """Why weft is behind a peer, by experiment."""
    return load("behind")


def weft_omp():
    """Why a target of weft-omp is missed, by experiment."""
    return load("weft_omp")


def observation(key):
    """One observation that a report section quotes."""
    return load("observations")[key]
