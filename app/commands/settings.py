"""``kvdrill settings [KEY VALUE] [--json]``: show the profile's settings, or change one."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes
    from kvdrill.engine.study.settings import setting_names

    parser = subparsers.add_parser(
        "settings",
        help=_("show the profile's settings, or change one: settings KEY VALUE"),
        description=_(
            "Without arguments, print the profile's settings with what each means and the "
            "values it takes. With KEY VALUE, change that one setting. Settings: {names}."
        ).format(names=", ".join(setting_names())),
    )
    completes(
        parser.add_argument("key", nargs="?", metavar="KEY", help=_("the setting to change")),
        "settings",
    )
    parser.add_argument("value", nargs="?", metavar="VALUE", help=_("its new value"))
    parser.add_argument("--json", action="store_true", help=_("print the settings as JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from kvdrill.app.services.backend import Services
    from kvdrill.engine.errors import UserError
    from kvdrill.engine.study.settings import describe_setting, parse_setting, setting_names

    if args.key is not None and args.value is None:
        describe_setting(args.key)  # an unknown key says so first
        raise UserError(_("give a value too: kvdrill settings {key} VALUE").format(key=args.key))
    if args.key is not None:
        parse_setting(args.key, args.value)  # a bad value fails before the database opens
    services = Services(args.db, args.profile, bundled=False)
    try:
        if args.key is None:
            settings = services.settings()
        else:
            settings = services.change_setting_text(args.key, args.value)
    finally:
        services.close()
    if args.json:
        print(json.dumps(settings.to_dict(), indent=2))
        return 0
    if args.key is not None:
        print(f"{args.key} = {settings.value(args.key)}")
        return 0
    from kvdrill.app.text_table import table_lines

    rows = [
        [name, str(settings.value(name)), "{} ({})".format(*describe_setting(name))]
        for name in setting_names()
    ]
    print("\n".join(table_lines(rows)))
    fitted = _("fitted to your log") if settings.fsrs_parameters else _("the defaults")
    print(_("FSRS parameters: {fitted} (kvdrill optimize fits them)").format(fitted=fitted))
    return 0
