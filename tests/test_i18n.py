"""The interface in the learner's language: every message the code marks has a Vietnamese
translation with the same placeholders, the language is the profile's, then the locale's, and
no literal reaches the screen around the translation function in the files translated."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from kvdrill import i18n
from kvdrill.app.services import language as language_service
from kvdrill.i18n.extract import ROOT, catalog_path, extracted, read_catalog

pytestmark = pytest.mark.unit

HOW_TO_FIX = (
    "run `.venv/bin/python scripts/update_catalog.py` (it adds the new messages to {po}), "
    "write each empty msgstr in natural Vietnamese, then run this test again "
    '(CONTRIBUTING.md "Translations")'
)

# The files whose every on-screen literal goes through ``_``: the UI files translated so far.
TRANSLATED_FILES = [
    "app/services/drill_flow.py",
    "app/tui/app.py",
    "app/card_page_text.py",
    "app/plain.py",
    "app/stats_charts.py",
    "app/stats_render.py",
    "app/services/drill_steps.py",
    "app/tui/card_text.py",
    "app/tui/screens/card_page.py",
    "app/tui/screens/cards.py",
    "app/tui/screens/drill.py",
    "app/tui/screens/help.py",
    "app/tui/screens/import_.py",
    "app/tui/screens/home.py",
    "app/tui/screens/note.py",
    "app/tui/screens/path_picker.py",
    "app/tui/screens/settings.py",
    "app/tui/screens/stats.py",
    "app/tui/screens/summary.py",
    "engine/capacity/units.py",
    "engine/problems/answers.py",
    "engine/problems/mistakes.py",
    "engine/packs/claims.py",
    "engine/packs/headings.py",
    "engine/packs/parser.py",
    "engine/packs/reader.py",
    "engine/packs/source.py",
    "engine/packs/yaml_blocks.py",
    "engine/capacity/compute.py",
    "engine/capacity/forward.py",
    "engine/capacity/formulas.py",
    "app/commands/backup.py",
    "app/commands/catalog.py",
    "app/commands/restore.py",
    "store/anki_history.py",
    "store/doctor.py",
    "store/import_plan.py",
    "store/import_checks.py",
    "app/commands/calc.py",
    "app/commands/check.py",
    "app/commands/convert.py",
    "app/commands/import_.py",
    "app/commands/optimize.py",
    "app/services/interop.py",
    "app/services/pack_files.py",
    "app/web_server.py",
]
# Calls whose string arguments reach the screen or the terminal.
SINKS = {
    "notify",
    "Static",
    "Label",
    "Button",
    "Content",
    "from_markup",
    "Notice",
    "print",
    "line",
    "say",
    "ask",
    "read_reply",
    "SystemCommand",
    "add_row",
    "add_column",
    "Binding",
    "TuiKey",
    "set_hint",
    "UserError",
    "AnswerError",
    "UnknownMistake",
    "NothingToPractise",
    "ClaimError",
    "error",  # a pack reader's `file:line: message`
    "Located",
    "append",  # a message collected for a pack error (a card heading's problems)
    "refusal",
    "YamlProblem",
}


def _message_id(message: object) -> str:
    return message[0] if isinstance(message, tuple) else str(message)


def _placeholders(text: str) -> set[str]:
    """The ``{name}`` fields and the ``$name`` variables of Textual markup in ``text``."""
    fields = {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    return fields | set(re.findall(r"\$\w+", text))


@pytest.fixture(scope="module")
def catalog():
    return read_catalog("vi")


@pytest.fixture(scope="module")
def messages():
    return [message for message in extracted() if message.id]


def test_every_message_has_a_vietnamese_translation(catalog, messages) -> None:
    missing = []
    for message in messages:
        entry = catalog.get(message.id)
        strings = entry.string if entry is not None else None
        texts = strings if isinstance(strings, tuple) else (strings,)
        if entry is None or entry.fuzzy or not all(texts):
            where = ", ".join(f"{file}:{line}" for file, line in message.locations[:2])
            missing.append(f"  {_message_id(message.id)!r} ({where})")
    assert not missing, (
        f"{len(missing)} messages have no Vietnamese translation:\n"
        + "\n".join(missing)
        + "\n"
        + HOW_TO_FIX.format(po=catalog_path("vi").relative_to(ROOT))
    )


def test_translations_keep_every_placeholder(catalog) -> None:
    wrong = []
    for entry in catalog:
        if not entry.id or not entry.string:
            continue
        ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for text in strings:
            if _placeholders(text) != _placeholders(ids[0]):
                wrong.append(f"  {ids[0]!r} -> {text!r}")
    assert not wrong, "these translations name other {placeholders}:\n" + "\n".join(wrong)


def _package_files() -> list[Path]:
    return [
        path
        for top in ("app", "engine", "store", "i18n")
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    ]


def test_every_message_is_a_literal() -> None:
    """``_(f"...")`` or ``_(name)`` of a variable cannot be extracted, so it is never
    translated; a constant marked ``N_`` where it is defined is (``_(HINT)``)."""
    wrong = []
    for path in _package_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("N_", "ngettext")
            ):
                count = 2 if node.func.id == "ngettext" else 1
                for arg in node.args[:count]:
                    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "_" and node.args and isinstance(node.args[0], ast.JoinedStr):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: _(f'...')")
    assert not wrong, "a message must be a string literal with {placeholders}:\n" + "\n".join(wrong)


# Markup, placeholders, widget ids, option names and the program's name are no words to translate.
_NOT_WORDS = re.compile(r"\[[^\]]*\]|\$\w+|\{[^}]*\}|#[\w-]+|--[\w-]+|\bkvdrill\b")


def _words_in(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _NOT_WORDS.sub("", node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(_words_in(value) for value in node.values)
    return ""


def _sink_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


@pytest.mark.parametrize("relative", TRANSLATED_FILES)
def test_no_literal_reaches_the_screen_untranslated(relative: str) -> None:
    path = ROOT / relative
    wrong = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and _sink_name(node) in SINKS):
            continue
        # A binding's description (its third argument) is what the footer shows.
        args = node.args[2:3] if _sink_name(node) in ("Binding", "TuiKey") else node.args
        values = list(args) + [k.value for k in node.keywords if k.arg in ("title", "message")]
        for arg in values:
            words = _words_in(arg)
            if re.search(r"[A-Za-z]{2,}", words):
                wrong.append(f"{relative}:{arg.lineno}: {ast.unparse(arg)[:60]}")
    assert not wrong, (
        'these literals reach the screen without _() (wrap them: _("...") in code, N_("...") '
        "at module level, then "
        + HOW_TO_FIX.format(po=catalog_path("vi").relative_to(ROOT))
        + "):\n"
        + "\n".join(wrong)
    )


@pytest.fixture
def locale(monkeypatch: pytest.MonkeyPatch):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_profile_language_comes_first_then_the_locale_then_english(locale) -> None:
    locale.setenv("LANG", "vi_VN.UTF-8")
    assert language_service.interface_language(None) == "vi"
    assert language_service.interface_language("en") == "en"
    locale.setenv("LANG", "C.UTF-8")
    assert language_service.interface_language(None) == "en"
    assert language_service.interface_language("vi") == "vi"
    locale.setenv("LANG", "fr_FR.UTF-8")  # a language kvdrill has no catalog of
    assert language_service.interface_language(None) == "en"
    locale.setenv("LC_ALL", "vi_VN")
    assert language_service.interface_language(None) == "vi"


def test_a_vietnamese_learner_reads_vietnamese(vietnamese) -> None:
    from kvdrill.app.services.drill_flow import DrillFlow
    from kvdrill.engine.study.grades import grade_keys_help, parse_grade

    assert i18n.language() == "vi"
    assert i18n._("Correct.") != "Correct."
    assert "1 Lại" in grade_keys_help()
    assert parse_grade("lại") == parse_grade("again") == 1
    assert DrillFlow(lambda: 0.0).hint == i18n._("q: back home") != "q: back home"


def test_english_is_the_code_itself() -> None:
    language_service.use_language("en")
    assert i18n._("Correct.") == "Correct."
    assert i18n._("") == ""  # never gettext's catalog header


# A pack is "bộ thẻ" in Vietnamese prose (the catalog's majority, and what the screens say);
# "pack" stays only where it is typed: the pack: key, --pack, pack-id, pack/card, {pack}, $pack.
_ENGLISH_PACK_WORD = re.compile(r"(?<![-/{$\w])[Pp]acks?\b(?![-/:_}\w])")
# "gói" is an Anki package ("gói Anki"); a kvdrill pack is "bộ thẻ".
_PACKAGE_WORD_FOR_A_PACK = re.compile(r"\b[Gg]ói\b(?! Anki)")


def test_a_pack_is_called_bo_the_in_every_vietnamese_message(catalog) -> None:
    wrong = []
    for entry in catalog:
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for text in strings:
            if (
                entry.id
                and text
                and (_ENGLISH_PACK_WORD.search(text) or _PACKAGE_WORD_FOR_A_PACK.search(text))
            ):
                wrong.append(f"  {_message_id(entry.id)!r} -> {text!r}")
    assert not wrong, 'write "bộ thẻ" for a pack in these translations:\n' + "\n".join(wrong)


def test_the_capacity_tables_descriptions_are_marked_for_translation(messages) -> None:
    """calc --list and a problem's default prompt translate each symbol's and formula's
    description where shown: a description added without N_() would stay English there."""
    from kvdrill.engine.capacity.formulas import FORMULAS, SYMBOLS

    ids = {message.id for message in messages}
    unmarked = [
        f"  {name}: {entry.description!r}"
        for name, entry in [*SYMBOLS.items(), *FORMULAS.items()]
        if entry.description not in ids
    ]
    assert not unmarked, "mark these descriptions with N_():\n" + "\n".join(unmarked)
