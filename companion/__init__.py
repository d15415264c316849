"""The table companion's rules engines, game log and command line.

Pure Python: nothing here imports the camera (`vision`), the button panel (`hw`)
or the web dashboard (`web`); they depend on this package, never the reverse.
"""

__version__ = "0.1.0"
