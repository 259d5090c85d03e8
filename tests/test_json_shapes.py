"""The JSON shapes that cross layers are TypedDicts mypy checks (tests/test_types.py); these
tests hold each one to the object it is made from, so a field added to one is not left out of
the other."""

from __future__ import annotations

from dataclasses import fields

import pytest

from kvdrill.store.doctor import DoctorReport, DoctorReportJson

pytestmark = pytest.mark.unit


def test_doctor_json_is_every_field_of_the_report_and_its_verdict() -> None:
    report = DoctorReport("k.db", ["ok"], unexplained=["x"], recreated={"cards": 2})
    shown = report.to_json()
    assert set(shown) == set(DoctorReportJson.__annotations__)
    assert set(shown) == {item.name for item in fields(DoctorReport)} | {"sound", "problems"}
    assert (shown["sound"], shown["problems"], shown["recreated"]) == (False, 3, {"cards": 2})


def test_the_anki_history_file_has_the_keys_its_type_names() -> None:
    import json
    from datetime import datetime

    from kvdrill.engine.interop.anki_history import (
        CardHistory,
        HistoryCardJson,
        HistoryFileJson,
        ImportedReview,
        PackHistory,
        history_text,
        read_history,
    )
    from kvdrill.engine.study.grades import Grade
    from kvdrill.engine.study.schedule import Schedule

    review = ImportedReview("anki:1", datetime(2026, 3, 1, 9), Grade(4), 6.0, 3, 2500)
    history = PackHistory("p", "deck.apkg", {"c": CardHistory(Schedule(), (review,))}, 1, 0)
    document = json.loads(history_text(history))
    assert set(document) == set(HistoryFileJson.__annotations__)
    assert set(document["cards"]["c"]) == set(HistoryCardJson.__annotations__)
    assert read_history(history_text(history), "h.json") == history


def test_the_settings_json_names_every_setting() -> None:
    from kvdrill.engine.study.settings import ProfileSettings, SettingsJson

    shown = ProfileSettings(new_per_day=7).to_dict()
    assert set(shown) == set(SettingsJson.__annotations__)
    assert set(shown) == {item.name for item in fields(ProfileSettings)}
    assert shown["new_per_day"] == ProfileSettings(new_per_day=7).value("new_per_day") == 7
