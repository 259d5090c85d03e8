"""The fields of a pack's ```problem block, as pydantic models (unknown fields are errors), and
the limits a template is held to. The fields are documented in decks/README.md, "Problem
templates"; engine/problems/templates.py compiles a checked block into a ``Problem``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kvdrill.engine.problems.quantities import Scalar
from kvdrill.i18n import N_, _

MAX_AXIS_CHOICES = 100_000  # values one range may span
MAX_PROMPT_CHARS = 4000
MAX_ATTEMPTS = 200  # draws per variant before the constraints are declared unmeetable
VALIDATION_SEEDS = 12  # seeds kvdrill check tries on each template
DEFAULT_TOLERANCE = 0.01
MAX_TOLERANCE = 0.1

CATALOG_AXES = ("model", "gpu", "dtype", "kv_dtype", "tp")

# Named constraints, written in the constraint language itself.
NAMED_CONSTRAINTS = {
    "weights_fit": "weight_bytes < tp * gpu_mem * gpu_util",
    "pool_positive": "kv_pool_bytes > 0",
    "request_fits": "kv_pool_tokens >= request_tokens",
    "max_model_len_fits": "kv_pool_tokens >= max_model_len",
    "sequence_fits": "kv_pool_tokens >= seq_tokens",
}

# Units a constraint may use as constants: `weight_bytes <= 70 * GB`.
CONSTRAINT_UNITS = ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "s", "ms", "us")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RangeSpec(_Strict):
    """``{from: 1000, to: 8000, step: 100}``: every value from ``from`` to ``to`` by ``step``."""

    start: Scalar = Field(alias="from")
    to: Scalar
    step: Scalar = 1


class PackFormula(_Strict):
    """A formula written in the pack: an expression over declared or catalog symbols."""

    expr: str
    symbols: dict[str, str] = Field(default_factory=dict)  # name -> unit ("GiB", "token", "")
    output: str | None = None  # the result's name; defaults to ``ask``


class ProblemSpec(_Strict):
    ask: str
    formula: str | PackFormula | None = None
    vary: dict[str, Scalar | list[Scalar] | RangeSpec | dict[str, Any]] = Field(
        default_factory=dict
    )
    given: dict[str, Scalar] = Field(default_factory=dict)
    constraints: list[str] = Field(default_factory=list)
    prompt: str = ""  # empty: a prompt listing the inputs is written for each variant
    unit: str
    tolerance: float | str | None = None


# pydantic's error types a wrong template meets most, in our words (the rest keep pydantic's).
_TYPE_SENTENCES = {
    "string_type": N_("must be text"),
    "int_type": N_("must be a whole number"),
    "int_parsing": N_("must be a whole number"),
    "int_from_float": N_("must be a whole number"),
    "float_type": N_("must be a number"),
    "float_parsing": N_("must be a number"),
    "bool_type": N_("must be true or false"),
    "list_type": N_("must be a list"),
    "dict_type": N_("must be a mapping of `field: value` lines"),
    "model_type": N_("must be a mapping of `field: value` lines"),
}


def field_message(error: Mapping[str, Any]) -> str:
    """One of pydantic's validation errors (``ValidationError.errors()``) as the learner's
    sentence: a missing field, an unknown one, a wrong type in kvdrill's words and language."""
    field = repr(".".join(str(part) for part in error["loc"]))
    if error["type"] == "missing":
        return _("missing required field {field}").format(field=field)
    if error["type"] == "extra_forbidden":
        return _("unknown field {field}").format(field=field)
    sentence = _TYPE_SENTENCES.get(error["type"])
    return _(sentence) if sentence else str(error["msg"])
