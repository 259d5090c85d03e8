"""The interface language: which one (the profile's ``language`` setting, then the locale,
then English) and its catalog, installed into kvdrill.i18n.

The catalogs are gettext ``.po`` files (i18n/locale/<lang>/LC_MESSAGES/kvdrill.po) read at
start with Babel's own reader: no compiled ``.mo`` to build or keep in step, so an editable
install and the wheel run the same file a translator edits. English needs no catalog.
"""

from __future__ import annotations

import gettext
from functools import cache
from importlib import resources
from io import BytesIO

from kvdrill import i18n
from kvdrill.app.services import environment
from kvdrill.engine.study.settings import LANGUAGES


def interface_language(chosen: str | None) -> str:
    """``chosen`` (the profile's setting) if set, else the locale's language when kvdrill has
    it, else English."""
    for language in (chosen, environment.locale_language()):
        if language in LANGUAGES:
            return language
    return i18n.DEFAULT_LANGUAGE


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The catalog of ``language``, read from the package's own ``.po`` file."""
    if language == i18n.DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    source = resources.files(i18n).joinpath("locale", language, "LC_MESSAGES", "kvdrill.po")
    with source.open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=i18n.DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries stay out, as msgfmt leaves them
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def use_language(language: str) -> None:
    """Every message from now on in ``language``."""
    i18n.install(translations(language), language)


def use_profile_language(database_url: str | None, profile_name: str) -> str:
    """Install the language of profile ``profile_name`` (the locale's when it chose none);
    returns it."""
    from kvdrill.engine.errors import UserError
    from kvdrill.store.profile_language import read_chosen_language

    try:
        chosen = read_chosen_language(environment.database_url(database_url), profile_name)
    except UserError:  # a data dir the command itself then reports in one line
        chosen = None
    language = interface_language(chosen)
    use_language(language)
    return language
