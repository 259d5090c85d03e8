"""``kvdrill optimize [--save] [--json]``: fit FSRS's parameters to the profile's own review
log (fsrs-rs), print how well the current and the fitted ones predict it, keep them if asked."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from kvdrill.i18n import _

if TYPE_CHECKING:
    from kvdrill.engine.study.fsrs_fit import Fit


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "optimize",
        help=_("fit FSRS's parameters to your own review log"),
        description=(
            _(
                "Fit FSRS's 21 parameters to the profile's review log with fsrs-rs (the optimizer "
                "Anki uses) and print the log loss and RMSE of the current parameters and of the "
                "fitted ones on that log (lower is better). --save keeps the fitted ones; in a "
                "terminal you are asked. Under FSRS, keeping them reschedules every card."
            )
        ),
    )
    parser.add_argument("--save", action="store_true", help=_("keep the fitted parameters"))
    parser.add_argument("--json", action="store_true", help=_("print the fit as JSON"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys
    from dataclasses import asdict

    from kvdrill.app.services.backend import Services

    services = Services(args.db, args.profile, bundled=False)
    try:
        fit = services.fit_fsrs()
        keep = args.save
        if not args.json:
            print(fit_text(fit))
            if not keep and fit.improves and sys.stdin.isatty():
                answer = input("Keep the fitted parameters for this profile? [y/N] ")
                keep = answer.strip().lower() in ("y", "yes")
        if keep:
            services.keep_fsrs_fit(fit)  # a fit it cannot keep is a UserError: nothing changes
    finally:
        services.close()
    if args.json:
        summary = {"enough": fit.enough, "improves": fit.improves, "saved": keep}
        print(json.dumps(asdict(fit) | summary, indent=2))
    elif keep:
        print(_("Kept for profile {profile}.").format(profile=args.profile))
    elif fit.improves:
        print(_("Not kept: kvdrill optimize --save keeps them."))
    return 0


def fit_text(fit: Fit) -> str:
    """The fit as a few lines: how much of the log it learned from, the loss and RMSE of the
    current and the fitted parameters; or why the log is too short."""
    from kvdrill.app.services.optimize import too_short
    from kvdrill.app.shown_numbers import decimal

    if fit.before is None or fit.after is None:
        return too_short(fit)
    learned = _(
        "FSRS learns from {training} of your {reviews} reviews: those a day or\n"
        "more after the card's previous one."
    ).format(training=fit.training_reviews, reviews=fit.reviews)
    current, fitted = _("current parameters"), _("fitted to your log")
    width = max(22, len(current) + 2, len(fitted) + 2)

    def row(name: str, log_loss: float, rmse: float) -> str:
        return f"{name:<{width}}{decimal(log_loss, 4):>10}{decimal(rmse, 4):>10}"

    lines = [
        learned,
        f"{'':<{width}}{'log loss':>10}{'RMSE':>10}",
        row(current, fit.before.log_loss, fit.before.rmse),
        row(fitted, fit.after.log_loss, fit.after.rmse),
    ]
    if not fit.improves:
        lines.append(_("The fitted parameters predict your log no better than the current ones."))
    return "\n".join(lines)
