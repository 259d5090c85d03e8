"""The messages of the package as Babel extracts them, for the catalog test and
scripts/update_catalog.py (a developer's tool: the app never imports this module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from kvdrill.i18n import DOMAIN

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "i18n" / "locale"
# The functions a message goes through (kvdrill/i18n/__init__.py); ngettext's two forms.
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
# The fields of the catalog's data files a learner reads as prose (`kvdrill gpus` shows them
# through _()); ids, names and sources stay as written.
CATALOG_PROSE = ("memory_note",)


def extract_catalog_prose(
    fileobj: IO[bytes], keywords: object, comment_tags: object, options: object
) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel's extraction method for a catalog data file (a YAML list of entries): each
    CATALOG_PROSE value, as the loader reads it, at its line."""
    import yaml

    document: Any = yaml.compose(fileobj)
    for entry in document.value if document is not None else ():
        for key, value in entry.value:
            if key.value in CATALOG_PROSE and value.value:
                yield value.start_mark.line + 1, None, value.value, []


# Only the package's own code and catalog data: tests and scripts show nothing to a learner.
METHOD_MAP: list[tuple[str, Any]] = [
    ("tests/**", "ignore"),
    ("scripts/**", "ignore"),
    ("build/**", "ignore"),
    ("engine/capacity/data/*.yaml", extract_catalog_prose),
    ("**.py", "python"),
]


def catalog_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def extracted() -> Catalog:
    """Every message the code marks, with where it is used."""
    template = Catalog(domain=DOMAIN, project="kvdrill")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), METHOD_MAP, keywords=KEYWORDS, comment_tags=("Translators:",)
    ):
        template.add(
            message, locations=[(filename, lineno)], auto_comments=comments, context=context
        )
    return template


def read_catalog(language: str) -> Catalog:
    with catalog_path(language).open("rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


def update_catalog(language: str) -> list[str]:
    """Merge the extracted messages into ``language``'s catalog: new ones come in with an empty
    translation, gone ones leave. The new message ids, for the developer to translate."""
    catalog = read_catalog(language)
    known = {message.id for message in catalog if message.id}
    created = catalog.creation_date
    catalog.update(extracted(), no_fuzzy_matching=True)
    catalog.obsolete.clear()
    catalog.creation_date = created
    write_catalog(catalog, language)
    return [str(message.id) for message in catalog if message.id and message.id not in known]


def write_catalog(catalog: Catalog, language: str) -> None:
    """Sorted by message, without locations or dates that change: helpers adding messages at
    once rarely touch the same lines, and a moved line of code leaves the file as it is."""
    with catalog_path(language).open("wb") as handle:
        write_po(handle, catalog, width=100, no_location=True, sort_output=True)
