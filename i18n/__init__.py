"""The translation functions every string a learner reads goes through: ``_``, ``ngettext``
and ``N_``.

Standard library only, and no file is read here: the app loads the catalog of the learner's
language (app/services/language.py reads i18n/locale/<lang>/LC_MESSAGES/kvdrill.po with
Babel) and installs it, so the engine's texts (diagnoses, worked solutions) are translated
without the engine doing I/O. Until a catalog is installed every message is its English self.

A message is a literal with named ``{placeholders}``, formatted after translation:
``_("{count} cards due").format(count=n)``; never ``_(f"...")`` (the extractor needs the
literal, and the translator the placeholder names). ``N_`` marks a literal kept at module
level (a key table, a binding's description) for the extractor; it is translated where shown.
"""

from __future__ import annotations

import gettext

DEFAULT_LANGUAGE = "en"
DOMAIN = "kvdrill"

_translations: gettext.NullTranslations = gettext.NullTranslations()
_language = DEFAULT_LANGUAGE


def install(translations: gettext.NullTranslations, language: str) -> None:
    """Make ``translations`` (the catalog of ``language``) the one every message goes through."""
    global _translations, _language
    _translations, _language = translations, language


def language() -> str:
    """The language of the installed catalog (``en`` when none is)."""
    return _language


def _(message: str) -> str:
    """``message`` in the learner's language (itself when the catalog has no entry)."""
    # gettext's empty message id is the catalog's header, never a text to show.
    return _translations.gettext(message) if message else message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` for ``count``, in the learner's language."""
    return _translations.ngettext(singular, plural, count)


def N_(message: str) -> str:  # noqa: N802 - the gettext convention's name
    """``message`` unchanged: marks a literal for extraction; ``_`` translates it where shown."""
    return message
