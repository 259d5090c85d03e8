"""Packs are untrusted input: every hostile file fails in one clear line, never a traceback."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_pack, parse_paths
from kvdrill.engine.errors import PackErrors
from kvdrill.engine.packs.model import MAX_PACK_BYTES
from kvdrill.engine.packs.parser import parse_pack_text
from kvdrill.engine.packs.source import MAX_PACK_LINES

HOSTILE = Path(__file__).parent / "fixtures" / "packs" / "hostile"
FRONT = "---\npack: demo\ntitle: Demo\nversion: 1\n---\n\n"
CARD = "## C {#c}\n### Prompt\nQ\n### Answer\nA\n"

# file -> the exact lines kvdrill prints for it (the path is prefixed in the test)
CORPUS = {
    "empty.md": ["1: empty file: a pack starts with --- front matter, then its cards"],
    "blank.md": ["1: empty file: a pack starts with --- front matter, then its cards"],
    "nul-byte.md": ["10: binary file (NUL byte at offset 78); a pack is UTF-8 text"],
    "png-header.md": ["3: binary file (NUL byte at offset 8); a pack is UTF-8 text"],
    "utf16.md": ["1: file is UTF-16; save it as UTF-8"],
    "latin1.md": ["7: not valid UTF-8: byte 0xe9 at offset 55 (column 7); save the file as UTF-8"],
    "no-front-matter.md": [
        "1: no front matter: a pack starts with a line ---, then pack:, title: and version: "
        "lines, then a line ---"
    ],
    "unclosed-front-matter.md": [
        "1: front matter opened here is never closed: end it with a line ---"
    ],
    "yaml-bomb.md": [
        "5: front matter: YAML anchors and aliases (& and *) are not allowed in a pack"
    ],
    "yaml-deep.md": ["5: front matter: YAML nested more than 20 levels deep"],
    "yaml-python-tag.md": [
        "3: front matter: YAML tags such as !!python/object/apply:os.system are not allowed "
        "in a pack"
    ],
    "problem-bomb.md": [
        "11: problem block: YAML anchors and aliases (& and *) are not allowed in a pack"
    ],
    "huge-heading.md": ["7: card title is 15999 characters long; keep it to 200"],
    "unclosed-fence.md": ["13: code block opened here with ``` is never closed"],
    "unclosed-comment.md": ["15: HTML comment <!-- opened here is never closed with -->"],
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_hostile_file_fails_in_clear_lines(name: str) -> None:
    path = HOSTILE / name
    with pytest.raises(PackErrors) as caught:
        parse_pack(path)
    assert [str(p) for p in caught.value.problems] == [f"{path}:{line}" for line in CORPUS[name]]


def test_the_corpus_is_covered_by_the_table() -> None:
    names = {p.name for p in HOSTILE.iterdir()}
    assert names == set(CORPUS) | {"markup.md"}


def test_checking_the_whole_corpus_gives_one_problem_per_bad_file() -> None:
    packs, problems = parse_paths([HOSTILE])
    assert [p.meta.pack for p in packs] == ["markup"]
    assert sorted({Path(p.path).name for p in problems}) == sorted(CORPUS)
    assert len(problems) == sum(len(lines) for lines in CORPUS.values())


def test_rich_and_textual_markup_is_kept_literally() -> None:
    pack = parse_pack(HOSTILE / "markup.md")
    assert pack.meta.title == "[bold red]Markup[/] stays literal"
    assert pack.intro == "Intro with [blink]markup[/blink]."
    loud, follow, pick = pack.cards
    assert loud.title == "[bold red]Loud[/bold red] title"
    assert loud.prompt == (
        "What does [link=https://example.com]this[/link] print? [@click=app.quit]quit[/]"
    )
    assert loud.answer == "[reverse]Exactly[/reverse] what was written, \\[escaped\\] too."
    assert loud.key_numbers[0].text == "[red]128 KiB[/red] per token"
    assert (follow.prompt, follow.answer) == ("[i]Still[/i] literal?", "[b]Yes.[/b]")
    assert [(c.text, c.correct) for c in pick.choices] == [
        ("[green]right[/green]", True),
        ("[red]wrong[/red]", False),
    ]


# -- generated cases ----------------------------------------------------------------------------


def only_error(path: Path) -> str:
    with pytest.raises(PackErrors) as caught:
        parse_pack(path)
    assert len(caught.value.problems) == 1, caught.value.problems
    return str(caught.value.problems[0])


def test_a_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes((FRONT + CARD).encode() + b"x" * MAX_PACK_BYTES)
    size = path.stat().st_size / (1024 * 1024)
    assert only_error(path) == (
        f"{path}:1: file is {size:.1f} MB; a pack may be at most 4 MB, so split it into "
        "smaller packs"
    )


def test_a_file_over_the_line_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "long.md"
    path.write_text(FRONT + CARD + "\n" * MAX_PACK_LINES, encoding="utf-8")
    lines = MAX_PACK_LINES + 12
    assert only_error(path) == (
        f"{path}:{MAX_PACK_LINES + 1}: file has {lines:,} lines; a pack may have at most "
        f"{MAX_PACK_LINES:,}, so split it into smaller packs"
    )


def test_a_directory_or_a_fifo_given_as_a_file_is_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    assert only_error(fifo) == f"{fifo}:1: not a regular file"
    folder = tmp_path / "folder.md"
    folder.mkdir()
    assert only_error(folder) == f"{folder}:1: not a regular file"


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "secret.md"
    path.write_text(FRONT + CARD, encoding="utf-8")
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("running as a user who can read anything")
    assert only_error(path) == f"{path}:1: cannot read the file: Permission denied"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "p.md:1: empty file: a pack starts with --- front matter, then its cards"),
        ("\ufeff \n", "p.md:1: empty file: a pack starts with --- front matter, then its cards"),
        (FRONT + "x\x00", "p.md:7: binary file (NUL character at offset 44); a pack is text"),
        (FRONT + "\ud800", "p.md:7: text is not valid Unicode (a lone surrogate)"),
        (
            "---\npack: demo\ntitle: Demo\nversion: 1\ndescription: "
            + "[" * 5000
            + "\n---\n"
            + CARD,
            "p.md:5: front matter: YAML nested more than 20 levels deep",
        ),
        (
            "---\npack: demo\ntitle: Demo\nversion: 1\ndescription: "
            + "x" * 70000
            + "\n---\n"
            + CARD,
            "p.md:2: front matter: YAML block is over 64 KiB; keep it short",
        ),
        (
            "---\npack: demo\ntitle: Demo\nversion: 1\ntags: !!set {a}\n---\n" + CARD,
            "p.md:5: front matter: YAML tags such as !!set are not allowed in a pack",
        ),
        (
            "---\npack: demo\ntitle: Demo\nversion: 1\n<<: {lang: vi}\n---\n" + CARD,
            "p.md:5: front matter: YAML mapping keys must be plain text",
        ),
        (
            "---\npack: demo\ntitle: Demo\nversion: 1\ndescription: \ufffe\n---\n" + CARD,
            "p.md:5: front matter: invalid YAML: character U+FFFE is not allowed",
        ),
        (
            FRONT + "## \x1b[2JClear the screen {#c}\n### Prompt\nQ\n### Answer\nA\n",
            "p.md:7: control character U+001B at column 4; a pack is plain text (tabs and line "
            "breaks are the only control characters allowed)",
        ),
        (
            FRONT + "## C {#c}\n### Prompt\nQ \x9b31m\n### Answer\nA\n",
            "p.md:9: control character U+009B at column 3; a pack is plain text (tabs and line "
            "breaks are the only control characters allowed)",
        ),
        (
            FRONT + "## C {#c}\n### Problem\n```problem\nask: !!python/name:os.system\n```\n",
            "p.md:10: problem block: YAML tags such as !!python/name:os.system are not allowed "
            "in a pack",
        ),
        (
            FRONT + "## " + "{#a}" * 300 + "\n### Prompt\nQ\n### Answer\nA\n",
            "p.md:7: card title is 1196 characters long; keep it to 200",
        ),
    ],
)
def test_generated_hostile_text_fails_in_one_clear_line(text: str, expected: str) -> None:
    with pytest.raises(PackErrors) as caught:
        parse_pack_text(text, "p.md")
    assert [str(p) for p in caught.value.problems] == [expected]


def test_a_deeply_nested_document_parses_without_crashing() -> None:
    body = (
        "## C {#c}\n### Prompt\n"
        + "> " * 5000
        + "deep\n\n"
        + "".join("  " * i + "- x\n" for i in range(300))
        + "### Answer\nA\n"
    )
    card = parse_pack_text(FRONT + body, "p.md").cards[0]
    assert card.prompt.startswith("> > > ")


FRAGMENTS = [
    "## Title {#t}",
    "## Title",
    "### Prompt",
    "### Answer",
    "### Choices",
    "### Follow-up",
    "### Key numbers",
    "### Problem",
    "### Related",
    "### Tip",
    "### Nope",
    "- [x] yes",
    "- [ ] no",
    "- item `claim: x = 1`",
    "- see {#t}",
    "Q: why?",
    "A: because",
    "```problem",
    "```",
    "~~~",
    "a: [1",
    "a: &x 1",
    "<!--",
    "-->",
    "---",
    "Lessons: 1-3",
    "Tags: a, b",
    "# h1",
    "text",
    "",
    "    indented",
    "  ## indented heading",
    "> quote",
    "1. one",
    "[bold]markup[/]",
    "{#",
    "\t- tab",
    "\ufeff",
    "\r",
    "é",
    "\u2028",
]


def test_random_pack_shaped_garbage_never_raises_anything_but_pack_errors() -> None:
    rng = random.Random(20261129)
    for _ in range(400):
        lines = [rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 40))]
        text = (FRONT if rng.random() < 0.8 else "") + "\n".join(lines)
        try:
            pack = parse_pack_text(text, "fuzz.md")
        except PackErrors as exc:
            assert exc.problems
            for problem in exc.problems:
                assert problem.path == "fuzz.md"
                assert 1 <= problem.line <= text.count("\n") + text.count("\r") + 2
                assert problem.message and "\n" not in problem.message
        else:
            assert pack.cards


def test_random_bytes_never_raise_anything_but_pack_errors(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = tmp_path / "noise.md"
    for _ in range(200):
        path.write_bytes(FRONT.encode() + rng.randbytes(rng.randint(0, 300)))
        try:
            parse_pack(path)
        except PackErrors as exc:
            assert all(str(p).startswith(f"{path}:") for p in exc.problems)


# -- links and ranges that used to crash check and import ----------------------------------------


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from kvdrill.app.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["check", "import"])
def test_symlink_loops_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "self.md").symlink_to("self.md")
    (packs / "a.md").symlink_to("b.md")
    (packs / "b.md").symlink_to("a.md")
    (packs / "dangling.md").symlink_to("gone.md")
    database = tmp_path / "x.db"
    argv = ["--db", f"sqlite:///{database}", command, str(packs / "self.md"), str(packs)]
    code, out, err = _cli(argv, capsys)
    assert code == 1
    lines = sorted(line for line in (out + err).splitlines() if line.startswith(str(packs)))
    assert lines == [
        f"{packs / 'a.md'}:1: a symbolic link that loops back on itself",
        f"{packs / 'b.md'}:1: a symbolic link that loops back on itself",
        f"{packs / 'dangling.md'}:1: a symbolic link to nothing (its target is missing)",
        f"{packs / 'self.md'}:1: a symbolic link that loops back on itself",
    ]
    assert "Traceback" not in err
    assert not database.exists()


INFINITE_RANGE = FRONT + (
    "## Fit {#fit}\n\n### Problem\n\n~~~problem\nask: kv_pool_tokens\nvary:\n  model: gqa\n"
    "  gpu: [h100-sxm]\n  request_tokens: {from: 1000, to: .inf, step: 100}\nunit: tokens\n~~~\n"
)


@pytest.mark.parametrize("command", ["check", "import"])
def test_an_infinite_range_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = tmp_path / "inf.md"
    path.write_text(INFINITE_RANGE, encoding="utf-8")
    database = tmp_path / "x.db"
    code, out, err = _cli(["--db", f"sqlite:///{database}", command, str(path)], capsys)
    assert code == 1
    assert f"{path}:13: problem: vary.request_tokens: inf is not a finite number" in out + err
    assert "Traceback" not in err
    assert not database.exists()


# -- a generated corpus of hostile packs, through check and import --------------------------------

CANARY = "KVDRILL_CANARY"  # a file any executed pack text would create


def problem_pack(name: str, block: str, title: str = "Gen", prompt_extra: str = "") -> str:
    return (
        f"---\npack: {name}\ntitle: {name}\nversion: 1\n---\n\n## {title} {{#gen}}\n\n"
        f"### Problem\n\n~~~problem\n{block}\n~~~\n{prompt_extra}"
    )


def hostile_blocks(canary: Path) -> list[str]:
    """Problem blocks that try to run code, blow up numbers or draw from impossible ranges."""
    touch = f"__import__('os').system('touch {canary}')"
    code = [
        touch,
        f"open('{canary}', 'w')",
        "().__class__.__bases__[0].__subclasses__()",
        f'exec("{touch}")',
        f'eval("{touch}")',
        "lambda: 1",
        "layers if True else 0",
        "[x for x in (1,)]",
        "layers.__class__",
        "f'{layers}'",
        "Symbol('x')",
        "Integer(2)**Integer(2)**Integer(99)",
    ]
    towers = ["2**2**2**2**2", "layers**64**64", "(9**9)**9", "1e308*1e308", "10**10**10"]
    blocks = [
        f"ask: out\nformula:\n  expr: {text!r}\n  symbols: {{}}\n  output: out\nunit: ''"
        for text in code + towers
    ]
    placeholders = [
        "{__import__('os').system('touch " + str(canary) + "')}",
        "{model.__class__.__init__.__globals__}",
        "{layers!r}",
        "{layers:{layers}}",
        "{0}",
        "{layers.__class__}",
        "{kv_heads[0]}",
        "{" * 501,  # 250 escaped braces and a lone one
    ]
    blocks += [
        f"ask: kv_bytes_per_token\nvary: {{model: gqa}}\nprompt: {text!r}\nunit: KiB"
        for text in placeholders
    ]
    ranges = [
        "{from: 1000, to: .inf, step: 100}",
        "{from: -.inf, to: 8000}",
        "{from: .nan, to: 8000}",
        "{from: 1000, to: 1e308, step: 1}",
        "{from: 1000, to: 8000, step: 1e-300}",
        "{from: 1000, to: 8000, step: 0}",
        "{from: 8000, to: 1000}",
        "{from: 1000, to: " + "9" * 400 + "}",
        "{from: true, to: 8000}",
        "{from: [1], to: {a: 1}}",
    ]
    blocks += [
        "ask: requests_that_fit\nvary:\n  model: gqa\n  gpu: [h100-sxm]\n"
        f"  request_tokens: {text}\nunit: requests"
        for text in ranges
    ]
    blocks += [
        f"ask: kv_bytes_per_token\ngiven: {{kv_dtype_bytes: {value}}}\nvary: {{model: gqa}}\n"
        "unit: KiB"
        for value in ("true", ".inf", ".nan", "1e400", "-1", "0", "'1e999 B'", "[]", "null")
    ]
    blocks += [
        "ask: kv_bytes_per_token\nvary: {model: gqa}\ngiven: {x: " + "[" * 900 + "]" * 900 + "}",
        "ask: kv_bytes_per_token\nvary:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200)),
        "ask: kv_bytes_per_token\nunit: KiB\nvary: {model: gqa}\n" + "x: 1\n" * 20000,
        "ask: huge\nformula: {expr: 'size * 1e30 * 1e30', symbols: {size: B}}\n"
        "given: {size: 64 B}\nunit: B",
    ]
    return blocks


def hostile_texts(canary: Path) -> list[tuple[str, str]]:
    """(file name, text) for the hostile corpus: problem blocks, then text attacks."""
    files = [
        (f"block-{i:03}.md", problem_pack(f"block-{i:03}", block))
        for i, block in enumerate(hostile_blocks(canary))
    ]
    card = "\n### Prompt\nQ\n### Answer\nA\n"
    titles = {
        "bidi-id": "## T {#ev\u202eil}" + card,
        "zero-width-id": "## T {#a\u200bb}" + card,
        "nul-title": "## T\x00itle {#t}" + card,
        "esc-title": "## \x1b]0;pwned\x07 {#t}" + card,
        "c1-title": "## T\x9b2J {#t}" + card,
        "bidi-tag": "## T {#t} #ta\u202eg" + card,
        "huge-line": "## T {#t}\n### Prompt\n" + "x" * 3_000_000 + "\n### Answer\nA\n",
        "many-cards": "".join(f"## C{i} {{#c{i}}}{card}" for i in range(2100)),
        "many-lines": "## T {#t}" + card + "\n" * 100_001,
    }
    files += [(f"{name}.md", FRONT + body) for name, body in titles.items()]
    files.append(("huge-file.md", FRONT + CARD + "word " * 900_000))
    files.append(
        ("deep-front-matter.md", "---\npack: x\ndescription: " + "{a: " * 5000 + "\n---\n")
    )
    return files


def hostile_corpus(folder: Path, canary: Path, rng: random.Random, mutants: int) -> int:
    """Write the corpus, plus ``mutants`` random mixes of its pieces, plus symlink loops;
    return how many files were written."""
    folder.mkdir()
    texts = hostile_texts(canary)
    for name, text in texts:
        (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    blocks = hostile_blocks(canary)
    for i in range(mutants):
        lines = [line for block in rng.sample(blocks, 3) for line in block.splitlines()]
        rng.shuffle(lines)
        (folder / f"mutant-{i:03}.md").write_text(
            problem_pack(f"mutant-{i:03}", "\n".join(lines)), encoding="utf-8"
        )
    (folder / "loop.md").symlink_to("loop.md")
    (folder / "ping.md").symlink_to("pong.md")
    (folder / "pong.md").symlink_to("ping.md")
    return len(texts) + mutants + 3


@pytest.mark.parametrize("command", ["check", "import"])
def test_a_generated_hostile_corpus_is_refused_file_by_file_and_runs_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    fault_campaign: bool,
) -> None:
    canary = tmp_path / CANARY
    corpus = tmp_path / "corpus"
    count = hostile_corpus(corpus, canary, random.Random(14), 400 if fault_campaign else 20)
    database = tmp_path / "x.db"
    code, out, err = _cli(["--db", f"sqlite:///{database}", command, str(corpus)], capsys)
    assert code == 1
    assert "Traceback" not in err
    lines = (out + err).splitlines()
    problems = [line for line in lines if line.startswith(str(corpus))]
    assert len(lines) == len(problems) + 1  # and one summary line
    for line in problems:
        path, number, message = line.split(":", 2)
        assert Path(path).parent == corpus and int(number) >= 1 and message.strip(), line
        assert all(ch.isprintable() for ch in line), repr(line)
    refused = {Path(line.split(":", 1)[0]).name for line in problems}
    accepted = {p.name for p in corpus.iterdir()} - refused
    # Every file is refused with a reason, but one: a 3 MB prompt line is within the caps.
    assert accepted == {"huge-line.md"}, accepted
    assert not canary.exists()
    assert not database.exists()
    print(f"\n{command}: {count} hostile packs, {len(problems)} problems reported")


def test_a_pack_rewritten_while_it_is_checked_never_crashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault_campaign: bool
) -> None:
    """Another program saves the file over and over while kvdrill reads it."""
    import threading

    path = tmp_path / "moving.md"
    good = FRONT + "".join(f"## C{i} {{#c{i}}}\n### Prompt\nQ\n### Answer\nA\n" for i in range(300))
    versions = [good, good[: len(good) // 2], "", FRONT + "\x00" * 10, good.replace("{#c1}", "")]
    path.write_text(good, encoding="utf-8")
    stop = threading.Event()

    def rewrite() -> None:
        rng = random.Random(14)
        while not stop.is_set():
            path.write_text(rng.choice(versions), encoding="utf-8")

    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        for _ in range(60 if fault_campaign else 10):
            code, out, err = _cli(["check", str(path)], capsys)
            assert code in (0, 1) and "Traceback" not in err
    finally:
        stop.set()
        writer.join()


WRITER = """
import sys
from pathlib import Path
path = sys.argv[1]
first, second = Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes()
while True:  # rewrite in place, as an editor that truncates and writes does
    for text in (first, second):
        with open(path, "wb") as handle:
            for start in range(0, len(text), 16384):
                handle.write(text[start : start + 16384])
                handle.flush()
"""


def test_a_pack_rewritten_during_the_read_is_refused_not_half_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault_campaign: bool
) -> None:
    """Another program rewrites the file in place while kvdrill reads it: a read that saw the
    file change is refused (no pack that silently lost cards); a clean read is whole."""
    import subprocess
    import sys

    def version(word: str) -> str:
        cards = [
            f"## {word} {i} {{#c{i}}}\n### Prompt\nQ {'x' * 200}\n### Answer\nA\n"
            for i in range(1500)
        ]
        return FRONT + "".join(cards)

    path = tmp_path / "saved.md"
    path.write_text(version("first"), encoding="utf-8")
    sources = [tmp_path / "first.txt", tmp_path / "second.txt"]
    for source, word in zip(sources, ("first", "second"), strict=True):
        source.write_text(version(word), encoding="utf-8")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), *map(str, sources)])
    outcomes: dict[str, int] = {}
    try:
        for _ in range(200 if fault_campaign else 40):
            code, out, err = _cli(["check", str(path)], capsys)
            assert "Traceback" not in err
            if "changed while it was being read" in out:
                outcome = "refused: changed while read"
            elif code == 0:
                outcome = "whole" if "1,500 cards" in out else "torn"
            else:
                outcome = out.splitlines()[0].split(":", 2)[-1][:60]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
    finally:
        writer.kill()
        writer.wait()
    print(f"\nreads during rewrites: {outcomes}")
    assert outcomes.get("refused: changed while read", 0) > 0, outcomes


HOSTILE_SYNTAX = """---
pack: Bad Pack
title: x
version: 1
colour: red
---

## A card {#dup}

### Prompt
p

### Answer
a

## Another {#dup}

### Prompt

### Choises
- [x] a
"""


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "en",
            [
                ':2: pack id "Bad Pack" is not valid: use lowercase letters',
                ":5: unknown front-matter key `colour`; the keys are pack, title, version",
                ':16: duplicate card id "dup" (first used on line 8)',
                ':20: unknown section "### Choises"; did you mean ### Choices?',
                ":18: ### Prompt is empty",
            ],
        ),
        (
            "vi",
            [
                ':2: id bộ thẻ "Bad Pack" không hợp lệ: hãy dùng chữ thường',
                ":5: khóa front matter `colour` không tồn tại; các khóa là pack, title, version",
                ':16: id thẻ "dup" bị trùng (dùng lần đầu ở dòng 8)',
                ':20: mục "### Choises" không tồn tại; có phải ý bạn là ### Choices?',
                ":18: ### Prompt đang trống",
            ],
        ),
    ],
)
def test_a_hostile_packs_syntax_errors_reach_the_learner_in_their_language(
    tmp_path, capsys, monkeypatch, language: str, expected: list[str]
) -> None:
    from kvdrill.app.cli import main
    from kvdrill.app.services.language import use_language

    pack = tmp_path / "bad.md"
    pack.write_text(HOSTILE_SYNTAX, encoding="utf-8")
    monkeypatch.setenv("LANGUAGE", language)
    try:
        assert main(["--db", f"sqlite:///{tmp_path / 'kv.db'}", "check", str(pack)]) == 1
    finally:
        use_language("en")
    output = capsys.readouterr()
    lines = (output.out + output.err).splitlines()
    for fragment in expected:  # each error as `file:line: message`, in the learner's language
        assert any(line.startswith(f"{pack}{fragment}") for line in lines), (fragment, lines)


@pytest.mark.parametrize(
    ("data", "english", "vietnamese"),
    [
        (b"\xff\xfe-\x00", "file is UTF-16; save it as UTF-8", "tệp được mã hóa UTF-16"),
        (
            b"---\npack: a\ntitle: &x t\nversion: 1\n---\n",
            "YAML anchors and aliases (& and *) are not allowed in a pack",
            "bộ thẻ không được dùng anchor và alias của YAML",
        ),
    ],
)
def test_an_unreadable_pack_file_is_refused_in_the_learners_language(
    tmp_path, data: bytes, english: str, vietnamese: str
) -> None:
    from kvdrill.app.services.importing import read_packs
    from kvdrill.app.services.language import use_language

    pack = tmp_path / "odd.md"
    pack.write_bytes(data)
    problems = {"en": "", "vi": ""}
    try:
        for language in problems:
            use_language(language)
            problems[language] = " ".join(str(p) for p in read_packs([pack]).problems)
    finally:
        use_language("en")
    assert english in problems["en"] and english not in problems["vi"], problems
    assert vietnamese in problems["vi"], problems
