"""The sentences that name a mistake: one per diagnosis code, in the variant's own numbers.

``SENTENCES`` holds the sentences that need no number (a rule's fixed sentence, or one for a
generator-supplied alternative of engine/problems/diagnosis_context.py); the functions below
word the ones that show numbers. The rules that decide which mistake an answer shows are in
engine/problems/diagnosis_rules.py and engine/problems/diagnosis.py; this module only words them.
"""

from __future__ import annotations

from kvdrill.engine.capacity.units import format_number
from kvdrill.engine.wording import plural

UNIT_DEFINITIONS = {
    "kb_vs_kib": "1 KiB = 1024 B, 1 kB = 1000 B",
    "mb_vs_mib": "1 MiB = 1024² B = 1.049 MB",
    "gb_vs_gib": "1 GiB = 2³⁰ B = 1.074 GB",
    "tb_vs_tib": "1 TiB = 2⁴⁰ B = 1.1 TB",
    "bits_vs_bytes": "1 B = 8 bits",
}

# Sentences by code, for generator-supplied alternatives and the rules that need no numbers.
SENTENCES = {
    "kv_factor_2": "You left out the factor 2 for K and V: every layer caches a key and a value.",
    "mla_factor_2": "MLA caches one compressed latent per layer, so there is no factor 2 for K and V.",
    "attention_heads": "You used the attention heads; the KV cache holds only the KV heads.",
    "tp_missing": "You left out tensor parallelism: the work is split over the TP GPUs.",
    "tp_wrong": "You applied the tensor-parallel size the wrong way.",
    "tp_replication": "With TP above the KV head count, each GPU keeps a whole KV head.",
    "dtype_bytes": "You used the wrong number of bytes per value for the precision.",
    "block_rounding": "You left out the rounding to whole KV blocks.",
    "weights_not_subtracted": "You forgot to subtract the weights from the GPU memory.",
    "utilization_missing": "You left out the GPU memory utilization (gpu_memory_utilization).",
    "sliding_window": "Sliding-window layers keep only the window's tokens, not the whole context.",
    "active_vs_total": "You mixed up active and total parameters of the MoE model.",
    "rounded_up": "You rounded up: a request that does not fit is not served.",
    "rounded_down": (
        "You are one short: a part still needs a whole one (a partly filled block, a fraction "
        "of a GPU or replica), and keep whatever the question adds on top, such as a spare."
    ),
    "gpus_missing": "You left out the GPU count: the answer is for all the GPUs, not one.",
    "scales_missing": (
        "You left out the quantization scales: a 4-bit checkpoint stores them on top of the "
        "4 bits (one 16-bit scale per 128 weights is 0.125 bit more per weight)."
    ),
    "gib_read_as_gb": "You read a size given in GiB as GB: 1 GiB = 2³⁰ B = 1.074 GB.",
    "gb_read_as_gib": "You read a size given in GB as GiB: 1 GiB = 2³⁰ B = 1.074 GB.",
}

# Names of the base units a bare number may have been worked out in, by dimension.
BASE_UNIT_NAMES = {
    frozenset({("[information]", 1)}): "bytes",
    frozenset({("[time]", 1)}): "seconds",
    frozenset({("[information]", 1), ("[time]", -1)}): "bytes per second",
}


def times(ratio: float) -> str:
    """'8 times too large' / '2 times too small' for a ratio of answer to truth."""
    if ratio >= 1:
        return f"{format_number(ratio, 3)} times too large"
    return f"{format_number(1 / ratio, 3)} times too small"


def prefix_ratio_sentence(code: str, ratio: float) -> str:
    return (
        f"Your answer is off by {format_number(ratio, 4)}, the gap between decimal and "
        f"binary units ({UNIT_DEFINITIONS[code]})."
    )


def bits_vs_bytes_sentence(found: float) -> str:
    return f"Your answer is {times(found)}: you mixed bits and bytes (1 B = 8 bits)."


def attention_heads_sentence(heads: float, kv_heads: float) -> str:
    return (
        f"You used the {format_number(heads)} attention heads; the KV cache "
        f"holds only the {format_number(kv_heads)} KV heads."
    )


def tp_missing_sentence(tp: float) -> str:
    return f"You left out tensor parallelism: the work is split over {format_number(tp)} GPUs."


def tp_wrong_sentence(tp: float) -> str:
    return (
        f"You applied the tensor-parallel size {format_number(tp)} the "
        "wrong way (twice, multiplied instead of divided, or past the KV head count)."
    )


def gpus_missing_sentence(gpus: float) -> str:
    return f"You left out the GPU count: the answer is for all {format_number(gpus)} GPUs, not one."


def dtype_bytes_sentence(wrong: float, dtype: object, size: float) -> str:
    """``wrong`` bytes per value taken where the precision ``dtype`` (a name, if known) has
    ``size``."""
    named = f"{dtype} takes" if isinstance(dtype, str) and dtype else "the precision takes"
    return (
        f"You used {plural(wrong, 'byte', format_number(wrong))} per value; "
        f"{named} {format_number(size)}."
    )


def factor_1000_sentence(found: float) -> str:
    return f"Your answer is {times(found)}: check the prefixes (k, M, G; ms against s)."


def factor_1024_sentence(found: float) -> str:
    return f"Your answer is {times(found)}: one binary prefix step (KiB, MiB, GiB) is off."


def near_miss_sentence(found: float, tolerance: float) -> str:
    return (
        f"Your answer is {format_number(abs(found - 1) * 100, 2)}% off, outside the "
        f"{format_number(tolerance * 100, 2)}% tolerance: keep more digits "
        "until the last step."
    )


def unit_slip_sentence(code: str, sibling_unit: str, typed_unit: str, truth_typed: float) -> str:
    """The number typed is the answer in ``sibling_unit``; in ``typed_unit`` it is
    ``truth_typed``."""
    return (
        f"Your number is the answer in {sibling_unit}, not {typed_unit}: "
        f"in {typed_unit} it is {format_number(truth_typed)} "
        f"({UNIT_DEFINITIONS[code]})."
    )


def bare_base_unit_sentence(base: str, unit: str, expected: str) -> str:
    """A bare number that is the answer in the base unit ``base`` (bytes, seconds...), read in
    the asked ``unit``; ``expected`` is the answer as it should be written."""
    return (
        f"Your number is the answer in {base}, but it was read in {unit}: "
        f"write {expected}, or put the unit after the number."
    )


def known_mistake_sentence(code: object) -> str:
    """For an alternative code with no sentence of its own."""
    return f"Your answer matches a known mistake ({code})."
