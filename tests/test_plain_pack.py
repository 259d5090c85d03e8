"""The parser's fast path (engine/packs/plain_pack.py) reads a pack exactly as the full parser
does: every pack here is parsed both ways, and both must give the same ParsedPack, or the same
errors with the same lines (and the same count of sound cards and key numbers read)."""

from __future__ import annotations

import inspect
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import test_hostile_packs
import test_pack_parser

from kvdrill.app.services.pack_files import parse_pack
from kvdrill.engine.errors import PackErrors
from kvdrill.engine.packs import parser as pack_parser
from kvdrill.engine.packs import plain_pack
from kvdrill.engine.packs.parser import parse_pack_text

ROOT = Path(__file__).resolve().parent.parent
DECKS = sorted(path for path in (ROOT / "decks").glob("*.md") if path.name != "README.md")
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "packs").rglob("*.md"))
FRONT = test_pack_parser.FRONT


def outcome(parse: Callable[[], object]) -> object:
    try:
        return parse()
    except PackErrors as exc:
        return (
            type(exc).__name__,
            [str(problem) for problem in exc.problems],
            getattr(exc, "sound_cards", None),
            getattr(exc, "key_numbers", None),
        )


def both_ways(
    parse: Callable[[], object], monkeypatch: pytest.MonkeyPatch
) -> tuple[object, object, bool]:
    """(with the fast path, with the full parser only, whether the fast path read it)."""
    real = plain_pack.parse_plain_pack
    taken: list[bool] = []

    def watched(parser):  # type: ignore[no-untyped-def]
        result = real(parser)
        taken.append(result is not None)
        return result

    with monkeypatch.context() as patch:
        patch.setattr(pack_parser, "parse_plain_pack", watched)
        fast = outcome(parse)
    with monkeypatch.context() as patch:
        patch.setattr(pack_parser, "parse_plain_pack", lambda parser: None)
        full = outcome(parse)
    return fast, full, any(taken)


@pytest.mark.parametrize(
    "path", DECKS + FIXTURES, ids=lambda path: f"{path.parent.name}/{path.name}"
)
def test_every_deck_and_fixture_parses_the_same_both_ways(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, full, taken = both_ways(lambda: parse_pack(path), monkeypatch)
    assert fast == full
    if path in DECKS:
        assert taken, "every bundled deck is plain enough for the fast path"


def parametrized_texts(module: object) -> list[str]:
    """Every text a test module's parametrized cases give to the parser."""
    texts: list[str] = []
    for _, function in inspect.getmembers(module, inspect.isfunction):
        for mark in getattr(function, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            for case in mark.args[1]:
                values = case.values if hasattr(case, "values") else case
                values = values if isinstance(values, tuple) else (values,)
                texts.extend(value for value in values if isinstance(value, str))
    return texts


def test_the_parser_tests_own_cases_parse_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = parametrized_texts(test_pack_parser) + parametrized_texts(test_hostile_packs)
    assert len(texts) > 100
    read_fast = 0
    for text in texts:
        in_prompt = FRONT + "## C {#c}\n### Prompt\n" + text + "\n### Answer\nA.\n"
        for whole in (text, FRONT + text, FRONT + "## C {#c}\n" + text, in_prompt):
            fast, full, taken = both_ways(
                lambda whole=whole: parse_pack_text(whole, "p.md"), monkeypatch
            )
            assert fast == full, whole
            read_fast += taken
    assert read_fast > 20


FRONT_MATTERS = [
    "pack: demo\ntitle: Demo\nversion: 1",
    "pack: demo\ntitle: Demo\nversion: 1.10",
    "pack: demo\ntitle: Demo\nversion: .nan",
    "pack: demo\ntitle: Demo\nversion: true",
    "pack: demo\ntitle: Demo\nversion: null",
    "pack: demo\ntitle: Demo\nversion: 2024-05-01",
    "pack: demo\ntitle: Demo\nversion: [1]",
    "pack: demo\ntitle: Demo",
    "title: Demo\nversion: 1",
    "pack: 3\ntitle: Demo\nversion: 1",
    "pack: Demo Pack\ntitle: Demo\nversion: 1",
    "pack: demo\ntitle: ''\nversion: 1",
    "pack: demo\ntitle: yes\nversion: 1",
    "pack: demo\ntitle: Demo\nversion: 1\nlang: vi",
    "pack: demo\ntitle: Demo\nversion: 1\nlang: 5",
    "pack: demo\ntitle: Demo\nversion: 1\nlang: english language",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: [5, 7, 17]",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: [yes]",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: [1, '2', 03-05]",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: 3",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: 9-1",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: {a: 1}",
    "pack: demo\ntitle: Demo\nversion: 1\nlessons: [1.5]",
    "pack: demo\ntitle: Demo\nversion: 1\ntags: [kv, gqa]",
    "pack: demo\ntitle: Demo\nversion: 1\ntags: kv gqa",
    "pack: demo\ntitle: Demo\nversion: 1\ntags: [1]",
    "pack: demo\ntitle: Demo\nversion: 1\ntags: [a, [b]]",
    "pack: demo\ntitle: Demo\nversion: 1\ntags: [bad tag!]",
    "pack: demo\ntitle: Demo\nversion: 1\ndescription: null",
    "pack: demo\ntitle: Demo\nversion: 1\ndescription: '  spaced  '",
    "pack: demo\ntitle: Demo\nversion: 1\ndescripton: typo",
    "pack: demo\ntitle: Demo\nversion: 1\npack: again",
    "- a list",
    "just text",
    "",
]


@pytest.mark.parametrize("front", FRONT_MATTERS)
def test_front_matter_values_of_every_type_parse_the_same_both_ways(
    front: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = f"---\n{front}\n---\n\n## C {{#c}}\n### Prompt\nQ?\n### Answer\nA.\n"
    fast, full, _ = both_ways(lambda: parse_pack_text(text, "p.md"), monkeypatch)
    assert fast == full


# --- generated and mutated packs -----------------------------------------------------------------

ODD_LINES = [
    *test_pack_parser.PIECES,
    *test_pack_parser.TRICKY_LINES,
    *test_hostile_packs.FRAGMENTS,
    "- [x] right",
    "- a wrapped",
    "> quote",
    " - one-space item",
    "   - three-space item",
    "* other marker",
    "2) other delimiter",
    "lazy text",
    "  continuation",
    " one-space continuation",
    "     five spaces",
    "10. ten",
    "* * *",
    "### Problme",
    "#### deeper",
    "##### Step",
    "# top",
    "Tags: x y",
    "Tags: bad!",
    "Lessons: 9-1",
    "Lessons: 1-300",
    "Lessons: 3",
    "Colour: red",
    "Q:",
    "A:",
    "  A: indented answer",
    "```problem",
    "```python",
    "ask: x",
    "| a | b |",
    "\u00a0",
    "- item {#c}",
    "- item {#nowhere}",
    "- `claim: kv_bytes_per_token model=llama-3.1-8b = 128 KiB`",
    "- x `claim:` y",
    "## Again {#c}",
    "## No id",
    "## Bad id {#Bad}",
    "## T {#t} solid priority",
    "## T {#t} #Bad!",
    "## Tags twice {#tt} #kv #kv #KV",
]
BAD_FRONT_LINES = [line for front in FRONT_MATTERS for line in front.split("\n")]


def seeds() -> list[str]:
    """Front matter plus a few consecutive cards of every deck and fixture that parses."""
    texts: list[str] = []
    for path in DECKS + FIXTURES:
        text = path.read_bytes().decode("utf-8", errors="replace")
        head, sep, body = text.partition("\n## ")
        if not sep or not head.startswith("---"):
            continue
        cards = ("## " + body).split("\n## ")
        for start in range(0, len(cards), 3):
            texts.append(head + "\n" + "\n## ".join(cards[start : start + 3]))
    return texts


def mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(0, 3)):
        at = rng.randrange(len(lines))
        operation = rng.randrange(10)
        if operation == 0:
            lines.insert(at, rng.choice(ODD_LINES))
        elif operation == 1 and len(lines) > 1:
            del lines[at]
        elif operation == 2:
            lines.insert(at, lines[at])
        elif operation == 3 and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif operation == 4:
            lines[at] = rng.choice([" ", "  ", "   ", "    ", "\t"]) + lines[at]
        elif operation == 5:
            lines[at] += rng.choice([" ", "\t", " #", "  ##", "\u3000"])
        elif operation == 6:
            ids = [line for line in lines if line.startswith("## ")]
            if ids:
                lines[at] = rng.choice(ids)
        elif operation == 7:
            front_end = lines.index("---", 1) if "---" in lines[1:] else 1
            lines.insert(rng.randint(1, front_end), rng.choice(BAD_FRONT_LINES))
        elif operation == 8 and lines[at].startswith("- ") and " " in lines[at][2:]:
            word = lines[at].rindex(" ")
            indent = rng.choice(["  ", "   ", " ", "\t", ""])
            lines[at : at + 1] = [lines[at][:word], indent + lines[at][word + 1 :]]
        elif operation == 9:  # right under a list item, where lists end or go on
            items = [n for n, line in enumerate(lines) if line[:2] in ("- ", "* ", "1.")]
            if items:
                lines.insert(rng.choice(items) + 1, rng.choice(ODD_LINES))
    text = "\n".join(lines)
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    if rng.random() < 0.1:
        text = "\ufeff" + text
    if rng.random() < 0.2:
        text = text.rstrip("\n")
    return text


def test_generated_and_mutated_packs_parse_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(20261130)
    pool = seeds()
    read_fast = failed = 0
    for _ in range(400):
        text = mutate(rng.choice(pool), rng)
        fast, full, taken = both_ways(
            lambda text=text: parse_pack_text(text, "gen.md"), monkeypatch
        )
        assert fast == full, text
        read_fast += taken
        failed += isinstance(full, tuple)
    # Both kinds of outcome are well represented, so the comparison says something.
    assert read_fast > 100 and failed > 100, (read_fast, failed)


# Three cards with every section; @ marks the places where one odd line goes in turn.
EVERY_PLACE = """## Recall {#r} priority #kv
Lessons: 05, 07
@
### Prompt
Q?
@
### Answer
- A, wrapped
  over two lines.
@
### Key numbers
- 128 KiB `claim: kv_bytes_per_token model=llama-3.1-8b = 128 KiB`
@
- 320 KiB, wrapped
  over two lines
@
### Follow-up
Q: and then?
@
A: this.
@
### Tip
Say it.

## Choice {#m}
### Prompt
Which?
### Choices
- [ ] one
@
- [x] two,
  wrapped
- [ ] three
@
### Explanation
Because.
### Related
- Derive it. {#p}
@
- Why?

## Problem {#p}
### Problem
@
```problem
@
quantity: kv_bytes_per_token
```
@
### Tip
Units.
"""


def test_every_odd_line_in_every_place_of_a_card_parses_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parts = EVERY_PLACE.split("@\n")
    plain, _, taken = both_ways(
        lambda: parse_pack_text(FRONT + "".join(parts), "p.md"), monkeypatch
    )
    assert taken and len(plain.cards) == 4  # type: ignore[attr-defined]
    for place in range(1, len(parts)):
        for line in dict.fromkeys(ODD_LINES):
            text = FRONT + "".join(parts[:place]) + line + "\n" + "".join(parts[place:])
            fast, full, _ = both_ways(lambda text=text: parse_pack_text(text, "p.md"), monkeypatch)
            assert fast == full, text
    # And every odd line in place of the first card's heading.
    rest = "".join(parts).split("\n", 1)[1]
    for line in dict.fromkeys(ODD_LINES):
        text = FRONT + line + "\n" + rest
        fast, full, _ = both_ways(lambda text=text: parse_pack_text(text, "p.md"), monkeypatch)
        assert fast == full, text


YAML_VALUES = [
    "demo", "Demo pack", "Bộ nhớ và dung lượng", "1", "0", "12", "01", "08", "1.5", "1.10",
    "1e3", "0x1F", "1_000", "-1", "+1", ".5", ".inf", ".nan", "Inf", "NaN", "yes", "No", "ON",
    "off", "true", "False", "null", "Null", "~", "y", "n", "a: b", "a:b", "a #b", "a#b",
    "#a", "[a, b]", "[a,b]", "[ a ]", "[]", "[ ]", "[1, 2]", "[05]", "[yes]", "[a b]",
    "['a']", "[a, ]", "[a-b, c.d, e_f]", "[a, [b]]", "{a: 1}", "'quoted'", '"dq"', "a 'b' c",
    'say "hi"', "a [b] c", "a {b} c", "x!", "a & b", "a * b", "a | b", "a > b", "100 %",
    "a@b", "`a`", "2024-05-01", "v1.2.3", "x\u00a0y", "x\u2028y", "x\ufeffy", "x\ty",
    "- item", "? q", "!tag a", "&anchor a", "*alias", "|", ">", "=", "<<", "trailing\u3000",
    "a  b", "é", "ß", "Ωmega", "x" * 70000,
]  # fmt: skip
YAML_KEYS = ["pack", "title", "version", "lang", "lessons", "tags", "description", "yes",
             "Null", "on", "x-y", "_k", "1", "a b", "é"]  # fmt: skip


def test_plain_yaml_is_read_as_pyyaml_reads_it_or_left_to_it() -> None:
    from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml, read_plain_yaml

    rng = random.Random(7)
    texts = [f"{key}: {value}" for key in YAML_KEYS for value in YAML_VALUES]
    for _ in range(600):
        lines = [f"{rng.choice(YAML_KEYS)}: {rng.choice(YAML_VALUES)}" for _ in range(5)]
        lines.insert(rng.randrange(6), rng.choice(["", "  ", "# comment", " indented: 1", "x:1"]))
        texts.append("\n".join(lines))
    read = 0
    for text in texts:
        plain = read_plain_yaml(text)
        if plain is None:
            continue
        read += 1
        try:
            loaded = load_yaml(text)
        except YamlProblem as problem:
            raise AssertionError(f"read {text!r}, which PyYAML refuses: {problem}") from None
        # repr tells 1 from True and from "1", where == would not.
        assert repr((plain.value, plain.key_lines)) == repr((loaded.value, loaded.key_lines))
    assert read > 200


def test_a_plain_pack_is_parsed_without_pydantic_yaml_or_markdown_it() -> None:
    # A deck without problem blocks: those are YAML that PyYAML reads.
    fence = re.compile(r"^(?:```|~~~)\s*problem", re.MULTILINE)
    deck = next(path for path in DECKS if not fence.search(path.read_text(encoding="utf-8")))
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from kvdrill.app.services.pack_files import parse_pack\n"
        f"pack = parse_pack(Path({str(deck)!r}))\n"
        "print(len(pack.cards), sorted({'pydantic', 'yaml', 'markdown_it'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    cards, loaded = done.stdout.split(" ", 1)
    assert int(cards) > 0
    assert loaded.strip() == "[]"


def test_every_control_character_is_refused_in_ascii_text_and_in_any_other() -> None:
    from kvdrill.engine.packs.source import check_pack_text

    for code in range(0xA0):
        allowed = code in (9, 10, 13) or 32 <= code < 127
        # In ASCII text (checked on its bytes), then in text that is not.
        for text, column in ((f"{FRONT}ab{chr(code)}\n", 3), (f"{FRONT}é{chr(code)}\n", 2)):
            try:
                check_pack_text(text, "p.md")
            except PackErrors as exc:
                message = str(exc.problems[0])
                assert not allowed, (code, message)
                expected = (
                    "p.md:7: binary file"
                    if code == 0
                    else f"p.md:7: control character U+{code:04X} at column {column};"
                )
                assert message.startswith(expected), (code, message)
            else:
                assert allowed, code
