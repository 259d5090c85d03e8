"""``kvdrill settings [--pack PACK] [KEY VALUE] [--json]``: show the profile's settings, or
change one; with ``--pack``, the settings of that pack's own (its new cards per day and their
order, as Anki's deck options)."""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes
    from kvdrill.engine.study.settings import PACK_DEFAULT, pack_setting_names, setting_names

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
    completes(
        parser.add_argument(
            "--pack",
            metavar="PACK",
            help=_("a pack's own settings: {names} ({default}: the profile's rule again)").format(
                names=", ".join(pack_setting_names()), default=PACK_DEFAULT
            ),
        ),
        "packs",
    )
    parser.add_argument("--json", action="store_true", help=_("print the settings as JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from kvdrill.app.services.backend import Services
    from kvdrill.engine.errors import UserError
    from kvdrill.engine.study.settings import describe_setting, parse_setting, setting_names

    if args.pack is not None:
        return _run_pack(args)
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
        # The packs' own settings are shown by the table and --json, not by a change's one line.
        packs = services.pack_settings() if args.key is None or args.json else {}
    finally:
        services.close()
    if args.json:
        shown = {**settings.to_dict(), "packs": {k: p.to_dict() for k, p in packs.items()}}
        print(json.dumps(shown, indent=2))
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
    for key, pack in packs.items():
        print(_("Pack {pack}: {settings}").format(pack=key, settings=_pack_line(pack)))
    return 0


def _pack_line(pack) -> str:
    """A pack's own settings in one line: ``new_per_day = 3, new_order = random``."""
    from kvdrill.engine.study.settings import pack_setting_names

    values = pack.to_dict()
    return ", ".join(
        f"{name} = {values[name]}" for name in pack_setting_names() if values[name] is not None
    )


def _run_pack(args: argparse.Namespace) -> int:
    """``kvdrill settings --pack PACK [KEY VALUE] [--json]``."""
    import json

    from kvdrill.app.services.backend import Services
    from kvdrill.engine.errors import UserError
    from kvdrill.engine.study.settings import (
        PACK_DEFAULT,
        PackSettings,
        describe_pack_setting,
        pack_setting_names,
        parse_pack_setting,
    )

    if args.key is not None and args.value is None:
        describe_pack_setting(args.key)  # an unknown key says so first
        raise UserError(
            _("give a value too: kvdrill settings --pack {pack} {key} VALUE").format(
                pack=args.pack, key=args.key
            )
        )
    if args.key is not None:
        parse_pack_setting(args.key, args.value)  # a bad value fails before the database opens
    services = Services(args.db, args.profile, bundled=False)
    try:
        if args.key is None:
            # The name checked as a change checks it (an edition's original is the pack).
            key = services.check_pack(args.pack)
            pack = services.pack_settings().get(key, PackSettings())
        else:
            key, pack = services.change_pack_setting_text(args.pack, args.key, args.value)
    finally:
        services.close()
    values: dict[str, object] = dict(pack.to_dict())
    if args.json:
        print(json.dumps({"pack": key, **values}, indent=2))
        return 0
    if args.key is not None:
        shown = values[args.key] if values[args.key] is not None else PACK_DEFAULT
        print(f"{key}: {args.key} = {shown}")
        return 0
    from kvdrill.app.text_table import table_lines

    rows = [
        [
            name,
            str(values[name]) if values[name] is not None else PACK_DEFAULT,
            "{} ({})".format(*describe_pack_setting(name)),
        ]
        for name in pack_setting_names()
    ]
    print(_("Settings of pack {pack}'s own:").format(pack=key))
    print("\n".join(table_lines(rows)))
    return 0
