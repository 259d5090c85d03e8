"""Safe YAML for packs: front matter and problem blocks are untrusted input.

On top of PyYAML's safe loader this refuses anchors and aliases (no "billion laughs"), explicit
tags (no sets, binary or timestamps sneaking in), non-text mapping keys and deep nesting, and it
keeps dates as plain text, so every value is plain JSON-like data. Each problem comes with its
line, so a pack error can point at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

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


class _PackLoader(yaml.SafeLoader):
    """The safe loader with anchors, aliases, explicit tags and deep nesting refused."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        event = self.peek_event()
        line = event.start_mark.line if event.start_mark else 0
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlProblem(line, "YAML anchors and aliases (& and *) are not allowed in a pack")
        if (tag := getattr(event, "tag", None)) is not None:
            shown = tag.replace("tag:yaml.org,2002:", "!!", 1)
            raise YamlProblem(line, f"YAML tags such as {shown} are not allowed in a pack")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise YamlProblem(line, f"YAML nested more than {MAX_YAML_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


# Dates stay text: a pack's values are plain data, and a version like 2024-05-01 is a label.
_PackLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True)
class LoadedYaml:
    value: Any
    key_lines: dict[str, int]  # top-level mapping key -> its 0-based line in the block


def _check_keys(node: yaml.Node) -> None:
    """Keys are text and appear once: PyYAML would silently keep only the last of a repeat."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag != _STR:
                    raise YamlProblem(key.start_mark.line, "YAML mapping keys must be plain text")
                if key.value in seen:
                    raise YamlProblem(key.start_mark.line, f"YAML key `{key.value}` appears twice")
                seen.add(key.value)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def load_yaml(text: str) -> LoadedYaml:
    """Load one YAML document of plain data, or raise ``YamlProblem`` saying where and why."""
    if len(text) > MAX_YAML_CHARS:
        raise YamlProblem(0, f"YAML block is over {MAX_YAML_CHARS // 1024} KiB; keep it short")
    loader: _PackLoader | None = None
    try:
        loader = _PackLoader(text)
        node = loader.get_single_node()
        if node is None:
            return LoadedYaml(None, {})
        _check_keys(node)
        value = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "unreadable"
        raise YamlProblem(mark.line if mark else 0, f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, max(exc.position, 0))
        raise YamlProblem(
            line, f"invalid YAML: character U+{exc.character:04X} is not allowed"
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(0, f"invalid YAML: {exc}") from None
    finally:
        if loader is not None:
            loader.dispose()
    key_lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            key_lines.setdefault(key.value, key.start_mark.line)
    return LoadedYaml(value, key_lines)
