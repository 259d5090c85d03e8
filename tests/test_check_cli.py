"""``kvdrill check PATH... [--add-ids]``: what a pack author sees, and what it does to files."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.engine.errors import Located
from kvdrill.engine.packs.add_ids import add_missing_ids

PACKS = Path(__file__).parent / "fixtures" / "packs"
VIETNAMESE = PACKS / "vi" / "bo-nho-va-dung-luong.md"
README = Path(__file__).resolve().parent.parent / "decks" / "README.md"
RECALL = "### Prompt\nQ?\n\n### Answer\nA.\n"


def pack(pack_id: str = "demo", body: str = "## C {#c}\n" + RECALL, more: str = "") -> str:
    """A pack's text; ``more`` is extra front-matter lines."""
    return f"---\npack: {pack_id}\ntitle: Demo\nversion: 1\n{more}---\n\n{body}"


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_clean_pack_exits_0_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, str(VIETNAMESE))
    assert (code, out) == (0, ["1 pack, 3 cards, 0 errors"])


def test_errors_print_as_path_line_message_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "bad.md", pack(body="## C {#c}\n### Prompt\nQ\n### Answr\nA\n"))
    code, out = check(capsys, str(bad))
    assert code == 1
    assert out == [
        f'{bad}:10: unknown section "### Answr"; did you mean ### Answer?',
        "1 pack, 0 cards, 1 error",
    ]


def test_a_pack_with_the_usual_mistakes_gets_every_one_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = PACKS / "bad" / "typos.md"
    code, out = check(capsys, str(path))
    assert code == 1
    assert out == [
        f"{path}:5: unknown front-matter key `lesson`; did you mean `lessons`?",
        f'{path}:8: card "Derive KV bytes per token" has no id {{#...}}; '
        f"run kvdrill check --add-ids {path}",
        f'{path}:14: unknown section "### Anwser"; did you mean ### Answer?',
        f"{path}:25: ### Follow-up has a Q: but no A: line with its answer",
        f'{path}:28: duplicate card id "pool-tokens" (first used on line 17)',
        f"{path}:33: no choice is marked correct: mark it `- [x] ...`",
        f"{path}:38: related item links to {{#pool-token}}, but this pack has no card with "
        "that id; did you mean {#pool-tokens}?",
        "1 pack, 0 cards, 7 errors",
    ]


def test_the_summary_counts_the_cards_that_parsed_in_a_file_with_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = (
        "## One {#one}\n" + RECALL + "\n"
        "## Broken {#broken}\n### Prompt\nQ?\n### Anwser\nA.\n\n"
        "## Two {#two}\n" + RECALL + "\n### Follow-up\nQ: And then?\nA: Then this.\n"
    )
    bad = write(tmp_path / "bad.md", pack(more="lesson: [5]\n", body=body))
    code, out = check(capsys, str(bad))
    assert code == 1
    assert out == [
        f"{bad}:5: unknown front-matter key `lesson`; did you mean `lessons`?",
        f'{bad}:18: unknown section "### Anwser"; did you mean ### Answer?',
        "1 pack, 3 cards, 2 errors",  # one, two and two's follow-up
    ]


def test_directories_are_checked_recursively_and_readmes_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "a.md", pack("a"))
    write(tmp_path / "nested" / "b.md", pack("b"))
    write(tmp_path / "nested" / "README.md", "# About these packs\n")
    code, out = check(capsys, str(tmp_path))
    assert (code, out) == (0, ["2 packs, 2 cards, 0 errors"])


def test_errors_from_every_file_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = write(tmp_path / "a.md", pack("same"))
    second = write(tmp_path / "b.md", pack("same"))
    empty = write(tmp_path / "c.md", b"")
    code, out = check(capsys, str(tmp_path))
    assert code == 1
    assert out == [
        f'{second}:2: pack id "same" is already used by {first}',
        f"{empty}:1: empty file: a pack starts with --- front matter, then its cards",
        "3 packs, 2 cards, 2 errors",
    ]


def test_escape_sequences_in_file_names_and_titles_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = write(tmp_path / "\x1b[2J.md", pack(body="## Title \u202eevil\n" + RECALL))
    code, out = check(capsys, str(tmp_path))
    assert code == 1
    assert "\x1b" not in "".join(out) and "\u202e" not in "".join(out)
    shown = str(hostile).replace("\x1b", "\\x1b")
    assert out[0] == (
        f'{shown}:7: card "Title \\u202eevil" has no id {{#...}}; run kvdrill check --add-ids {shown}'
    )


def test_a_missing_path_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.md"
    code, out = check(capsys, str(missing))
    assert (code, out) == (
        1,
        [f"{missing}:1: no such file or directory", "0 packs, 0 cards, 1 error"],
    )


def test_what_extra_checks_finds_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = write(tmp_path / "good.md", pack())
    seen: list[str] = []

    def fake_extra_checks(parsed, drawings):  # stands in for template and claim checks
        seen.append(parsed.meta.pack)
        return [Located(parsed.path, 9, "claim kv_bytes_per_token: the card states 1 KiB")]

    monkeypatch.setattr("kvdrill.engine.packs.checks.extra_checks", fake_extra_checks)
    code, out = check(capsys, str(good))
    assert seen == ["demo"]
    assert (code, out) == (
        1,
        [f"{good}:9: claim kv_bytes_per_token: the card states 1 KiB", "1 pack, 1 card, 1 error"],
    )


def test_the_complete_example_in_the_format_reference_passes_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = README.read_text(encoding="utf-8")
    example = re.search(r"<!-- example-pack -->\n````markdown\n(.*?)\n````", readme, re.DOTALL)
    assert example
    path = write(tmp_path / "example.md", example.group(1) + "\n")
    code, out = check(capsys, str(path))
    assert (code, out) == (0, ["1 pack, 4 cards, 0 errors"])


def test_check_never_touches_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path / "packs" / "good.md", pack())
    database = tmp_path / "never.db"
    assert main(["--db", f"sqlite:///{database}", "check", str(good)]) == 0
    assert not database.exists()
    assert not (tmp_path / "data").exists()  # the default data dir (conftest) stays untouched
    source = (Path(__file__).resolve().parent.parent / "app" / "commands" / "check.py").read_text()
    assert "store" not in re.findall(r"^\s*(?:from|import) (\w+)", source, re.MULTILINE)


# -- --add-ids --------------------------------------------------------------------------------

NO_IDS = (
    "---\r\npack: demo\r\ntitle: Demo\r\nversion: 1\r\n---\r\n\r\n"
    "## Derive KV bytes per token   \r\n" + RECALL.replace("\n", "\r\n") + "\r\n"
    "##  Pool tokens priority #kv ##\n" + RECALL + "\n"
    "## Pool tokens {#pool-tokens}\n" + RECALL + "\n"
    "```\n## Not a card\n```\n"
)


def test_add_ids_writes_ids_and_changes_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "p.md", NO_IDS.encode("utf-8"))
    before = path.read_bytes()
    code, out = check(capsys, "--add-ids", str(path))
    after = path.read_bytes()
    assert code == 0
    assert out == [
        f"{path}:7: added id {{#derive-kv-bytes-per-token}}",
        f"{path}:14: added id {{#pool-tokens-2}}",
        "1 pack, 3 cards, 0 errors",
    ]
    # Byte for byte: removing exactly the inserted ids gives the original file back.
    assert (
        after.replace(b" {#derive-kv-bytes-per-token}", b"", 1).replace(
            b" {#pool-tokens-2}", b"", 1
        )
        == before
    )
    lines = after.split(b"\n")
    assert lines[6] == b"## Derive KV bytes per token {#derive-kv-bytes-per-token}   \r"
    assert lines[13] == b"##  Pool tokens {#pool-tokens-2} priority #kv ##"


def test_add_ids_then_check_passes_and_a_second_run_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path / "p.md", pack(body="## First card\n" + RECALL + "## Đường ống\n" + RECALL)
    )
    path.chmod(0o640)
    code, out = check(capsys, "--add-ids", str(path))
    assert (code, out[-1]) == (0, "1 pack, 2 cards, 0 errors")
    assert "## Đường ống {#duong-ong}\n" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.md"]  # no temporary file left
    written = path.read_bytes()
    code, out = check(capsys, "--add-ids", str(path))
    assert (code, out, path.read_bytes()) == (0, ["1 pack, 2 cards, 0 errors"], written)


def test_add_ids_leaves_unreadable_files_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = write(tmp_path / "b.md", b"## Title\n\x00\x01")
    code, out = check(capsys, "--add-ids", str(binary))
    assert binary.read_bytes() == b"## Title\n\x00\x01"
    assert (code, out) == (
        1,
        [
            f"{binary}:2: binary file (NUL byte at offset 9); a pack is UTF-8 text",
            "1 pack, 0 cards, 1 error",
        ],
    )


def test_add_ids_leaves_markdown_that_is_no_pack_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = write(tmp_path / "notes.md", "# Notes\n\n## A heading without an id\n")
    code, out = check(capsys, "--add-ids", str(tmp_path))
    assert notes.read_text(encoding="utf-8") == "# Notes\n\n## A heading without an id\n"
    assert code == 1
    assert out[0].startswith(f"{notes}:1: no front matter")


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        (
            "## Q1 · Derive KV bytes, and what GQA buys solid",
            "## Q1 · Derive KV bytes, and what GQA buys {#q1-derive-kv-bytes-and-what-gqa-buys} solid",
        ),
        (
            "## Câu 1 · Tính số byte KV #kv-cache",
            "## Câu 1 · Tính số byte KV {#cau-1-tinh-so-byte-kv} #kv-cache",
        ),
        ("## 🚀🚀", "## 🚀🚀 {#card}"),
        ("## " + "word " * 30, "## " + "word " * 29 + "word {#" + "-".join(["word"] * 9) + "} "),
        ("## [bold]Markup[/bold] title", "## [bold]Markup[/bold] title {#bold-markup-bold-title}"),
    ],
)
def test_generated_ids_are_slugs_of_the_title(heading: str, expected: str) -> None:
    text, added = add_missing_ids(pack(body=heading + "\n" + RECALL))
    assert text.splitlines()[6] == expected
    assert added == [(7, re.search(r"\{#([^}]*)\}", expected).group(1))]


def test_generated_ids_never_reuse_an_existing_id() -> None:
    body = (
        "## Pool {#pool-2}\n"
        + RECALL
        + "## Pool\n"
        + RECALL
        + "## Pool\n"
        + RECALL
        + "## Pool {#pool}\n"
        + RECALL
    )
    _, added = add_missing_ids(pack(body=body))
    assert [card_id for _, card_id in added] == ["pool-3", "pool-4"]


def test_an_empty_path_rewrites_and_checks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unset shell variable must not make ``--add-ids`` rewrite the current directory."""
    text = pack(body="## No id yet\n" + RECALL)
    file = write(tmp_path / "mine.md", text)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--add-ids", ""]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "kvdrill: an empty PATH was given (an unset shell variable?); nothing checked\n"
    assert file.read_text(encoding="utf-8") == text


def test_a_wrong_claim_is_reported_beside_another_error_of_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = "`claim: kv_bytes_per_token model=llama-3.1-8b kv_dtype=bf16 = 999 KiB`"
    body = f"## C {{#c}} #Bad_Tag!\n{RECALL}\n### Key numbers\n\n- 8B: 999 KiB {claim}\n"
    path = write(tmp_path / "p.md", pack(body=body))
    code, lines = check(capsys, str(path))
    assert code == 1
    assert any(re.search(r"p\.md:7: tag .bad_tag!. is not valid", line) for line in lines), lines
    claim_lines = [line for line in lines if "the engine computes 128 KiB" in line]
    assert len(claim_lines) == 1 and ":16: claim kv_bytes_per_token" in claim_lines[0], lines
    assert lines[-1] == "1 pack, 0 cards, 2 errors"
