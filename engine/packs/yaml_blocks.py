"""Safe YAML for packs: front matter and problem blocks are untrusted input.

On top of PyYAML's safe loader this refuses anchors and aliases (no "billion laughs"), explicit
tags (no sets, binary or timestamps sneaking in), non-text mapping keys and deep nesting, and it
keeps dates as plain text, so every value is plain JSON-like data. Each problem comes with its
line, so a pack error can point at it.

The usual front matter (``key: plain text``, ``key: 12``, ``key: [a, 5]``) is read without
PyYAML by ``read_plain_yaml``, which gives what ``load_yaml`` gives or declines; PyYAML loads
only for anything more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from kvdrill.i18n import _

MAX_YAML_CHARS = 64 * 1024
MAX_YAML_DEPTH = 20

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_STR = "tag:yaml.org,2002:str"


class YamlProblem(Exception):
    """Why a YAML block was refused, at a 0-based line of that block."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


@cache
def _pack_loader(events_in_c: bool) -> Any:
    """The safe loader with anchors, aliases, explicit tags and deep nesting refused.

    ``events_in_c``: libyaml's parser reads the text into events (several times faster than
    PyYAML's scanner and parser in Python); either way PyYAML's own composer builds the nodes
    from those events, so every check below sees every event."""
    import yaml

    if events_in_c:
        from yaml.composer import Composer

        # CSafeLoader's parser, reader and constructor, with PyYAML's composer first.
        class EventsInC(Composer, yaml.CSafeLoader):
            def __init__(self, stream: str):
                yaml.CSafeLoader.__init__(self, stream)
                Composer.__init__(self)

        base: Any = EventsInC
    else:
        base = yaml.SafeLoader

    class PackLoader(base):
        def __init__(self, stream: str):
            super().__init__(stream)
            self._depth = 0

        def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
            event = self.peek_event()
            line = event.start_mark.line if event.start_mark else 0
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise YamlProblem(
                    line, _("YAML anchors and aliases (& and *) are not allowed in a pack")
                )
            if (tag := getattr(event, "tag", None)) is not None:
                shown = tag.replace("tag:yaml.org,2002:", "!!", 1)
                raise YamlProblem(
                    line, _("YAML tags such as {tag} are not allowed in a pack").format(tag=shown)
                )
            self._depth += 1
            try:
                if self._depth > MAX_YAML_DEPTH:
                    raise YamlProblem(
                        line,
                        _("YAML nested more than {most} levels deep").format(most=MAX_YAML_DEPTH),
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    # Dates stay text: a pack's values are plain data, and a version like 2024-05-01 is a label.
    PackLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return PackLoader


def _events_in_c(text: str) -> bool:
    """Whether libyaml reads ``text``: when PyYAML has it, and the text has no character
    PyYAML's reader refuses (its reader words that error) nor a tab (which libyaml takes in
    places where PyYAML refuses it), so both read the same (tests/test_yaml_events.py)."""
    import yaml
    from yaml.reader import Reader

    if not getattr(yaml, "__with_libyaml__", False) or "\t" in text:
        return False
    return not Reader.NON_PRINTABLE.search(text)


@dataclass(frozen=True)
class LoadedYaml:
    value: Any
    key_lines: dict[str, int]  # top-level mapping key -> its 0-based line in the block


def _check_keys(node: Any) -> None:
    """Keys are text and appear once: PyYAML would silently keep only the last of a repeat."""
    import yaml

    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag != _STR:
                    raise YamlProblem(
                        key.start_mark.line, _("YAML mapping keys must be plain text")
                    )
                if key.value in seen:
                    raise YamlProblem(
                        key.start_mark.line,
                        _("YAML key `{key}` appears twice").format(key=key.value),
                    )
                seen.add(key.value)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def load_yaml(text: str) -> LoadedYaml:
    """Load one YAML document of plain data, or raise ``YamlProblem`` saying where and why."""
    import yaml

    if len(text) > MAX_YAML_CHARS:
        raise YamlProblem(
            0, _("YAML block is over {most} KiB; keep it short").format(most=MAX_YAML_CHARS // 1024)
        )
    if _events_in_c(text):
        try:
            return _load(text, True)
        except yaml.YAMLError:
            pass  # read again below: PyYAML's own parser words the error and points at it
    try:
        return _load(text, False)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "unreadable"
        raise YamlProblem(
            mark.line if mark else 0, _("invalid YAML: {problem}").format(problem=problem)
        ) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, max(exc.position, 0))
        raise YamlProblem(
            line,
            _("invalid YAML: character {character} is not allowed").format(
                character=f"U+{exc.character:04X}"
            ),
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(0, _("invalid YAML: {problem}").format(problem=exc)) from None


def _load(text: str, events_in_c: bool) -> LoadedYaml:
    """``text`` loaded; PyYAML's errors are raised as they are."""
    import yaml

    loader = _pack_loader(events_in_c)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return LoadedYaml(None, {})
        _check_keys(node)
        value = loader.construct_document(node)
    finally:
        loader.dispose()
    key_lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _value in node.value:
            key_lines.setdefault(key.value, key.start_mark.line)
    return LoadedYaml(value, key_lines)


# --- the usual front matter, without PyYAML ------------------------------------------------------

# ``key: value`` at the start of a line, one space after the colon, nothing at the end.
_PLAIN_LINE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*): (\S(?:.*\S)?)\Z")
# An int as PyYAML reads it and writes it back the same (no 0-prefix octal, no 1_000).
_PLAIN_INT_RE = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")
# A word inside [ ]: what PyYAML reads as that very text in a flow sequence.
_FLOW_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")
# Plain words PyYAML reads as booleans or null, and a few more to be safe.
_NOT_TEXT = frozenset("yes no true false on off null y n".split())


def _plain_scalar(value: str, flow: bool) -> str | int | None:
    """``value`` as PyYAML reads it when that is plainly text or an int, else None."""
    if _PLAIN_INT_RE.match(value):
        return int(value)
    if value.lower() in _NOT_TEXT:
        return None
    if flow:
        return value if _FLOW_WORD_RE.match(value) else None
    # Text starting with a letter, with no ':' or '#' (a mapping or a comment could start
    # there) and nothing YAML would refuse or read otherwise (isprintable is stricter).
    if value[0].isalpha() and ":" not in value and "#" not in value and value.isprintable():
        return value
    return None


def read_plain_yaml(text: str) -> LoadedYaml | None:
    """A mapping of ``key: value`` lines whose values are plain text, ints or ``[a, b]``
    lists of such words, read without PyYAML: exactly what ``load_yaml`` gives for it. None
    for anything else (quotes, comments, nesting, repeated keys...): ask ``load_yaml``."""
    if len(text) > MAX_YAML_CHARS:
        return None
    value: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    for number, line in enumerate(text.split("\n")):
        if not line.strip(" "):
            continue
        match = _PLAIN_LINE_RE.match(line)
        if not match or match.group(1) in value or match.group(1).lower() in _NOT_TEXT:
            return None
        raw = match.group(2)
        if raw[0] == "[":
            if raw[-1] != "]":
                return None
            inner = raw[1:-1].strip(" ")
            items = (
                [_plain_scalar(item.strip(" "), True) for item in inner.split(",")] if inner else []
            )
            if None in items:
                return None
            value[match.group(1)] = items
        else:
            scalar = _plain_scalar(raw, False)
            if scalar is None:
                return None
            value[match.group(1)] = scalar
        key_lines[match.group(1)] = number
    return LoadedYaml(value, key_lines) if value else None
