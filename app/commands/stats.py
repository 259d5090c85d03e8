"""``kvdrill stats``: weak topics, mistakes, heatmap, forecast and retention."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "stats",
        help=_("show weak topics, mistakes, review heatmap and forecast"),
        description=_("Where you are weak, what you keep getting wrong, and what is coming."),
    )
    parser.add_argument(
        "--days", type=int, default=30, help=_("recent window in days (default 30)")
    )
    parser.add_argument("--json", action="store_true", help=_("print the report as JSON"))
    parser.add_argument(
        "--group",
        action="store_true",
        help=_("weak topics across every profile in the database (counts only, no notes)"),
    )
    parser.add_argument(
        "--schema", action="store_true", help=_("print the JSON schema of --json and exit")
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from kvdrill.engine.errors import UserError
    from kvdrill.engine.study.stats_report import GroupReport, StatsReport

    if args.schema:
        model = GroupReport if args.group else StatsReport
        print(json.dumps(model.model_json_schema(), indent=2))
        return 0
    if not 1 <= args.days <= 3650:
        raise UserError(_("--days takes a whole number of days from 1 to 3650."))
    from kvdrill.app.services import environment
    from kvdrill.app.services.stats import fast_group_report, fast_report_and_charts
    from kvdrill.app.stats_charts import chart_lines
    from kvdrill.app.stats_render import render_text

    # The common case without importing SQLAlchemy; the store's session for the rest.
    if args.group:
        group = fast_group_report(args.db, args.profile, environment.now(), args.days)
        if group is not None:
            _print_group(group, args.json)
            return 0
    found = (
        None
        if args.group
        else fast_report_and_charts(args.db, args.profile, environment.now(), args.days)
    )
    report, charts = found if found is not None else (None, None)
    if report is None:
        from kvdrill.app.services.backend import Services

        services = Services(args.db, args.profile, bundled=False)
        try:
            if args.group:
                _print_group(services.group_report(args.days), args.json)
                return 0
            report = services.stats_report(args.days)
            charts = services.stats_charts(report)
        finally:
            services.close()
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    print(render_text(report, practise=_practisable_mistake(args, report)))
    if charts is not None:
        print("\n" + "\n".join(chart_lines(charts)))
    return 0


def _print_group(group, as_json: bool) -> None:
    from kvdrill.app.stats_render import render_group_text

    print(group.model_dump_json(indent=2) if as_json else render_group_text(group))


def _practisable_mistake(args: argparse.Namespace, report) -> str | None:
    """The learner's most frequent mistake a ``kvdrill drill --mistake`` session can be built
    for: the text closes its mistakes with it. No mistakes: no store opened, no template read."""
    codes = [mistake.code for mistake in report.mistakes]
    if not codes:
        return None
    from kvdrill.app.services.backend import Services

    services = Services(args.db, args.profile, bundled=False)
    try:
        return services.first_practisable(codes)
    finally:
        services.close()
