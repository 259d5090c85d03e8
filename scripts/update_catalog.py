"""Bring the Vietnamese catalog up to date with the code: new messages come in with an empty
translation (write one), messages no longer in the code leave.

    .venv/bin/python scripts/update_catalog.py

Babel's ``pybabel extract``/``update`` do the same with kvdrill/i18n/extract.py's keywords;
this script needs no .pot file in between.
"""

from __future__ import annotations

from kvdrill.i18n.extract import catalog_path, update_catalog

for language in ("vi",):
    new = update_catalog(language)
    print(f"{catalog_path(language)}: {len(new)} new messages to translate")
    for message in new:
        print(f"  {message!r}")
