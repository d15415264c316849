"""One root for every error the companion raises on purpose.

Each error also mixes in the builtin a caller would naturally catch, so
`except ValueError` keeps working for code that knows nothing of the companion.
"""


class CompanionError(Exception):
    """Root of every error the companion raises on purpose."""

    # What a viewer without the PIN may read when the message names the machine (a path,
    # SQLite's words); None: the message itself is fit to show to anyone.
    public: str | None = None


class IllegalCommand(CompanionError, ValueError):
    """A command the rules do not allow now. Nothing was changed."""


class MovedOn(IllegalCommand):
    """A command sent for a state the game has since left (another phone, the panel or the camera got
    there first): a confirmed undo must not take back a move nobody was asked about. Nothing changed."""


class BadCommand(IllegalCommand):
    """Input that is not a well-formed command at all (not JSON, unknown key, wrong type)."""


class NotJSON(BadCommand):
    """Text that is not JSON at all (the web answers 415 for it, other bad input 400)."""


class GameLogError(CompanionError, RuntimeError):
    """The game log on disk cannot be read: torn, corrupted, or not a companion database."""


class StoreError(GameLogError):
    """An accepted command (or game) that could not be written: disk full, card read-only.
    Nothing changed; str() names the file and SQLite's reason, for the server's log only."""

    public = ("the game log could not store the command (is the disk full or read-only?); "
              "nothing was changed, and the server's log has the details")


class GameLogInUse(CompanionError, BlockingIOError):
    """Another `companion run` or `serve` is serving this game log (companion.loglock)."""


class UnknownGame(CompanionError, LookupError):
    """A game id that the game log does not hold."""


class ConfigError(CompanionError, ValueError):
    """A configuration file or setting that cannot be used (a pin used twice, an unknown name)."""


class CameraError(CompanionError, OSError):
    """A camera that cannot be opened, fails, or disappears."""


class ImageError(CompanionError, ValueError):
    """An image that cannot be decoded or holds nothing readable."""
