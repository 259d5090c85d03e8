"""``kvdrill problem``: practise one problem template, or share a variant by its seed.

``--list`` lists the templates; ``TEMPLATE [--seed N]`` prints a variant without its answer;
``--answer TEXT`` checks an answer and prints the verdict and the worked solution. Nothing is
scheduled or logged.
"""

from __future__ import annotations

import argparse

from kvdrill.i18n import _


def register(subparsers) -> None:
    from kvdrill.app.commands.completes import completes

    parser = subparsers.add_parser(
        "problem",
        help=_("practise a problem template: problem --list, problem TEMPLATE [--seed N]"),
        description=(
            _(
                "Print a variant of a problem template (pack/card, as --list shows) without its "
                "answer, or check an answer to it. The same template and seed always give the same "
                "variant, so a seed can be shared with a colleague. Nothing is scheduled or logged."
            )
        ),
    )
    completes(
        parser.add_argument(
            "template", nargs="?", metavar="TEMPLATE", help=_("pack/card of a template")
        ),
        "templates",
    )
    parser.add_argument("--list", action="store_true", help=_("list the problem templates"))
    parser.add_argument("--seed", type=int, metavar="N", help=_("which variant (default: random)"))
    parser.add_argument("--answer", metavar="TEXT", help=_("check this answer, e.g. '128 KiB'"))
    parser.add_argument("--json", action="store_true", help=_("print JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kvdrill.app.services.backend import Services
    from kvdrill.engine.errors import UserError

    if args.list == (args.template is not None):
        raise UserError(_("give a TEMPLATE or --list (kvdrill problem --list shows the templates)"))
    if args.list and (args.seed is not None or args.answer is not None):
        raise UserError(_("--seed and --answer go with a TEMPLATE, not with --list"))
    services = Services(args.db, args.profile)
    try:
        if args.list:
            return _print_list(services.problem_templates(), args.json)
        template = services.problem_template(args.template)
    finally:
        services.close()
    return _practise(template, args)


def _print_list(templates, as_json: bool) -> int:
    import json

    from kvdrill.app.plain import literal

    if as_json:
        rows = [{"template": t.id, "title": t.title} for t in templates]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not templates:
        print(_("No problem templates: import a pack with problem cards."))
    from kvdrill.app.text_table import table_lines

    lines = [[literal(template.id), literal(template.title)] for template in templates]
    print("\n".join(table_lines(lines)))
    return 0


def _practise(template, args: argparse.Namespace) -> int:
    import json

    from kvdrill.app.services.problems import check, draw

    variant = draw(template, args.seed)
    verdict = check(variant, args.answer) if args.answer is not None else None
    if args.json:
        report: dict = {
            "template": variant.template_id,
            "title": template.title,
            "seed": variant.seed,
            "prompt": variant.prompt,
            "unit": variant.unit,
            "inputs": variant.params,
        }
        if verdict is not None:
            report.update(
                answer=args.answer,
                correct=verdict.correct,
                expected=variant.expected_value,
                expected_text=verdict.expected_text,
                diagnosis=verdict.mistake,
                message=verdict.diagnosis or verdict.headline,
                worked_solution=verdict.worked_solution,
            )
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0 if verdict is None or verdict.correct else 1
    _print_variant(template, variant)
    if verdict is None:
        command = f"kvdrill problem {variant.template_id} --seed {variant.seed} --answer '...'"
        print("\n" + _("Answer in {unit}: {command}").format(unit=variant.unit, command=command))
        return 0
    _print_verdict(verdict)
    return 0 if verdict.correct else 1


def _print_variant(template, variant) -> None:
    from kvdrill.app.plain import literal, shown
    from kvdrill.app.plain_text import terminal_width

    print(literal(f"{template.title}  ({variant.template_id}, seed {variant.seed})"))
    print()
    print(shown(variant.prompt, terminal_width()))  # re-flowed as in plain drills
    if variant.params:
        print()
        for name, value in variant.params.items():
            print(literal(f"  {name} = {value}"))
    print("\n" + _("Unit asked: {unit}").format(unit=literal(variant.unit)))


def _print_verdict(verdict) -> None:
    from kvdrill.app.plain import literal, shown
    from kvdrill.app.plain_text import terminal_width

    width = terminal_width()
    print()
    print(literal(verdict.headline))  # names the expected value, unless unreadable
    if verdict.unreadable:
        return  # type the answer again: the solution is not given away for a typo
    if verdict.diagnosis:
        print(shown(verdict.diagnosis, width, lead="Diagnosis: "))
    print()
    print(shown(verdict.worked_solution, width))
