"""What a pack's front matter may hold: its keys, their types, and the pydantic model whose
validation errors word a wrong type (pydantic loads only for a front matter
``plain_front_matter`` cannot vouch for)."""

from __future__ import annotations

from functools import cache
from typing import Any

from kvdrill.i18n import N_

# What each key's value must be (marked: the reader translates it where it reports it).
FRONT_MATTER_TYPES = {
    "pack": N_("must be text (the pack id)"),
    "title": N_("must be text"),
    "version": N_("must be a number or text"),
    "lang": N_("must be a language tag such as en or vi"),
    "lessons": N_("must be a list of lesson numbers"),
    "tags": N_("must be a list of tags"),
    "description": N_("must be text"),
    "edition_of": N_("must be text (the id of the pack this one translates)"),
}
WRONG_TYPE = N_("has the wrong type")
FRONT_MATTER_KEYS = tuple(FRONT_MATTER_TYPES)


@cache
def front_matter_model() -> Any:
    """The pydantic model of a front matter (made on first use: pydantic is slow to load)."""
    from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr

    class FrontMatter(BaseModel):
        model_config = ConfigDict(extra="forbid")

        pack: StrictStr
        title: StrictStr
        version: StrictStr | StrictInt | StrictFloat
        lang: StrictStr = "en"
        lessons: list[StrictStr | StrictInt] | StrictStr | StrictInt = []
        tags: list[StrictStr] | StrictStr = []
        description: StrictStr = ""
        edition_of: StrictStr | None = None

    return FrontMatter


def plain_front_matter(value: dict[str, Any]) -> bool:
    """True when the front-matter model takes ``value`` as it is: only known keys, the three
    required ones there, every value of exactly a type the model allows (a bool is not an
    int to it)."""
    if (
        not value.keys() <= FRONT_MATTER_TYPES.keys()
        or not {"pack", "title", "version"} <= value.keys()
    ):
        return False
    for key, item in value.items():
        kind = type(item)
        if key == "version":
            ok = kind in (str, int, float)
        elif key == "lessons":
            ok = kind in (str, int) or (
                kind is list and all(type(lesson) in (str, int) for lesson in item)
            )
        elif key == "tags":
            ok = kind is str or (kind is list and all(type(tag) is str for tag in item))
        else:
            ok = kind is str
        if not ok:
            return False
    return True
