"""Reading the parts of a pack both parsers read alike, recording every problem.

``PackReader`` holds one pack's lines and its problems (``path:line: message``), and reads its
front matter, field values, list sections (key numbers, choices, related prompts), a
```problem block and a follow-up. The full parser (engine/packs/parser.py) extends it with the
pack's structure; the fast path (engine/packs/plain_pack.py) finds the structure itself and
hands each part to the same reader, so every message still comes from one place.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from kvdrill.engine.errors import Located
from kvdrill.engine.packs.blocks import Block, Section
from kvdrill.engine.packs.card_view import MAX_CHOICES, MIN_CHOICES
from kvdrill.engine.packs.front_matter import (
    FRONT_MATTER_KEYS,
    FRONT_MATTER_TYPES,
    WRONG_TYPE,
    front_matter_model,
    plain_front_matter,
)
from kvdrill.engine.packs.grammar import (
    NEWLINES_RE,
    SIMPLE_ITEM_RE,
    THEMATIC_BREAK_RE,
    close_options,
    dedupe,
    suggest,
)
from kvdrill.engine.packs.headings import id_problem, normalize_tag, shorten, tag_problem
from kvdrill.engine.packs.model import Choice, KeyNumber, PackMeta, ParsedCard, Related
from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml, read_plain_yaml
from kvdrill.engine.records import unchecked
from kvdrill.i18n import _

MAX_ERRORS_PER_FILE = 100
MAX_LESSON_RANGE = 100

_ITEM_MARKER_RE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|\Z)")
_CHECKBOX_RE = re.compile(r"\[([ xX])\](?:[ \t]+|\Z)")
_LINK_RE = re.compile(r"\s*\{#([^{}]*)\}\s*\Z")
_CLAIM_RE = re.compile(r"\s*(`+)[ \t]*claim:(.*?)\1\s*\Z", re.DOTALL)
_LESSON_RANGE_RE = re.compile(r"(\d{1,4})-(\d{1,4})\Z")
_LANG_RE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*\Z")
_RANGE_DASH_RE = re.compile(r"\s*[-–]\s*")
_LIST_SPLIT_RE = re.compile(r"[,\s]+")


class PackReader:
    """One pack's text as lines, the problems found in it so far, and the readers of its parts."""

    def __init__(self, text: str, path: str, content_hash: str):
        self.path = path
        self.content_hash = content_hash
        self.text = text[1:] if text.startswith("\ufeff") else text
        # str.split is several times faster than the regex, and the same without a \r.
        lines = self.text.split("\n") if "\r" not in self.text else NEWLINES_RE.split(self.text)
        self.lines = lines
        self.errors: list[Located] = []
        self.key_numbers_read: list[KeyNumber] = []  # of every card, for claims in a broken file

    # -- helpers -----------------------------------------------------------------------------

    def capped_errors(self) -> list[Located]:
        """The first ``MAX_ERRORS_PER_FILE`` errors, then one line saying how many more."""
        errors = sorted(self.errors)
        if len(errors) <= MAX_ERRORS_PER_FILE:
            return errors
        rest = errors[MAX_ERRORS_PER_FILE]
        hidden = len(errors) - MAX_ERRORS_PER_FILE
        return errors[:MAX_ERRORS_PER_FILE] + [
            Located(
                self.path,
                rest.line,
                _("... and {count} more errors in this file").format(count=hidden),
            )
        ]

    def error(self, line: int, message: str) -> None:
        """Record a problem at a 0-based line."""
        self.errors.append(Located(self.path, line + 1, message))

    def source(self, start: int, end: int) -> str:
        """Lines [start, end) as written, without leading or trailing blank lines."""
        start, end = self.trimmed(start, end)
        return "\n".join(self.lines[start:end])

    def trimmed(self, start: int, end: int) -> tuple[int, int]:
        """Lines [start, end) without leading or trailing blank lines (start == end: none)."""
        lines = self.lines
        while start < end and not lines[start].strip(
            " \t"
        ):  # blank as Markdown sees it: spaces and tabs
            start += 1
        while end > start and not lines[end - 1].strip(" \t"):
            end -= 1
        return start, end

    def item_text(self, start: int, end: int) -> str:
        """A list item's Markdown without its bullet: first line, then dedented continuation."""
        if end - start == 1:  # the usual one-line item, without splitting and joining
            return _ITEM_MARKER_RE.sub("", self.lines[start], count=1).strip()
        first, *rest = self.source(start, end).split("\n")
        first = _ITEM_MARKER_RE.sub("", first, count=1)
        if not rest:
            return first.strip()
        return (first.strip() + "\n" + textwrap.dedent("\n".join(rest))).strip()

    def front_matter(self, block: Block, vouched: bool = False) -> PackMeta | None:
        """The pack's metadata, or None with every problem recorded. With ``vouched`` (the fast
        path's shortcuts), plain YAML is read without PyYAML and plain values skip the model."""
        offset = block.start + 1  # the YAML starts on the line after ---
        loaded = read_plain_yaml(block.content) if vouched else None
        try:
            loaded = loaded or load_yaml(block.content)
        except YamlProblem as problem:
            self.error(
                offset + problem.line,
                _("front matter: {problem}").format(problem=problem.message),
            )
            return None
        if not isinstance(loaded.value, dict):
            self.error(
                block.start,
                _(
                    "front matter must be `key: value` lines with at least pack:, title: and "
                    "version:"
                ),
            )
            return None

        def line_of(key: object) -> int:
            if isinstance(key, str) and key in loaded.key_lines:
                return offset + loaded.key_lines[key]
            return block.start

        typed = True
        reported: set[object] = set()
        if not (vouched and plain_front_matter(loaded.value)):
            typed = self.front_matter_types(loaded.value, block.start, line_of, reported)
        # Check the meaning of every value whose type was right, even if another key failed.
        values = {k: v for k, v in loaded.value.items() if k not in reported}
        errors_before = len(self.errors)
        if isinstance(pack := values.get("pack"), str) and (bad := id_problem(pack, _("pack id"))):
            self.error(line_of("pack"), bad)
        if isinstance(title := values.get("title"), str) and not title.strip():
            self.error(line_of("title"), _("front-matter `title` is empty"))
        if isinstance(lang := values.get("lang"), str) and not _LANG_RE.match(lang):
            self.error(
                line_of("lang"),
                _('lang "{lang}" is not a language tag such as en, vi or en-GB').format(
                    lang=shorten(lang)
                ),
            )
        if isinstance(original := values.get("edition_of"), str):
            if bad := id_problem(original, _("edition_of pack id")):
                self.error(line_of("edition_of"), bad)
            elif original == values.get("pack"):
                self.error(line_of("edition_of"), _("a pack cannot be an edition of itself"))
        lessons = self.lessons(values.get("lessons", []), line_of("lessons"))
        tags = self.tags(values.get("tags", []), line_of("tags"))
        if not typed or len(self.errors) > errors_before or lessons is None or tags is None:
            return None
        # Every type was right, so these are the values as written.
        return PackMeta(
            pack=values["pack"],
            title=values["title"].strip(),
            version=str(values["version"]),
            lang=values.get("lang", "en"),
            lessons=lessons,
            tags=tags,
            description=values.get("description", "").strip(),
            edition_of=values.get("edition_of"),
        )

    def front_matter_types(
        self,
        value: dict[str, Any],
        start: int,
        line_of: Callable[[object], int],
        reported: set[object],
    ) -> bool:
        """Whether every front-matter value has its type, recording one error per key that
        has not (in ``reported`` too)."""
        from pydantic import ValidationError

        try:
            front_matter_model().model_validate(value)
            return True
        except ValidationError as exc:
            for err in exc.errors():
                key = err["loc"][0] if err["loc"] else ""
                if key in reported:
                    continue  # one message per key, not one per branch of a union
                reported.add(key)
                if err["type"] == "missing":
                    self.error(
                        start, _("front matter has no `{key}:` (it is required)").format(key=key)
                    )
                elif err["type"] == "extra_forbidden":
                    self.error(
                        line_of(key),
                        _("unknown front-matter key `{key}`; {hint}").format(
                            key=key,
                            hint=suggest(str(key), FRONT_MATTER_KEYS, "`{}`", _("the keys are")),
                        ),
                    )
                else:
                    self.error(
                        line_of(key),
                        _("front-matter `{key}`: {reason}").format(
                            key=key,
                            reason=_(FRONT_MATTER_TYPES.get(str(key), WRONG_TYPE)),
                        ),
                    )
            return False

    def lessons(self, value: list[str | int] | str | int, line: int) -> list[str] | None:
        """Lesson numbers, zero-padded to two digits so 5 and 05 are one lesson."""
        if isinstance(value, str):
            raw = [value]
        elif isinstance(value, int):
            raw = [str(value)]
        else:
            raw = [str(v) for v in value]
        text = _RANGE_DASH_RE.sub("-", ", ".join(raw))
        result: list[str] = []
        for word in _LIST_SPLIT_RE.split(text.strip()):
            if not word:
                continue
            if word.isdigit():
                result.append(f"{int(word):02d}")
            elif match := _LESSON_RANGE_RE.match(word):
                low, high = int(match.group(1)), int(match.group(2))
                if low > high or high - low > MAX_LESSON_RANGE:
                    self.error(
                        line,
                        _('lesson range "{range}" is backwards or too wide').format(range=word),
                    )
                    return None
                result.extend(f"{n:02d}" for n in range(low, high + 1))
            else:
                self.error(
                    line,
                    _('lesson "{lesson}" is not a lesson number or a range like 03-05').format(
                        lesson=shorten(word)
                    ),
                )
                return None
        return dedupe(result)

    def tags(self, value: list[str] | str, line: int) -> list[str] | None:
        words = _LIST_SPLIT_RE.split(value) if isinstance(value, str) else value
        result: list[str] = []
        for word in words:
            tag = normalize_tag(word)
            if not tag:
                continue
            if bad := tag_problem(tag):
                self.error(line, bad)
                return None
            result.append(tag)
        return dedupe(result)

    def simple_list(self, section: Section) -> bool:
        """Read a section that is plainly a tight list of one-line items without markdown-it.

        When every line starts at column 0 with the same marker, a space and some text (and
        none is a thematic break such as ``- - -``), CommonMark reads one list with one item per
        line. Most list sections look like that, and markdown-it's list rule is slow.
        """
        start, end = self.trimmed(section.line + 1, section.end)
        if start == end:
            return False
        marker = None
        for line in self.lines[start:end]:
            match = SIMPLE_ITEM_RE.match(line)
            if not match or THEMATIC_BREAK_RE.match(line):
                return False
            this = match.group(1) or match.group(2)
            if marker is None:
                marker = this
            elif this != marker:
                return False
        block = Block("list", start, end, items=[(n, n + 1) for n in range(start, end)])
        section.blocks = [block]
        return True

    def list_items(self, section: Section, what: str) -> list[tuple[int, int]]:
        """The items of a section that must hold only a list."""
        items: list[tuple[int, int]] = []
        for block in section.blocks:
            if block.kind == "list":
                items.extend(block.items)
            else:
                self.error(
                    block.start,
                    _(
                        "### {section} holds only a list of {what}, each item starting with - "
                    ).format(section=section.name, what=what),
                )
        if not section.blocks:
            self.error(section.line, _("### {section} is empty").format(section=section.name))
        return items

    def key_numbers(self, section: Section) -> list[KeyNumber]:
        result: list[KeyNumber] = []
        for start, end in self.list_items(section, _("figures")):
            text = self.item_text(start, end)
            claim: str | None = None
            line = start
            # Without a backtick there is no claim, and no regex to run.
            if match := _CLAIM_RE.search(text) if "`" in text else None:
                claim = match.group(2).strip()
                line = start + text[: match.start(1)].count("\n")
                text = text[: match.start()].rstrip()
                if not claim:
                    self.error(
                        line, _("empty claim: write `claim: QUANTITY name=value ... = VALUE`")
                    )
            elif "`" in text and "`claim:" in text.replace("` claim:", "`claim:"):
                self.error(start, _("a claim must come last in its key-numbers item"))
            if not text:
                self.error(start, _("key-numbers item is empty"))
            result.append(unchecked(KeyNumber, {"text": text, "claim": claim, "line": line + 1}))
        self.key_numbers_read.extend(result)
        return result

    def choices(self, section: Section) -> list[Choice]:
        items = self.list_items(section, _("choices"))
        lists = [b for b in section.blocks if b.kind == "list"]
        if len(lists) > 1:
            self.error(
                lists[1].start,
                _(
                    "### Choices holds one list; changing the bullet character or numbering "
                    "starts a second one"
                ),
            )
        result: list[Choice] = []
        for start, end in items:
            text = self.item_text(start, end)
            box = _CHECKBOX_RE.match(text)
            if not box:
                self.error(
                    start,
                    _(
                        "choice has no [ ] or [x] box: write `- [x] ...` for a correct "
                        "choice and `- [ ] ...` for a wrong one"
                    ),
                )
                continue
            text = text[box.end() :].strip()
            if not text:
                self.error(start, _("choice is empty"))
            result.append(unchecked(Choice, {"text": text, "correct": box.group(1) != " "}))
        count = sum(len(b.items) for b in lists)
        if lists and not MIN_CHOICES <= count <= MAX_CHOICES:
            self.error(
                section.line,
                _("### Choices has {count} choices; write {least} to {most}").format(
                    count=count, least=MIN_CHOICES, most=MAX_CHOICES
                ),
            )
        if result and not any(c.correct for c in result):
            self.error(section.line, _("no choice is marked correct: mark it `- [x] ...`"))
        return result

    def related(self, section: Section, ids: dict[str, int]) -> list[Related]:
        result: list[Related] = []
        for start, end in self.list_items(section, _("related prompts")):
            text = self.item_text(start, end)
            card: str | None = None
            if match := _LINK_RE.search(text):
                card = match.group(1).strip()
                text = text[: match.start()].rstrip()
                if card not in ids:
                    self.error(
                        start,
                        _(
                            "related item links to {card}, but this pack has no card with that id"
                        ).format(card=f"{{#{shorten(card)}}}")
                        + (
                            _("; did you mean {card}?").format(card=f"{{#{close[0]}}}")
                            if (close := close_options(card, ids))
                            else ""
                        ),
                    )
            if not text:
                self.error(start, _("related item has no prompt"))
            result.append(unchecked(Related, {"prompt": text, "card": card}))
        return result

    def problem(self, section: Section) -> tuple[dict[str, Any] | None, int | None, dict[str, int]]:
        """The block's mapping, the 1-based line of its fence, and the line of each field."""
        fences = [
            b for b in section.blocks if b.kind == "fence" and b.info.split()[:1] == ["problem"]
        ]
        if not fences:
            self.error(section.line, _("### Problem has no ```problem block"))
            return None, None, {}
        # One error for whatever else is there: how Markdown splits it into blocks is no help.
        if other := next((b for b in section.blocks if b is not fences[0]), None):
            if other in fences:
                said = _("### Problem holds one ```problem block and not a second ```problem block")
            else:
                said = _("### Problem holds one ```problem block and not anything else")
            self.error(other.start, said)
        block = fences[0]
        try:
            loaded = load_yaml(block.content)
        except YamlProblem as problem:
            self.error(
                block.start + 1 + problem.line,
                _("problem block: {problem}").format(problem=problem.message),
            )
            return None, block.start + 1, {}
        if not isinstance(loaded.value, dict) or not loaded.value:
            self.error(block.start, _("problem block must be YAML `field: value` lines"))
            return None, block.start + 1, {}
        fence_line = block.start + 1
        # The YAML starts on the line after the fence; key_lines count from 0 within it.
        field_lines = {key: fence_line + 1 + line for key, line in loaded.key_lines.items()}
        return loaded.value, fence_line, field_lines

    def followup(self, section: Section, parent: dict[str, Any]) -> ParsedCard | None:
        """A ``Q:`` paragraph and an ``A:`` paragraph (or line) -> a card of its own."""
        # The answer starts at the first later line beginning with A:, outside code and HTML.
        hidden = {
            line
            for block in section.blocks
            if block.kind in ("fence", "html")
            for line in range(block.start, block.end)
        }
        first = section.blocks[0] if section.blocks else None
        if (
            first is None
            or first.kind != "paragraph"
            or not self.lines[first.start].lstrip().startswith("Q:")
        ):
            self.error(
                section.line,
                _("### Follow-up starts with a paragraph `Q: the question`, then `A: its answer`"),
            )
            return None
        answer_line = next(
            (
                line
                for line in range(first.start + 1, section.end)
                if line not in hidden and self.lines[line].lstrip().startswith("A:")
            ),
            None,
        )
        if answer_line is None:
            self.error(section.line, _("### Follow-up has a Q: but no A: line with its answer"))
            return None
        question = self.source(first.start, answer_line).lstrip().removeprefix("Q:").strip()
        answer = self.source(answer_line, section.end).lstrip().removeprefix("A:").strip()
        if not question:
            self.error(first.start, _("follow-up question after Q: is empty"))
        if not answer:
            self.error(answer_line, _("follow-up answer after A: is empty"))
        if not (question and answer and parent["key"]):
            return None
        return ParsedCard(
            key=f"{parent['key']}/follow-up",
            kind="followup",
            title=parent["title"],
            status=parent["status"],
            tags=list(parent["tags"]),
            lessons=list(parent["lessons"]),
            prompt=question,
            answer=answer,
            parent=parent["key"],
            line=section.line + 1,
        )
