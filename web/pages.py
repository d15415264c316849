"""GET /: the dashboard page (its JS and CSS come from web/static, no CDN)."""

from __future__ import annotations

from flask import Blueprint, render_template

from companion import __version__

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    response = render_template("index.html", version=__version__)
    return response, 200, {"Cache-Control": "no-cache"}
