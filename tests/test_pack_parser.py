"""The Markdown pack parser: what a pack becomes, and every error a pack author can make."""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from pathlib import Path

import pytest

from kvdrill.app.services.pack_files import parse_pack, parse_paths
from kvdrill.engine.errors import Located, PackErrors
from kvdrill.engine.packs.model import MAX_CARDS_PER_PACK
from kvdrill.engine.packs.parser import parse_pack_text
from kvdrill.engine.packs.reader import PackReader

PACKS = Path(__file__).parent / "fixtures" / "packs"
EXAMPLE = PACKS / "good" / "example.md"
VIETNAMESE = PACKS / "vi" / "bo-nho-va-dung-luong.md"
README = Path(__file__).resolve().parent.parent / "decks" / "README.md"

FRONT = "---\npack: demo\ntitle: Demo\nversion: 1\n---\n\n"  # the body starts on line 7
RECALL = "### Prompt\nQ?\n\n### Answer\nA.\n"


def errors_of(text: str, path: str = "p.md") -> list[str]:
    with pytest.raises(PackErrors) as caught:
        parse_pack_text(text, path)
    return [str(problem) for problem in caught.value.problems]


def single_error(text: str) -> str:
    errors = errors_of(text)
    assert len(errors) == 1, errors
    return errors[0]


# -- what a pack becomes ----------------------------------------------------------------------


def test_the_example_pack_becomes_cards_in_file_order() -> None:
    pack = parse_pack(EXAMPLE)
    assert pack.meta.pack == "example-memory"
    assert pack.meta.version == "1"
    assert pack.meta.lessons == ["05", "07"]
    assert pack.meta.tags == ["memory"]
    assert pack.intro == "Answer each card out loud in about a minute, then check it."
    assert pack.path == str(EXAMPLE)
    assert pack.content_hash == hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    assert [(c.key, c.kind) for c in pack.cards] == [
        ("kv-per-token", "recall"),
        ("kv-per-token/follow-up", "followup"),
        ("pool-choice", "choice"),
        ("gen-kv-per-token", "problem"),
    ]


def test_a_recall_card_keeps_its_heading_fields_and_sections() -> None:
    card = parse_pack(EXAMPLE).cards[0]
    assert card.title == "Derive KV bytes per token"
    assert card.status == "priority"
    assert card.tags == ["kv-cache", "gqa", "llama"]  # heading tags, then the Tags: field
    assert card.lessons == ["05", "07", "17"]
    assert card.line == 13
    assert card.prompt == (
        "Llama 3.1 8B has 32 layers, 8 KV heads and head dimension 128, in BF16.\n"
        "How many bytes of KV cache does one token take?"
    )
    # Section bodies stay Markdown source: the list, its indentation and the bold are kept.
    assert card.answer.startswith("- Every token stores")
    assert "\n  **2 × layers × KV heads × head dim × bytes**." in card.answer
    assert card.tip == "Name every factor out loud."


def test_key_numbers_split_off_their_claim_and_keep_its_line() -> None:
    first, second = parse_pack(EXAMPLE).cards[0].key_numbers
    assert first.text == "Llama 3.1 8B: 128 KiB per token"
    assert first.claim == "kv_bytes_per_token model=llama-3.1-8b kv_dtype=bf16 = 128 KiB"
    assert first.line == 27
    assert (second.text, second.claim, second.line) == (
        "Llama 3.1 70B: 320 KiB per token",
        None,
        28,
    )


def test_a_claim_on_the_continuation_line_of_an_item_keeps_that_line() -> None:
    body = (
        "## C {#c}\n"
        + RECALL
        + "### Key numbers\n- Llama 3.1 70B,\n  320 KiB `claim: x = 320 KiB`\n"
    )
    (number,) = parse_pack_text(FRONT + body, "p.md").cards[0].key_numbers
    assert (number.text, number.claim, number.line) == (
        "Llama 3.1 70B,\n320 KiB",
        "x = 320 KiB",
        15,
    )


def test_error_lines_count_windows_and_old_mac_line_endings() -> None:
    text = FRONT + "## C {#c}\n### Answer\nA\n### Answr\nA\n"
    for newline in ("\r\n", "\r"):
        assert errors_of(text.replace("\n", newline)) == [
            "p.md:7: recall card has no ### Prompt section",
            'p.md:10: unknown section "### Answr"; did you mean ### Answer?',
        ]


def test_a_follow_up_is_its_own_card_linked_to_its_parent() -> None:
    parent, follow = parse_pack(EXAMPLE).cards[:2]
    assert follow.parent == parent.key
    assert follow.prompt == "How big is one 4,096-token conversation?"
    assert follow.answer == "4,096 × 128 KiB = 512 MiB, about half a gigabyte."
    assert follow.line == 30  # the ### Follow-up heading
    assert (follow.tags, follow.lessons, follow.title) == (
        parent.tags,
        parent.lessons,
        parent.title,
    )


def test_a_choice_card_has_lettered_choices_and_linked_related_prompts() -> None:
    card = parse_pack(EXAMPLE).cards[2]
    assert card.status == "solid"
    assert [(c.text, c.correct) for c in card.choices] == [
        ("Quantize the weights to 8 bits", False),
        ("Store the KV cache in FP8", True),
        ("Raise max_num_seqs", False),
        ("Lower max_model_len", False),
    ]
    assert "**Halving bytes per token doubles the pool's tokens.**" in card.explanation
    assert [(r.prompt, r.card) for r in card.related] == [
        ("Derive KV bytes per token for Llama 3.1 8B.", "kv-per-token"),
        ("How does GQA change users per GPU?", None),
    ]


def test_a_problem_block_is_kept_as_data_with_its_line() -> None:
    card = parse_pack(EXAMPLE).cards[3]
    assert card.problem == {"ask": "kv_bytes_per_token", "unit": "KiB"}
    assert card.problem_line == 59
    assert card.tip == "Say every factor out loud."


def test_a_problem_block_alone_makes_a_problem_card_without_a_problem_heading() -> None:
    text = FRONT + "## Gen {#gen}\n\n### Tip\nT\n\n~~~problem\nask: x\n~~~\n"
    errors = errors_of(text)
    assert errors == ["p.md:12: a ```problem block belongs in the card's ### Problem section"]


def test_multiple_choice_items_may_span_lines_and_use_numbers() -> None:
    body = (
        "## C {#c}\n### Prompt\nP\n### Choices\n"
        "1. [ ] first,\n   on two lines\n2. [X] second\n\n   with a paragraph\n"
    )
    card = parse_pack_text(FRONT + body, "p.md").cards[0]
    assert [(c.text, c.correct) for c in card.choices] == [
        ("first,\non two lines", False),
        ("second\n\nwith a paragraph", True),
    ]


def test_the_vietnamese_pack_parses_with_its_diacritics() -> None:
    pack = parse_pack(VIETNAMESE)
    assert pack.meta.lang == "vi"
    assert pack.meta.title == "Bộ nhớ và dung lượng"
    assert pack.meta.version == "1.0"
    assert pack.meta.tags == ["bộ-nhớ"]
    assert [(c.key, c.kind) for c in pack.cards] == [
        ("kv-moi-token", "recall"),
        ("kv-moi-token/follow-up", "followup"),
        ("co-nao-them-kv", "choice"),
    ]
    recall, follow, choice = pack.cards
    assert recall.title == "Câu 1 · Tính số byte KV cho mỗi token"
    assert recall.prompt.endswith("Mỗi token chiếm bao nhiêu byte trong KV cache?")
    assert follow.prompt == "Một cuộc hội thoại dài 4.096 token chiếm bao nhiêu bộ nhớ?"
    assert follow.answer.startswith("4.096 × 128 KiB = 512 MiB")
    assert [c.text for c in choice.choices if c.correct] == ["KV cache ở FP8"]
    assert choice.related[0].card == "kv-moi-token"


def test_decomposed_vietnamese_tags_are_the_same_tags() -> None:
    text = unicodedata.normalize("NFD", VIETNAMESE.read_text(encoding="utf-8"))
    pack = parse_pack_text(text, "vi.md")
    assert pack.meta.tags == ["bộ-nhớ"]
    assert pack.meta.tags[0] == unicodedata.normalize("NFC", "bộ-nhớ")


def test_the_complete_example_in_the_format_reference_parses() -> None:
    readme = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- example-pack -->\n````markdown\n(.*?)\n````", readme, re.DOTALL)
    assert match, "decks/README.md lost its complete example pack"
    pack = parse_pack_text(match.group(1) + "\n", "README example")
    assert {card.kind for card in pack.cards} == {"recall", "followup", "choice", "problem"}


@pytest.mark.parametrize(
    ("version", "stored"),
    [
        ("1", "1"),
        ("2.5", "2.5"),
        ('"2024-05-01"', "2024-05-01"),
        ("2024-05-01", "2024-05-01"),
        ("v3", "v3"),
    ],
)
def test_version_may_be_a_number_or_text_and_is_stored_as_text(version: str, stored: str) -> None:
    text = f"---\npack: demo\ntitle: Demo\nversion: {version}\n---\n\n## C {{#c}}\n{RECALL}"
    assert parse_pack_text(text, "p.md").meta.version == stored


def test_lessons_are_numbers_padded_to_two_digits_and_ranges_expand() -> None:
    text = FRONT.replace("version: 1", "version: 1\nlessons: [3, '05', 16-18]") + (
        "## C {#c}\nLessons: 5, 07, 03–04\n" + RECALL
    )
    pack = parse_pack_text(text, "p.md")
    assert pack.meta.lessons == ["03", "05", "16", "17", "18"]
    assert pack.cards[0].lessons == ["05", "07", "03", "04"]


def test_lang_defaults_to_english_and_optional_parts_may_be_left_out() -> None:
    pack = parse_pack_text(FRONT + "## C {#c}\n" + RECALL, "p.md")
    assert pack.meta.lang == "en"
    assert (pack.meta.description, pack.intro) == ("", "")
    card = pack.cards[0]
    assert (card.status, card.tags, card.lessons, card.key_numbers, card.tip) == (
        None,
        [],
        [],
        [],
        "",
    )


def test_windows_line_endings_and_a_byte_order_mark_are_read() -> None:
    text = "\ufeff" + (FRONT + "## C {#c}\n### Prompt\nline one\nline two\n\n### Answer\nA\n")
    pack = parse_pack_text(text.replace("\n", "\r\n"), "p.md")
    assert pack.cards[0].prompt == "line one\nline two"
    assert pack.cards[0].line == 7


def test_markup_in_card_text_is_kept_literally() -> None:
    body = "## [bold red]Loud[/] {#loud}\n### Prompt\n[link=x]click[/link] \\[esc]\n### Answer\n[b]A[/b]\n"
    card = parse_pack_text(FRONT + body, "p.md").cards[0]
    assert card.title == "[bold red]Loud[/]"
    assert card.prompt == "[link=x]click[/link] \\[esc]"
    assert card.answer == "[b]A[/b]"


def test_headings_inside_code_blocks_and_lists_are_not_cards() -> None:
    body = (
        "## C {#c}\n### Prompt\nQ\n### Answer\n```\n## not a card\n### not a section\n```\n"
        "- item\n\n  ## inside a list item\n"
    )
    pack = parse_pack_text(FRONT + body, "p.md")
    assert [c.key for c in pack.cards] == ["c"]
    assert "## not a card" in pack.cards[0].answer
    assert pack.cards[0].answer.endswith("## inside a list item")


def test_a_rule_right_under_a_list_is_not_a_heading() -> None:
    body = "## C {#c}\n### Prompt\nQ\n### Answer\n- one\n- two\n---\n\nMore.\n"
    card = parse_pack_text(FRONT + body, "p.md").cards[0]
    assert card.answer == "- one\n- two\n---\n\nMore."


@pytest.mark.parametrize(
    "section",
    [
        "- one\n- two `claim: a = 1`\n- three\n",
        "* one\n* two\n",
        "1. one\n2. two\n10. ten\n",
        "- one\n  continued\n- two\n",
        "- one\n\n- two\n",
        "- one\n+ two\n",
        "- one\n- - -\n- two\n",
        "- one\n-two\n",
        "1. one\n2) two\n",
        "-\tone\n-  two\n",
    ],
)
def test_one_line_lists_read_directly_match_markdown_it(
    section: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = FRONT + "## C {#c}\n### Prompt\nQ\n### Answer\nA\n### Key numbers\n" + section

    def outcome() -> object:
        try:
            return parse_pack_text(text, "p.md").cards[0].key_numbers
        except PackErrors as exc:
            return exc.problems

    fast = outcome()
    monkeypatch.setattr(PackReader, "simple_list", lambda self, section: False)
    assert fast == outcome()


# -- every error, with its line ----------------------------------------------------------------

CARD_ERRORS = [
    # card headings
    (
        "## Derive KV bytes per token\n" + RECALL,
        'p.md:7: card "Derive KV bytes per token" has no id {#...}; run kvdrill check --add-ids p.md',
    ),
    ("## {#c}\n" + RECALL, "p.md:7: card heading has no title"),
    (
        "## C {#Bad Id}\n" + RECALL,
        "p.md:7: card id \"Bad Id\" is not valid: use lowercase letters, digits, '.', '_' and '-', "
        "starting with a letter or digit",
    ),
    (
        "## C {#c} urgent\n" + RECALL,
        'p.md:7: unexpected "urgent" after the card id: only solid, priority and #tags may follow it',
    ),
    (
        "## C {#c} solid priority\n" + RECALL,
        "p.md:7: card heading has two status words (solid and priority)",
    ),
    (
        "## C {#c} #no!tag\n" + RECALL,
        'p.md:7: tag "no!tag" is not valid: use letters, digits, ".", "_" and "-"',
    ),
    (
        "## " + "x" * 201 + " {#c}\n" + RECALL,
        "p.md:7: card title is 201 characters long; keep it to 200",
    ),
    (
        "## C {#c}\n" + RECALL + "\n## D {#c}\n" + RECALL,
        'p.md:14: duplicate card id "c" (first used on line 7)',
    ),
    # field lines
    ("## C {#c}\nMood: calm\n" + RECALL, 'p.md:8: unknown field "Mood:"; fields are Lessons, Tags'),
    (
        "## C {#c}\nLessons: 1\nLessons: 2\n" + RECALL,
        "p.md:9: field Lessons: appears twice (first on line 8)",
    ),
    (
        "## C {#c}\nJust a sentence\n" + RECALL,
        "p.md:8: under a card heading, before its first ### section, only field lines "
        "(Lessons: ..., Tags: ...) may appear",
    ),
    (
        "## C {#c}\n\n```\ncode\n```\n" + RECALL,
        "p.md:9: under a card heading, before its first ### section, only field lines "
        "(Lessons: ..., Tags: ...) may appear",
    ),
    (
        "## C {#c}\nLessons: five\n" + RECALL,
        'p.md:8: lesson "five" is not a lesson number or a range like 03-05',
    ),
    ("## C {#c}\nLessons: 9-3\n" + RECALL, 'p.md:8: lesson range "9-3" is backwards or too wide'),
    (
        "## C {#c}\nTags: ok, not/ok\n" + RECALL,
        'p.md:8: tag "not/ok" is not valid: use letters, digits, ".", "_" and "-"',
    ),
    # sections
    (
        "## C {#c}\n" + RECALL + "### Surprise\nx\n",
        'p.md:13: unknown section "### Surprise"; sections are Prompt, Answer, Key numbers, '
        "Follow-up, Tip, Choices, Explanation, Related, Problem",
    ),
    (
        "## C {#c}\n" + RECALL + "### Tips\nx\n",
        'p.md:13: unknown section "### Tips"; did you mean ### Tip?',
    ),
    ("## C {#c}\nLesson: 5\n" + RECALL, 'p.md:8: unknown field "Lesson:"; did you mean Lessons:?'),
    (
        "## C {#c}\n" + RECALL + "### Prompt\nagain\n",
        "p.md:13: section ### Prompt appears twice in this card (first on line 8)",
    ),
    ("## C {#c}\n### Answer\nA\n", "p.md:7: recall card has no ### Prompt section"),
    ("## C {#c}\n### Prompt\nQ\n", "p.md:7: recall card has no ### Answer section"),
    ("## C {#c}\n### Prompt\n\n### Answer\nA\n", "p.md:8: ### Prompt is empty"),
    (
        "## C {#c}\n" + RECALL + "### Explanation\nE\n",
        "p.md:13: ### Explanation does not belong on a recall card (it has no ### Choices or ### Problem)",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n- [ ] b\n### Answer\nA\n",
        "p.md:13: ### Answer does not belong on a multiple-choice card (it has ### Choices)",
    ),
    (
        "## C {#c}\n### Problem\n```problem\nask: x\n```\n### Prompt\nQ\n",
        "p.md:12: ### Prompt does not belong on a problem card (it has a ```problem block)",
    ),
    (
        "## C {#c}\n" + RECALL + "# Title\n",
        "p.md:13: a # heading inside a card: cards start with ## and their sections with ###",
    ),
    (
        "## C {#c}\n" + RECALL + "more\n---\n",
        "p.md:14: text followed by a line of --- makes a heading; put a blank line before --- or "
        "write a card as `## Title {#card-id}`",
    ),
    # multiple choice
    ("## C {#c}\n### Prompt\nQ\n", "p.md:7: recall card has no ### Answer section"),
    (
        "## C {#c}\n### Choices\n- [x] a\n- [ ] b\n",
        "p.md:7: multiple-choice card has no ### Prompt section",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [ ] a\n- [ ] b\n",
        "p.md:10: no choice is marked correct: mark it `- [x] ...`",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n- b\n",
        "p.md:12: choice has no [ ] or [x] box: write `- [x] ...` for a correct choice and `- [ ] ...` for a wrong one",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n",
        "p.md:10: ### Choices has 1 choices; write 2 to 8",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n" + "- [ ] b\n" * 8,
        "p.md:10: ### Choices has 9 choices; write 2 to 8",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n- [ ] b\n* [ ] c\n",
        "p.md:13: ### Choices holds one list; changing the bullet character or numbering starts a second one",
    ),
    ("## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n- [ ]\n", "p.md:12: choice is empty"),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\nPick one:\n\n- [x] a\n- [ ] b\n",
        "p.md:11: ### Choices holds only a list of choices, each item starting with - ",
    ),
    (
        "## C {#c}\n### Prompt\nQ\n### Choices\n- [x] a\n- [ ] b\n### Related\n- See {#nope}\n",
        "p.md:14: related item links to {#nope}, but this pack has no card with that id",
    ),
    # key numbers
    (
        "## C {#c}\n" + RECALL + "### Key numbers\n128 KiB per token\n",
        "p.md:14: ### Key numbers holds only a list of figures, each item starting with - ",
    ),
    (
        "## C {#c}\n" + RECALL + "### Key numbers\n- `claim: x = 1` then text\n",
        "p.md:14: a claim must come last in its key-numbers item",
    ),
    (
        "## C {#c}\n" + RECALL + "### Key numbers\n- 128 KiB `claim: `\n",
        "p.md:14: empty claim: write `claim: QUANTITY name=value ... = VALUE`",
    ),
    ("## C {#c}\n" + RECALL + "### Key numbers\n", "p.md:13: ### Key numbers is empty"),
    # follow-up
    (
        "## C {#c}\n" + RECALL + "### Follow-up\nWhat next?\n",
        "p.md:13: ### Follow-up starts with a paragraph `Q: the question`, then `A: its answer`",
    ),
    (
        "## C {#c}\n" + RECALL + "### Follow-up\nQ: What next?\n",
        "p.md:13: ### Follow-up has a Q: but no A: line with its answer",
    ),
    (
        "## C {#c}\n" + RECALL + "### Follow-up\nQ: What next?\nA:\n",
        "p.md:15: follow-up answer after A: is empty",
    ),
    # problem templates
    (
        "## C {#c}\n### Problem\n```problem\nask: [1\n```\n",
        "p.md:11: problem block: invalid YAML: expected ',' or ']', but got '<stream end>'",
    ),
    (
        "## C {#c}\n### Problem\n```problem\n- a list\n```\n",
        "p.md:9: problem block must be YAML `field: value` lines",
    ),
    (
        "## C {#c}\n### Problem\n```problem\na: &x 1\nb: *x\n```\n",
        "p.md:10: problem block: YAML anchors and aliases (& and *) are not allowed in a pack",
    ),
    ("## C {#c}\n### Problem\nSome words\n", "p.md:8: ### Problem has no ```problem block"),
    (
        "## C {#c}\n### Problem\n```problem\nask: x\n```\nAnd words\n",
        "p.md:12: ### Problem holds one ```problem block and not anything else",
    ),
    (
        "## C {#c}\n### Problem\n```problem\nask: x\n```\n```problem\nask: y\n```\n",
        "p.md:12: ### Problem holds one ```problem block and not a second ```problem block",
    ),
    (
        "## C {#c}\n" + RECALL + "```problem\nask: x\n```\n",
        "p.md:13: a ```problem block belongs in the card's ### Problem section",
    ),
    # blocks that would swallow the rest of the file
    (
        "## C {#c}\n### Prompt\nQ\n### Answer\n```\nnever closed\n\n## D {#d}\n",
        "p.md:11: code block opened here with ``` is never closed",
    ),
    (
        "## C {#c}\n" + RECALL + "<!-- never closed\n\n## D {#d}\n" + RECALL,
        "p.md:13: HTML comment <!-- opened here is never closed with -->",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CARD_ERRORS)
def test_each_card_error_is_reported_at_its_line(body: str, expected: str) -> None:
    assert single_error(FRONT + body) == expected


FRONT_MATTER_ERRORS = [
    ("pack: demo\ntitle: Demo\n", "p.md:1: front matter has no `version:` (it is required)"),
    (
        "pack: demo\ntitle: Demo\nversion: 1\ndescripton: x\n",
        "p.md:5: unknown front-matter key `descripton`; did you mean `description`?",
    ),
    (
        "pack: demo\ntitle: Demo\nversion: 1\ncolour: red\n",
        "p.md:5: unknown front-matter key `colour`; the keys are pack, title, version, lang, lessons, tags, description, edition_of",
    ),
    (
        "pack: demo\ntitle: Demo\nversion: [1]\n",
        "p.md:4: front-matter `version`: must be a number or text",
    ),
    ("pack: demo\ntitle: [a]\nversion: 1\n", "p.md:3: front-matter `title`: must be text"),
    (
        "pack: Demo Pack\ntitle: Demo\nversion: 1\n",
        "p.md:2: pack id \"Demo Pack\" is not valid: use lowercase letters, digits, '.', '_' and '-', "
        "starting with a letter or digit",
    ),
    ("pack: demo\ntitle: ' '\nversion: 1\n", "p.md:3: front-matter `title` is empty"),
    (
        "pack: demo\ntitle: Demo\nversion: 1\nlang: Vietnamese language\n",
        'p.md:5: lang "Vietnamese language" is not a language tag such as en, vi or en-GB',
    ),
    (
        "pack: demo\ntitle: Demo\nversion: 1\ntags: [ok, 'bad tag']\n",
        'p.md:5: tag "bad tag" is not valid: use letters, digits, ".", "_" and "-"',
    ),
    (
        "pack: demo\ntitle: Demo\nversion: 1\nlessons: [1, x y]\n",
        'p.md:5: lesson "x" is not a lesson number or a range like 03-05',
    ),
    (
        "pack: demo\ntitle: Demo: more\nversion: 1\n",
        "p.md:3: front matter: invalid YAML: mapping values are not allowed here",
    ),
    (
        "pack: demo\npack: again\ntitle: Demo\nversion: 1\n",
        "p.md:3: front matter: YAML key `pack` appears twice",
    ),
    (
        "just a sentence\n",
        "p.md:1: front matter must be `key: value` lines with at least pack:, title: and version:",
    ),
    (
        "pack: demo\ntitle: !!binary aGk=\nversion: 1\n",
        "p.md:3: front matter: YAML tags such as !!binary are not allowed in a pack",
    ),
]


@pytest.mark.parametrize(("yaml_text", "expected"), FRONT_MATTER_ERRORS)
def test_each_front_matter_error_is_reported_at_its_line(yaml_text: str, expected: str) -> None:
    assert single_error(f"---\n{yaml_text}---\n\n## C {{#c}}\n{RECALL}") == expected


def test_a_file_without_front_matter_is_one_clear_line() -> None:
    assert errors_of("# Notes\n\n## C {#c}\n" + RECALL) == [
        "p.md:1: no front matter: a pack starts with a line ---, then pack:, title: and "
        "version: lines, then a line ---"
    ]
    assert errors_of("---\npack: demo\n\n## C {#c}\n") == [
        "p.md:1: front matter opened here is never closed: end it with a line ---"
    ]


def test_a_pack_without_cards_is_an_error() -> None:
    assert errors_of(FRONT + "Only an introduction.\n") == [
        "p.md:1: pack has no cards: add one under a heading `## Title {#card-id}`"
    ]


def test_every_error_in_a_file_is_reported_in_line_order() -> None:
    text = (
        "---\npack: demo\ntitle: Demo\nversion: 1\nextra: 1\n---\n\n"
        "## No id here\n" + RECALL + "\n"  # line 8: no id
        "## C {#c}\nMood: x\n### Prompt\nQ\n### Choices\n- [ ] a\n- [ ] b\n"  # 16, 19
        "## D {#d}\n### Prompt\nQ\n### Answer\nA\n### Related\n- x\n"  # 27: not on recall
    )
    errors = errors_of(text)
    assert [e.split(": ", 1)[0] for e in errors] == [
        "p.md:5",
        "p.md:8",
        "p.md:16",
        "p.md:19",
        "p.md:27",
    ]


def test_more_than_the_card_cap_is_refused_at_the_first_card_over_it() -> None:
    cards = "".join(
        f"## C{n} {{#c{n}}}\n### Prompt\nQ\n### Answer\nA\n" for n in range(MAX_CARDS_PER_PACK + 1)
    )
    line = 7 + 5 * MAX_CARDS_PER_PACK
    assert errors_of(FRONT + cards) == [
        f"p.md:{line}: pack has more than {MAX_CARDS_PER_PACK} cards (this is card "
        f"{MAX_CARDS_PER_PACK + 1}); split it into smaller packs"
    ]


def test_a_flood_of_errors_is_cut_short() -> None:
    errors = errors_of(FRONT + "## C {#c}\n" + RECALL + "### Nope\n" * 150)
    assert len(errors) == 101
    assert errors[-1] == "p.md:113: ... and 50 more errors in this file"


# -- many files ---------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def pack_text(pack_id: str) -> str:
    return f"---\npack: {pack_id}\ntitle: T\nversion: 1\n---\n\n## C {{#c}}\n{RECALL}"


def test_directories_are_searched_recursively_for_packs(tmp_path: Path) -> None:
    write(tmp_path / "a.md", pack_text("a"))
    write(tmp_path / "sub" / "deeper" / "b.md", pack_text("b"))
    write(tmp_path / "sub" / "README.md", "# Not a pack\n")
    write(tmp_path / "notes.txt", "not markdown")
    write(tmp_path / ".hidden" / "c.md", "not a pack either")
    packs, problems = parse_paths([tmp_path])
    assert problems == []
    assert sorted(p.meta.pack for p in packs) == ["a", "b"]


def test_errors_are_collected_across_files_with_duplicate_pack_ids(tmp_path: Path) -> None:
    first = write(tmp_path / "a.md", pack_text("same"))
    second = write(tmp_path / "b.md", pack_text("same"))
    broken = write(tmp_path / "c.md", pack_text("other").replace("{#c}", ""))
    packs, problems = parse_paths([first, second, broken, tmp_path / "missing.md"])
    assert [p.path for p in packs] == [str(first)]
    assert sorted(str(p) for p in problems) == [
        f'{second}:2: pack id "same" is already used by {first}',
        f'{broken}:7: card "C" has no id {{#...}}; run kvdrill check --add-ids {broken}',
        f"{tmp_path / 'missing.md'}:1: no such file or directory",
    ]


def test_a_file_named_twice_is_parsed_once(tmp_path: Path) -> None:
    pack = write(tmp_path / "a.md", pack_text("a"))
    packs, problems = parse_paths([pack, tmp_path])
    assert (len(packs), problems) == (1, [])


def test_an_empty_directory_is_reported(tmp_path: Path) -> None:
    _, problems = parse_paths([tmp_path])
    assert problems == [Located(str(tmp_path), 1, "no pack files (*.md) in this directory")]


# -- the fast paths read what CommonMark reads -----------------------------------------------

PIECES = [
    "## T {#t} solid #a",
    "## Title",
    "### Prompt",
    "### Answer",
    "### Choices",
    "### Related",
    "### Key numbers",
    "### Follow-up",
    "### Problem",
    "### Tip",
    "- [x] yes",
    "* [ ] no",
    "- item `claim: a = 1`",
    "- see {#t}",
    "1) x",
    "2. y",
    "-",
    "- - -",
    "  - nested",
    "  continued",
    "    indented",
    "  ```",
    "   ## indented heading",
    "```problem",
    "```",
    "~~~",
    "ask: x",
    "Q: why?",
    "A: because",
    "Lessons: 1-3",
    "Tags: a, b",
    "<!--",
    "-->",
    "<div>",
    "> - quoted",
    "- > quoting",
    "---",
    "===",
    "***",
    "# h1",
    "text",
    "",
    "",
    "\u2028",
]


def test_the_fast_outline_and_lists_agree_with_a_full_commonmark_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kvdrill.engine.packs import blocks

    rng = random.Random(1129)
    texts = [FRONT + "\n".join(rng.choices(PIECES, k=rng.randint(0, 30))) for _ in range(300)]

    def outcomes() -> list[object]:
        results: list[object] = []
        for text in texts:
            try:
                results.append(parse_pack_text(text, "p.md"))
            except PackErrors as exc:
                results.append(exc.problems)
        return results

    fast = outcomes()
    monkeypatch.setattr(blocks, "outline_tokens", lambda text: blocks.full_markdown().parse(text))
    monkeypatch.setattr(PackReader, "simple_list", lambda self, section: False)
    assert fast == outcomes()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "### Prompt\nQ\n### Anwser\nA\n",
            'p.md:10: unknown section "### Anwser"; did you mean ### Answer?',
        ),
        (
            "### Prompt\nQ\n### Choises\n- [x] a\n- [ ] b\n",
            'p.md:10: unknown section "### Choises"; did you mean ### Choices?',
        ),
        (
            "### Problme\n```problem\nquantity: kv_bytes_per_token\n```\n",
            'p.md:8: unknown section "### Problme"; did you mean ### Problem?',
        ),
    ],
)
def test_a_misspelled_section_is_one_error_not_also_a_missing_one(body: str, expected: str) -> None:
    assert errors_of(FRONT + "## C {#c}\n" + body) == [expected]


# --- the line scanner gives what markdown-it gives ---------------------------------------------
# engine/packs/outline.py reads a pack's outline without markdown-it when it can tell; these
# parse each text both ways (the scanner turned off: markdown-it only) and want the very same
# ParsedPack, or the very same errors with their lines.

DECKS = Path(__file__).resolve().parent.parent / "decks"
TRICKY_LINES = [
    "", "  ", "\t", "---", "----", "...", "... x", "# H", "## Card {#c1}", "## Card {#c2} #tag",
    "### Prompt", "### Answer", "### Key numbers", "### Choices", "#tag", "####### seven",
    "## closing ##", "## a #b", "##", "# #", "## x ##   ", "```", "```py", "````", "~~~",
    "~~~ x`y", "```a`b", "  ```", "    code", "  ## indented", "text line", "- item",
    "- [x] right", "- [ ] wrong", "* item", "1. one", "  - sub", "> quote", "<div>", "a < b",
    "===", "--", "- - -", "***", "\u00a0## nbsp", "## tab\there", "#\tx", "~~~~", "   ~~~",
    "\tindented tab", "##\u3000ideo\u3000", "Lessons: 3", "x\r", "nul \0",
]  # fmt: skip


def both_ways(parse, monkeypatch: pytest.MonkeyPatch):
    def outcome():
        try:
            return parse()
        except PackErrors as exc:
            return [str(problem) for problem in exc.problems]

    scanned = outcome()
    with monkeypatch.context() as patch:
        patch.setattr("kvdrill.engine.packs.blocks.scan_outline", lambda text: None)
        return scanned, outcome()


@pytest.mark.parametrize(
    "path",
    sorted(DECKS.rglob("*.md")) + sorted(PACKS.parent.rglob("*.md")),
    ids=lambda path: f"{path.parent.name}/{path.name}",
)
def test_the_line_scanner_parses_every_deck_and_fixture_as_markdown_it_does(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned, markdown_it = both_ways(lambda: parse_pack(path), monkeypatch)
    assert scanned == markdown_it


def test_the_line_scanner_agrees_with_markdown_it_on_generated_packs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(20261130)
    for _ in range(1500):
        lines = [rng.choice(TRICKY_LINES) for _ in range(rng.randint(0, 16))]
        if rng.random() < 0.7:
            lines = ["---", "pack: demo", "title: Demo", "version: 1", "---", *lines]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.6 else "")
        scanned, markdown_it = both_ways(
            lambda text=text: parse_pack_text(text, "gen.md"), monkeypatch
        )
        assert scanned == markdown_it, text
